// The kubelet pod cgroup layout and PodCgroup::Apply/Teardown on plain temporary directories.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cgroups/pod_cgroups.h"
#include "temp_dir.h"

namespace podlimits::cgroups {
namespace {

using podlimits::testing::ReadText;
using podlimits::testing::TempDir;
using podlimits::testing::WriteText;

namespace fs = std::filesystem;

std::vector<std::string> Listing(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    out.push_back(e.path().lexically_relative(root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A cgroup v1 pids hierarchy: the files the kernel gives a new cgroup there.
ManagedHierarchy V1Pids(const fs::path& root) {
  return {CgroupVersion::kV1,
          {"pids"},
          CgroupTree::OnPlainDirectory(root, {{"cgroup.procs", ""},
                                              {"pids.current", "0\n"},
                                              {"pids.events", "max 0\n"},
                                              {"pids.max", "max\n"}})};
}

// A cgroup v2 tree. The root's own files are the test's to write.
ManagedHierarchy V2(const fs::path& root, const std::string& root_controllers,
                    bool with_depth_file = true) {
  std::map<std::string, std::string> files = {{"cgroup.procs", ""},
                                              {"cgroup.controllers", "pids\n"},
                                              {"cgroup.subtree_control", ""},
                                              {"cgroup.max.descendants", "max\n"},
                                              {"pids.max", "max\n"}};
  if (with_depth_file) files["cgroup.max.depth"] = "max\n";
  WriteText(root / "cgroup.controllers", root_controllers);
  WriteText(root / "cgroup.subtree_control", "");
  WriteText(root / "cgroup.procs", "");
  return {CgroupVersion::kV2, {}, CgroupTree::OnPlainDirectory(root, files)};
}

// The value read back; fails the test when nothing was read.
MaxValue Value(const std::optional<ReadBack>& read) {
  EXPECT_TRUE(read.has_value());
  return read ? read->value : MaxValue(-1);
}

std::vector<ManagedHierarchy> One(ManagedHierarchy h) {
  std::vector<ManagedHierarchy> out;
  out.push_back(std::move(h));
  return out;
}

struct PathCase {
  std::string name;
  fs::path cgroup_root;
  QosClass qos;
  std::string expected;
};

TEST(CgroupPodCgroup, KubeletCgroupfsNames) {
  const std::vector<PathCase> cases = {
      {"guaranteed", "/", QosClass::kGuaranteed, "/kubepods/pod1234-abcd"},
      {"burstable", "/", QosClass::kBurstable, "/kubepods/burstable/pod1234-abcd"},
      {"besteffort", "/", QosClass::kBestEffort, "/kubepods/besteffort/pod1234-abcd"},
      {"cgroupRoot", "/custom/root", QosClass::kBurstable,
       "/custom/root/kubepods/burstable/pod1234-abcd"},
      {"cgroupRoot without slash", "custom/", QosClass::kGuaranteed,
       "/custom/kubepods/pod1234-abcd"},
  };
  for (const PathCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(PodCgroupPath(c.cgroup_root, c.qos, "1234-abcd"), c.expected);
  }
  EXPECT_EQ(KubepodsCgroup("/"), "/kubepods");
  EXPECT_EQ(QosCgroup("/", QosClass::kGuaranteed), "/kubepods");
  EXPECT_EQ(QosCgroup("/", QosClass::kBestEffort), "/kubepods/besteffort");
}

struct V1Case {
  std::string name;
  QosClass qos;
  std::optional<std::int64_t> kubepods_max;
  std::optional<std::int64_t> pod_max;
  std::string pod_dir;
  std::string pod_file;       // pids.max as the tree left it
  std::string kubepods_file;  // kubepods/pids.max
};

TEST(CgroupPodCgroup, ApplyOnV1Pids) {
  const std::vector<V1Case> cases = {
      {"burstable with both limits", QosClass::kBurstable, 90000, 1024,
       "kubepods/burstable/poduid-1", "1024", "90000"},
      {"guaranteed under kubepods", QosClass::kGuaranteed, 90000, 5, "kubepods/poduid-1", "5",
       "90000"},
      {"besteffort, no pod limit", QosClass::kBestEffort, 90000, std::nullopt,
       "kubepods/besteffort/poduid-1", "max\n", "90000"},
      {"kubepods left alone", QosClass::kBurstable, std::nullopt, 0, "kubepods/burstable/poduid-1",
       "0", "max\n"},
  };
  for (const V1Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir tmp{"podlimits-cgpod"};
    PodCgroup pod(One(V1Pids(tmp.path())));
    PodCgroupPlan plan{"uid-1", c.qos, "/", c.kubepods_max, c.pod_max, std::nullopt};
    auto applied = pod.Apply(plan);
    ASSERT_TRUE(applied) << applied.error().Message();
    EXPECT_EQ(applied->cgroup, "/" + c.pod_dir);
    ASSERT_EQ(applied->hierarchies.size(), 1u);
    const HierarchyReadBack& rb = applied->hierarchies[0];
    EXPECT_EQ(rb.version, CgroupVersion::kV1);
    EXPECT_EQ(rb.pod_cgroup_dir, tmp.path() / c.pod_dir);
    EXPECT_EQ(ReadText(tmp.path() / c.pod_dir / "pids.max"), c.pod_file);
    EXPECT_EQ(ReadText(tmp.path() / "kubepods/pids.max"), c.kubepods_file);
    ASSERT_TRUE(rb.pod_pids_max);
    EXPECT_EQ(rb.pod_pids_max->value, c.pod_max);
    EXPECT_EQ(rb.pod_pids_max->file, tmp.path() / c.pod_dir / "pids.max");
    if (c.kubepods_max) {
      ASSERT_TRUE(rb.kubepods_pids_max);
      EXPECT_EQ(rb.kubepods_pids_max->value, c.kubepods_max);
      EXPECT_EQ(rb.kubepods_pids_max->file, tmp.path() / "kubepods/pids.max");
    } else {
      EXPECT_FALSE(rb.kubepods_pids_max);
    }
    EXPECT_FALSE(rb.max_descendants);
    EXPECT_FALSE(rb.max_depth);
    // QoS cgroups stay unbounded.
    if (c.qos != QosClass::kGuaranteed) {
      EXPECT_EQ(ReadText(tmp.path() / fs::path(c.pod_dir).parent_path() / "pids.max"), "max\n");
    }
    ASSERT_TRUE(pod.Teardown());
    EXPECT_TRUE(fs::is_empty(tmp.path())) << ::testing::PrintToString(Listing(tmp.path()));
  }
}

// cgroupRoot is the operator's: kept. kubepods is shared by every pod and belongs to no run: the
// run that ends last removes it once unused, whoever created it.
TEST(CgroupPodCgroup, CgroupRootIsKeptAndUnusedSharedParentsGo) {
  TempDir tmp{"podlimits-cgpod"};
  fs::create_directories(tmp.path() / "custom/kubepods");
  WriteText(tmp.path() / "custom/kubepods/pids.max", "max\n");
  PodCgroup pod(One(V1Pids(tmp.path())));
  auto applied = pod.Apply({"uid-2", QosClass::kBurstable, "/custom", 500, 128, std::nullopt});
  ASSERT_TRUE(applied) << applied.error().Message();
  EXPECT_EQ(applied->cgroup, "/custom/kubepods/burstable/poduid-2");
  EXPECT_EQ(ReadText(tmp.path() / "custom/kubepods/pids.max"), "500");
  EXPECT_TRUE(applied->created_root_dirs.empty());  // "custom" existed
  EXPECT_EQ(
      pod.hierarchies()[0].tree.created(),
      (std::vector<fs::path>{"custom/kubepods/burstable", "custom/kubepods/burstable/poduid-2"}));
  ASSERT_TRUE(pod.Teardown());
  EXPECT_EQ(Listing(tmp.path()), (std::vector<std::string>{"custom"}));
  EXPECT_TRUE(pod.removed_root_dirs().empty());
}

// A cgroupRoot directory podlimits had to create is podlimits' to remove once unused: by this
// run, or by a later one that is told so (the state directory's ledger).
TEST(CgroupPodCgroup, CgroupRootDirectoriesPodlimitsCreatedGoWhenUnused) {
  TempDir tmp{"podlimits-cgpod"};
  PodCgroup first(One(V1Pids(tmp.path())));
  auto applied = first.Apply({"a", QosClass::kBestEffort, "/made/here", 100, 10, std::nullopt});
  ASSERT_TRUE(applied) << applied.error().Message();
  EXPECT_EQ(applied->created_root_dirs,
            (std::vector<fs::path>{tmp.path() / "made", tmp.path() / "made/here"}));
  PodCgroup second(One(V1Pids(tmp.path())));
  ASSERT_TRUE(second.Apply({"b", QosClass::kBestEffort, "/made/here", 100, 10, std::nullopt}));
  ASSERT_TRUE(first.Teardown());  // "b" still uses the parents
  EXPECT_TRUE(first.removed_root_dirs().empty());
  EXPECT_TRUE(fs::exists(tmp.path() / "made/here/kubepods/besteffort/podb"));
  EXPECT_FALSE(fs::exists(tmp.path() / "made/here/kubepods/besteffort/poda"));

  // Without being told, the last run keeps cgroupRoot; told, it removes it.
  const std::vector<fs::path> ledger = applied->created_root_dirs;
  ASSERT_TRUE(second.Teardown(ledger));
  EXPECT_TRUE(fs::is_empty(tmp.path())) << ::testing::PrintToString(Listing(tmp.path()));
  EXPECT_EQ(second.removed_root_dirs(),
            (std::vector<fs::path>{tmp.path() / "made/here", tmp.path() / "made"}));
}

TEST(CgroupPodCgroup, AnExistingPodCgroupIsAnErrorAndNothingIsLeft) {
  TempDir tmp{"podlimits-cgpod"};
  fs::create_directories(tmp.path() / "kubepods/besteffort/poduid-3");
  PodCgroup pod(One(V1Pids(tmp.path())));
  auto applied = pod.Apply({"uid-3", QosClass::kBestEffort, "/", std::nullopt, 5, std::nullopt});
  ASSERT_FALSE(applied);
  EXPECT_EQ(
      applied.error().Message(),
      "mkdir \"" + (tmp.path() / "kubepods/besteffort/poduid-3").string() + "\": File exists");
  EXPECT_EQ(Listing(tmp.path()), (std::vector<std::string>{"kubepods", "kubepods/besteffort",
                                                           "kubepods/besteffort/poduid-3"}));
}

struct PlanCase {
  std::string name;
  PodCgroupPlan plan;
  std::string detail;
};

TEST(CgroupPodCgroup, InvalidPlansCreateNothing) {
  const std::vector<PlanCase> cases = {
      {"empty uid",
       {"", QosClass::kBurstable, "/", {}, {}, {}},
       "invalid pod UID \"\": a kubelet cgroup name is not empty and has no \"/\" or \"_\""},
      {"slash in uid",
       {"../../memory/x", QosClass::kBurstable, "/", {}, {}, {}},
       "invalid pod UID \"../../memory/x\": a kubelet cgroup name is not empty and has no \"/\" "
       "or \"_\""},
      {"underscore in uid",
       {"a_b", QosClass::kBurstable, "/", {}, {}, {}},
       "invalid pod UID \"a_b\": a kubelet cgroup name is not empty and has no \"/\" or \"_\""},
      {"dot dot in cgroupRoot",
       {"u", QosClass::kBurstable, "/../memory", {}, {}, {}},
       "cgroupRoot \"/../memory\" has a \".\" or \"..\""},
      {"negative pod limit",
       {"u", QosClass::kBurstable, "/", {}, -1, {}},
       "pod pids.max must not be negative, got -1"},
      {"negative kubepods limit",
       {"u", QosClass::kBurstable, "/", -5, {}, {}},
       "kubepods pids.max must not be negative, got -5"},
      {"writable on v1",
       {"u", QosClass::kBurstable, "/", {}, 5, DescendantBounds{}},
       "a writable cgroup mount needs cgroup v2, and no managed hierarchy is v2"},
  };
  for (const PlanCase& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir tmp{"podlimits-cgpod"};
    PodCgroup pod(One(V1Pids(tmp.path())));
    auto applied = pod.Apply(c.plan);
    ASSERT_FALSE(applied);
    EXPECT_EQ(applied.error().op, "plan pod cgroup");
    EXPECT_EQ(applied.error().detail, c.detail);
    EXPECT_TRUE(fs::is_empty(tmp.path()));
  }
}

TEST(CgroupPodCgroup, ApplyOnV2WithAWritableContainer) {
  TempDir tmp{"podlimits-cgpod"};
  PodCgroup pod(One(V2(tmp.path(), "cpu memory pids\n")));
  auto applied = pod.Apply({"uid-4", QosClass::kBurstable, "/", 30000, 2048, DescendantBounds{}});
  ASSERT_TRUE(applied) << applied.error().Message();
  const HierarchyReadBack& rb = applied->hierarchies.at(0);
  EXPECT_EQ(rb.version, CgroupVersion::kV2);
  EXPECT_EQ(Value(rb.kubepods_pids_max), MaxValue(30000));
  EXPECT_EQ(Value(rb.pod_pids_max), MaxValue(2048));
  EXPECT_EQ(Value(rb.max_descendants), MaxValue(250));
  EXPECT_EQ(Value(rb.max_depth), MaxValue(50));
  EXPECT_EQ(rb.max_depth->file, tmp.path() / "kubepods/burstable/poduid-4/cgroup.max.depth");
  // pids enabled from the root down to the pod's parent; only the root existed before.
  EXPECT_EQ(ReadText(tmp.path() / "cgroup.subtree_control"), "+pids");
  EXPECT_EQ(ReadText(tmp.path() / "kubepods/cgroup.subtree_control"), "+pids");
  EXPECT_EQ(ReadText(tmp.path() / "kubepods/burstable/cgroup.subtree_control"), "+pids");
  EXPECT_EQ(ReadText(tmp.path() / "kubepods/burstable/poduid-4/cgroup.subtree_control"), "");
  EXPECT_EQ(rb.pids_enabled_in, std::vector<fs::path>{tmp.path()});
  EXPECT_EQ(ReadText(tmp.path() / "kubepods/burstable/poduid-4/cgroup.max.descendants"), "250");
  EXPECT_EQ(ReadText(tmp.path() / "kubepods/burstable/poduid-4/cgroup.max.depth"), "50");
  ASSERT_TRUE(pod.Teardown());
  EXPECT_EQ(Listing(tmp.path()), (std::vector<std::string>{"cgroup.controllers", "cgroup.procs",
                                                           "cgroup.subtree_control"}));
}

TEST(CgroupPodCgroup, V2CustomBoundsAndPidsAlreadyEnabled) {
  TempDir tmp{"podlimits-cgpod"};
  PodCgroup pod(One(V2(tmp.path(), "pids\n")));
  WriteText(tmp.path() / "cgroup.subtree_control", "cpu pids\n");
  auto applied = pod.Apply(
      {"uid-5", QosClass::kGuaranteed, "/", std::nullopt, std::nullopt, DescendantBounds{10, 2}});
  ASSERT_TRUE(applied) << applied.error().Message();
  const HierarchyReadBack& rb = applied->hierarchies.at(0);
  EXPECT_EQ(ReadText(tmp.path() / "cgroup.subtree_control"), "cpu pids\n");  // untouched
  EXPECT_TRUE(rb.pids_enabled_in.empty());
  EXPECT_FALSE(rb.kubepods_pids_max);
  ASSERT_TRUE(rb.pod_pids_max);
  EXPECT_EQ(rb.pod_pids_max->value, MaxValue());  // "max"
  EXPECT_EQ(Value(rb.max_descendants), MaxValue(10));
  EXPECT_EQ(Value(rb.max_depth), MaxValue(2));
  ASSERT_TRUE(pod.Teardown());
}

TEST(CgroupPodCgroup, V2WithoutThePidsController) {
  {
    TempDir tmp{"podlimits-cgpod"};
    PodCgroup pod(One(V2(tmp.path(), "hugetlb\n")));
    auto applied = pod.Apply({"uid-6", QosClass::kBurstable, "/", std::nullopt, 1024, {}});
    ASSERT_FALSE(applied);
    EXPECT_EQ(applied.error().Message(),
              "enable pids controller \"" + tmp.path().string() +
                  "\": pids is not in cgroup.controllers (\"hugetlb\"), so pids.max cannot be set");
    EXPECT_EQ(Listing(tmp.path()), (std::vector<std::string>{"cgroup.controllers", "cgroup.procs",
                                                             "cgroup.subtree_control"}));
  }
  {
    // Without a pids limit, the writable bounds alone need no controller.
    TempDir tmp{"podlimits-cgpod"};
    PodCgroup pod(One(V2(tmp.path(), "hugetlb\n")));
    auto applied = pod.Apply(
        {"uid-6", QosClass::kBestEffort, "/", std::nullopt, std::nullopt, DescendantBounds{}});
    ASSERT_TRUE(applied) << applied.error().Message();
    EXPECT_FALSE(applied->hierarchies.at(0).pod_pids_max);
    EXPECT_EQ(Value(applied->hierarchies.at(0).max_depth), MaxValue(50));
    EXPECT_EQ(ReadText(tmp.path() / "cgroup.subtree_control"), "");
    ASSERT_TRUE(pod.Teardown());
    EXPECT_EQ(Listing(tmp.path()).size(), 3u);
  }
}

TEST(CgroupPodCgroup, APartialFailureRollsBack) {
  TempDir tmp{"podlimits-cgpod"};
  // The "kernel" offers no cgroup.max.depth: the last write fails after the pod cgroup exists.
  PodCgroup pod(One(V2(tmp.path(), "pids\n", /*with_depth_file=*/false)));
  auto applied = pod.Apply({"uid-7", QosClass::kBurstable, "/", 100, 10, DescendantBounds{}});
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().Message(),
            "open \"" + (tmp.path() / "kubepods/burstable/poduid-7/cgroup.max.depth").string() +
                "\": No such file or directory");
  EXPECT_EQ(Listing(tmp.path()), (std::vector<std::string>{"cgroup.controllers", "cgroup.procs",
                                                           "cgroup.subtree_control"}));
  EXPECT_TRUE(pod.hierarchies()[0].tree.created().empty());
  EXPECT_TRUE(pod.Teardown());  // nothing left to do
}

TEST(CgroupPodCgroup, TeardownKeepsQosCgroupsOtherPodsUse) {
  TempDir tmp{"podlimits-cgpod"};
  PodCgroup first(One(V1Pids(tmp.path())));
  ASSERT_TRUE(first.Apply({"a", QosClass::kBurstable, "/", 1000, 10, std::nullopt}));
  PodCgroup second(One(V1Pids(tmp.path())));
  ASSERT_TRUE(second.Apply({"b", QosClass::kBurstable, "/", 1000, 10, std::nullopt}));
  EXPECT_EQ(second.hierarchies()[0].tree.created(),
            std::vector<fs::path>{"kubepods/burstable/podb"});

  ASSERT_TRUE(first.Teardown());
  EXPECT_TRUE(fs::exists(tmp.path() / "kubepods/burstable/podb"));
  EXPECT_FALSE(fs::exists(tmp.path() / "kubepods/burstable/poda"));
  // The last pod out removes the shared parents, though another run created them.
  ASSERT_TRUE(second.Teardown());
  EXPECT_TRUE(fs::is_empty(tmp.path())) << ::testing::PrintToString(Listing(tmp.path()));
}

// A pod cgroup a dead run left behind: adopted, its processes killed, removed with its parents.
TEST(CgroupPodCgroup, AdoptedPodCgroupIsRemovedWithItsParents) {
  TempDir tmp{"podlimits-cgpod"};
  {
    PodCgroup dead(One(V1Pids(tmp.path())));
    ASSERT_TRUE(dead.Apply({"gone", QosClass::kGuaranteed, "/", 100, 10, std::nullopt}));
    fs::create_directories(tmp.path() / "kubepods/podgone/container");
    // `dead` is dropped without Teardown, as a SIGKILLed run would.
  }
  ASSERT_TRUE(fs::exists(tmp.path() / "kubepods/podgone"));
  PodCgroup later(One(V1Pids(tmp.path())));
  later.Adopt({"gone", QosClass::kGuaranteed, "/", std::nullopt, std::nullopt, std::nullopt});
  ASSERT_TRUE(later.Kill("/kubepods/podgone"));
  ASSERT_TRUE(later.Teardown());
  EXPECT_TRUE(fs::is_empty(tmp.path())) << ::testing::PrintToString(Listing(tmp.path()));
  // Killing where nothing exists is nothing to do.
  EXPECT_TRUE(later.Kill("/kubepods/podgone"));
}

// One rmdir of a shared parent: gone when unused, left alone when a child cgroup or a process
// is in it, nothing to do when absent.
TEST(CgroupTreeRemoveIfUnused, Table) {
  struct Case {
    std::string name;
    std::function<void(const fs::path&)> setup;
    CgroupTree::Removal want;
    bool exists_after;
  };
  auto cgroup = [](const fs::path& dir) {
    fs::create_directories(dir);
    for (const char* f : {"cgroup.procs", "pids.current", "pids.events", "pids.max"}) {
      WriteText(dir / f, "");
    }
  };
  const std::vector<Case> cases = {
      {"unused", [&](const fs::path& r) { cgroup(r / "kubepods"); }, CgroupTree::Removal::kRemoved,
       false},
      {"absent", [](const fs::path&) {}, CgroupTree::Removal::kAbsent, false},
      {"child cgroup",
       [&](const fs::path& r) {
         cgroup(r / "kubepods");
         cgroup(r / "kubepods/besteffort");
       },
       CgroupTree::Removal::kInUse, true},
      {"process in it",
       [&](const fs::path& r) {
         cgroup(r / "kubepods");
         WriteText(r / "kubepods/cgroup.procs", "4242\n");
       },
       CgroupTree::Removal::kInUse, true},
      {"a file the kernel does not make",
       [&](const fs::path& r) {
         cgroup(r / "kubepods");
         WriteText(r / "kubepods/notes", "mine");
       },
       CgroupTree::Removal::kInUse, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir tmp{"podlimits-cgpod"};
    c.setup(tmp.path());
    ManagedHierarchy h = V1Pids(tmp.path());
    auto r = h.tree.RemoveIfUnused("/kubepods");
    ASSERT_TRUE(r) << r.error().Message();
    EXPECT_EQ(*r, c.want);
    EXPECT_EQ(fs::exists(tmp.path() / "kubepods"), c.exists_after);
  }
}

TEST(CgroupPodCgroup, ManagedHierarchiesFollowTheLayout) {
  CgroupLayout hybrid;
  hybrid.mode = CgroupMode::kHybrid;
  hybrid.v1 = {{{"memory"}, "", "/sys/fs/cgroup/memory", "/"},
               {{"pids"}, "", "/sys/fs/cgroup/pids", "/"},
               {{"cpu", "cpuacct"}, "", "/sys/fs/cgroup/cpu,cpuacct", "/"}};
  hybrid.unified = UnifiedMount{"/sys/fs/cgroup/unified", "/", {"rw"}, false};
  hybrid.unified_controllers = {"hugetlb"};
  auto managed = ManagedHierarchies(hybrid);
  ASSERT_TRUE(managed) << managed.error().Message();
  ASSERT_EQ(managed->size(), 1u);
  EXPECT_EQ((*managed)[0].version, CgroupVersion::kV1);
  EXPECT_EQ((*managed)[0].tree.root(), "/sys/fs/cgroup/pids");
  EXPECT_TRUE((*managed)[0].tree.on_cgroupfs());

  // Nothing but pids on v1/hybrid: not memory, not even a controller cgroup2 offers there.
  for (const std::vector<std::string>& refused :
       {std::vector<std::string>{"pids", "memory"}, std::vector<std::string>{"pids", "hugetlb"},
        std::vector<std::string>{"rdma"}}) {
    auto none = ManagedHierarchies(hybrid, refused);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().detail,
              "podlimits manages only the pids hierarchy on a cgroup v1 or hybrid node, not " +
                  refused.back());
  }
  CgroupLayout comounted = hybrid;
  comounted.v1 = {{{"pids", "memory"}, "", "/sys/fs/cgroup/pids,memory", "/"}};
  auto shared = ManagedHierarchies(comounted);
  ASSERT_FALSE(shared);
  EXPECT_EQ(shared.error().Message(),
            "detect cgroups \"/sys/fs/cgroup/pids,memory\": the pids controller shares this "
            "hierarchy with other controllers, where podlimits must not create cgroups");
  CgroupLayout no_pids = hybrid;
  no_pids.v1 = {{{"memory"}, "", "/sys/fs/cgroup/memory", "/"}};
  auto missing = ManagedHierarchies(no_pids);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().detail,
            "the pids controller is neither mounted as a cgroup v1 hierarchy nor available in "
            "cgroup2");

  CgroupLayout v2;
  v2.mode = CgroupMode::kV2;
  v2.unified = UnifiedMount{"/sys/fs/cgroup", "/", {"rw", "nsdelegate"}, true};
  managed = ManagedHierarchies(v2);
  ASSERT_TRUE(managed);
  ASSERT_EQ(managed->size(), 1u);
  EXPECT_EQ((*managed)[0].version, CgroupVersion::kV2);
  EXPECT_EQ((*managed)[0].tree.root(), "/sys/fs/cgroup");
}

}  // namespace
}  // namespace podlimits::cgroups
