// CgroupTree on a plain temporary directory: what it creates, writes, reads and removes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cgroups/tree.h"
#include "temp_dir.h"

namespace podlimits::cgroups {
namespace {

using podlimits::testing::TempDir;

namespace fs = std::filesystem;

const std::map<std::string, std::string> kControlFiles = {
    {"cgroup.procs", ""},
    {"pids.max", "max\n"},
};

std::vector<std::string> Listing(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    out.push_back(e.path().lexically_relative(root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CgroupTree, CreateRecordsOnlyWhatItCreated) {
  TempDir tmp{"podlimits-cgtree"};
  fs::create_directory(tmp.path() / "existing");
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  ASSERT_TRUE(tree.Create("/existing/a/b"));
  ASSERT_TRUE(tree.Create("existing/a/c"));
  EXPECT_EQ(tree.created(), (std::vector<fs::path>{"existing/a", "existing/a/b", "existing/a/c"}));
  // The plain directory got the control files a kernel would have made.
  EXPECT_TRUE(fs::exists(tmp.path() / "existing/a/b/pids.max"));
  EXPECT_FALSE(fs::exists(tmp.path() / "existing/pids.max"));

  ASSERT_TRUE(tree.Teardown());
  EXPECT_TRUE(tree.created().empty());
  EXPECT_EQ(Listing(tmp.path()), std::vector<std::string>{"existing"});
}

struct PathCase {
  std::string name;
  fs::path cgroup;
  bool ok;
  std::string relative;  // expected Path() below the root, when ok
};

TEST(CgroupTree, PathsStayBelowTheRoot) {
  const std::vector<PathCase> cases = {
      {"absolute", "/kubepods/pod1", true, "kubepods/pod1"},
      {"relative", "kubepods/pod1", true, "kubepods/pod1"},
      {"double slashes", "//kubepods//pod1/", true, "kubepods/pod1"},
      {"root", "/", true, ""},
      {"dot dot", "/kubepods/../../memory", false, ""},
      {"leading dot dot", "../etc", false, ""},
      {"dot", "kubepods/./pod1", false, ""},
  };
  TempDir tmp{"podlimits-cgtree"};
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  for (const PathCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto path = tree.Path(c.cgroup);
    EXPECT_EQ(path.has_value(), c.ok);
    if (path && c.ok) {
      EXPECT_EQ(*path, c.relative.empty() ? tmp.path() : tmp.path() / c.relative);
    }
    if (!c.ok) {
      EXPECT_EQ(path.error().detail, "a cgroup path must not contain \".\" or \"..\"");
      EXPECT_FALSE(tree.Create(c.cgroup));
      EXPECT_FALSE(tree.Remove(c.cgroup));
    }
  }
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(CgroupTree, ExclusiveCreateRefusesAnExistingCgroup) {
  TempDir tmp{"podlimits-cgtree"};
  fs::create_directories(tmp.path() / "kubepods/pod1");
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  auto made = tree.Create("kubepods/pod1", CgroupTree::CreateMode::kExclusive);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().Message(),
            "mkdir \"" + (tmp.path() / "kubepods/pod1").string() + "\": File exists");
  EXPECT_TRUE(tree.created().empty());
  EXPECT_TRUE(tree.Create("kubepods/pod1"));  // shared: reused
  EXPECT_TRUE(tree.created().empty());
}

TEST(CgroupTree, CreateRefusesAFileInThePath) {
  TempDir tmp{"podlimits-cgtree"};
  std::ofstream(tmp.path() / "kubepods") << "x";
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  auto made = tree.Create("kubepods/pod1");
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().Message(),
            "mkdir \"" + (tmp.path() / "kubepods").string() + "\": Not a directory");
  auto root = tree.Create("/");
  ASSERT_FALSE(root);
  EXPECT_EQ(root.error().detail, "the hierarchy root cannot be created");
}

TEST(CgroupTree, WriteAndReadControlFiles) {
  TempDir tmp{"podlimits-cgtree"};
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  ASSERT_TRUE(tree.Create("kubepods"));
  ASSERT_TRUE(tree.Write("kubepods", "pids.max", "1024"));
  auto read = tree.Read("/kubepods", "pids.max");
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, "1024");

  // A file the "kernel" does not offer is not created by a write.
  auto missing = tree.Write("kubepods", "memory.max", "1");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().Message(), "open \"" + (tmp.path() / "kubepods/memory.max").string() +
                                           "\": No such file or directory");
  EXPECT_FALSE(fs::exists(tmp.path() / "kubepods/memory.max"));

  auto bad_name = tree.Write("kubepods", "../pids.max", "1");
  ASSERT_FALSE(bad_name);
  EXPECT_EQ(bad_name.error().detail, "not a control file name");
  EXPECT_FALSE(tree.Read("kubepods", ""));
  ASSERT_TRUE(tree.Teardown());
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(CgroupTree, TeardownLeavesSharedParentsInUseByOthers) {
  TempDir tmp{"podlimits-cgtree"};
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  ASSERT_TRUE(tree.Create("kubepods/burstable"));
  ASSERT_TRUE(tree.Create("kubepods/burstable/podA", CgroupTree::CreateMode::kExclusive));
  // Meanwhile another pod joined the QoS cgroup this tree created.
  fs::create_directory(tmp.path() / "kubepods/burstable/podB");

  ASSERT_TRUE(tree.Teardown());
  EXPECT_EQ(
      Listing(tmp.path()),
      (std::vector<std::string>{"kubepods", "kubepods/burstable", "kubepods/burstable/cgroup.procs",
                                "kubepods/burstable/pids.max", "kubepods/burstable/podB",
                                "kubepods/cgroup.procs", "kubepods/pids.max"}));
  EXPECT_EQ(tree.left_in_use(), (std::vector<fs::path>{"kubepods/burstable", "kubepods"}));
  EXPECT_TRUE(tree.created().empty());
}

TEST(CgroupTree, TeardownRemovesTheWholeExclusiveSubtree) {
  TempDir tmp{"podlimits-cgtree"};
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  ASSERT_TRUE(tree.Create("kubepods/pod1", CgroupTree::CreateMode::kExclusive));
  // What an OCI runtime leaves behind when it dies: container cgroups inside the pod cgroup.
  fs::create_directories(tmp.path() / "kubepods/pod1/ctr1/sub");
  fs::create_directories(tmp.path() / "kubepods/pod1/ctr2");
  ASSERT_TRUE(tree.Teardown());
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(CgroupTree, FailedRemovalIsReportedAndRetried) {
  TempDir tmp{"podlimits-cgtree"};
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  ASSERT_TRUE(tree.Create("kubepods/pod1"));
  std::ofstream(tmp.path() / "kubepods/pod1/stray") << "x";  // not a file the tree made

  auto first = tree.Teardown();
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().Message(),
            "rmdir \"" + (tmp.path() / "kubepods/pod1").string() + "\": Directory not empty");
  // Its parent is not reported again, and both stay recorded.
  EXPECT_EQ(tree.created(), (std::vector<fs::path>{"kubepods", "kubepods/pod1"}));
  EXPECT_TRUE(tree.left_in_use().empty());

  fs::remove(tmp.path() / "kubepods/pod1/stray");
  ASSERT_TRUE(tree.Teardown());
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(CgroupTree, RemoveOnlyUnlinksFilesOfDirectoriesItCreated) {
  TempDir tmp{"podlimits-cgtree"};
  fs::create_directory(tmp.path() / "foreign");
  std::ofstream(tmp.path() / "foreign/cgroup.procs") << "";
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  auto removed = tree.Remove("foreign");
  ASSERT_FALSE(removed);
  EXPECT_EQ(removed.error().errno_value, ENOTEMPTY);
  EXPECT_TRUE(fs::exists(tmp.path() / "foreign/cgroup.procs"));

  ASSERT_TRUE(tree.Create("mine"));
  ASSERT_TRUE(tree.Remove("/mine"));
  EXPECT_FALSE(fs::exists(tmp.path() / "mine"));
  EXPECT_TRUE(tree.created().empty());
  EXPECT_TRUE(tree.Remove("mine"));  // already gone
}

TEST(CgroupTree, ProcsAndKillOnAPlainDirectory) {
  TempDir tmp{"podlimits-cgtree"};
  auto tree = CgroupTree::OnPlainDirectory(tmp.path(), kControlFiles);
  ASSERT_TRUE(tree.Create("pod1/ctr"));
  auto none = tree.Procs("pod1");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_TRUE(tree.Kill("pod1"));  // nothing to kill

  // Pids a test writes into a fake cgroup.procs are never signalled.
  std::ofstream(tmp.path() / "pod1/ctr/cgroup.procs") << "999999\n999998\n";
  auto procs = tree.Procs("pod1/ctr");
  ASSERT_TRUE(procs);
  EXPECT_EQ(*procs, (std::vector<pid_t>{999999, 999998}));
  auto killed = tree.Kill("pod1");
  ASSERT_FALSE(killed);
  EXPECT_EQ(killed.error().Message(),
            "kill \"" + (tmp.path() / "pod1").string() +
                "\": a plain directory holds no processes to kill, but its cgroup.procs lists "
                "999999 999998");
  std::ofstream(tmp.path() / "pod1/ctr/cgroup.procs") << "";
  ASSERT_TRUE(tree.Teardown());
}

struct ProcsCase {
  std::string name;
  std::string text;
  bool ok;
  std::vector<pid_t> pids;
};

TEST(CgroupTree, ParseProcs) {
  const std::vector<ProcsCase> cases = {
      {"empty", "", true, {}},
      {"one", "42\n", true, {42}},
      {"several", "1\n22\n333\n", true, {1, 22, 333}},
      {"no trailing newline", "7", true, {7}},
      {"garbage", "12\nabc\n", false, {}},
      {"negative", "-3\n", false, {}},
      {"overflow", "99999999999999999999\n", false, {}},
  };
  for (const ProcsCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto pids = ParseProcs(c.text, "/x/cgroup.procs");
    ASSERT_EQ(pids.has_value(), c.ok);
    if (c.ok) {
      EXPECT_EQ(*pids, c.pids);
    }
  }
  EXPECT_EQ(ParseProcs("12\nabc\n", "/x/cgroup.procs").error().Message(),
            "parse \"/x/cgroup.procs\": not a pid: \"abc\"");
}

}  // namespace
}  // namespace podlimits::cgroups

namespace podlimits::cgroups {
namespace {

TEST(CgroupError, MessageSaysWhichOperationFailedOnWhichPath) {
  EXPECT_EQ((Error{"write", "/sys/fs/cgroup/pids/kubepods/pod1/pids.max", EINVAL, ""}.Message()),
            "write \"/sys/fs/cgroup/pids/kubepods/pod1/pids.max\": Invalid argument");
  EXPECT_EQ((Error{"mkdir", "/sys/fs/cgroup/unified/kubepods", EACCES, ""}.Message()),
            "mkdir \"/sys/fs/cgroup/unified/kubepods\": Permission denied");
  EXPECT_EQ((Error{"rmdir", "/x", EBUSY, "it has child cgroups"}.Message()),
            "rmdir \"/x\": Device or resource busy: it has child cgroups");
  EXPECT_EQ((Error{"parse", "/x/pids.max", 0, "expected a number"}.Message()),
            "parse \"/x/pids.max\": expected a number");
}

}  // namespace
}  // namespace podlimits::cgroups
