#include "kubelet/cm/node_capabilities.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "cri/kernel_limits.h"
#include "temp_dir.h"

namespace podlimits::kubelet {
namespace {

using podlimits::testing::TempDir;

namespace fs = std::filesystem;

constexpr std::string_view kV2Mountinfo =
    "22 1 0:21 / / rw,relatime - ext4 /dev/vda rw\n"
    "30 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";

constexpr std::string_view kHybridMountinfo =
    "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

void MakeExecutable(const TempDir& dir, std::string_view relative, std::string_view script) {
  dir.Write(relative, script);
  ::chmod((dir.path() / relative).c_str(), 0755);
}

TEST(NodeCapabilities, CapSysResourceFromStatus) {
  struct Case {
    const char* name;
    const char* status;
    bool want;
  };
  const Case cases[] = {
      {"every capability", "Name:\tx\nCapEff:\t000001ffffffffff\n", true},
      {"all but CAP_SYS_RESOURCE (this project's machines)",
       "CapPrm:\t000001fffeffffff\nCapEff:\t000001fffeffffff\n", false},
      {"only CAP_SYS_RESOURCE", "CapEff:\t0000000001000000\n", true},
      {"none", "CapEff:\t0000000000000000\n", false},
      {"no CapEff line", "Name:\tx\n", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(cri::HasCapSysResource(c.status), c.want);
  }
}

TEST(NodeCapabilities, UlimitResources) {
  std::vector<std::string_view> names;
  for (const auto& u : UlimitResources()) names.push_back(u.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"core", "memlock", "nice", "nofile", "rtprio",
                                                  "stack"}));
  ASSERT_NE(FindUlimitResource("nofile"), nullptr);
  EXPECT_EQ(FindUlimitResource("nofile")->resource, RLIMIT_NOFILE);
  EXPECT_EQ(FindUlimitResource("nofile")->rlimit_name, "RLIMIT_NOFILE");
  EXPECT_EQ(FindUlimitResource("nproc"), nullptr);
}

TEST(NodeCapabilities, ProbeAV2NodeFromAFixture) {
  TempDir root{"podlimits_node_capabilities"};
  root.Write("proc/self/mountinfo", kV2Mountinfo);
  root.Write("proc/self/status", "CapEff:\t000001ffffffffff\n");
  root.Write("proc/sys/fs/nr_open", "524288\n");
  root.Write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  MakeExecutable(root, "bin/crun", "#!/bin/sh\necho 'crun version 1.27.1'\necho 'commit: x'\n");
  ProbeOptions options{root.path() / "proc", root.path(), (root.path() / "bin").string(), true};
  NodeCapabilities caps = ProbeNodeCapabilities(DefaultNodeConfig(), options);
  EXPECT_EQ(caps.cgroup_error, "");
  EXPECT_EQ(caps.cgroup_mode, cgroups::CgroupMode::kV2);
  EXPECT_TRUE(caps.CgroupV2());
  EXPECT_TRUE(caps.nsdelegate);
  EXPECT_TRUE(caps.pids_controller);
  EXPECT_TRUE(caps.cap_sys_resource);
  EXPECT_EQ(caps.nr_open, 524288);
  EXPECT_EQ(caps.runtime.name, "crun");
  EXPECT_EQ(caps.runtime.path, (root.path() / "bin/crun").string());
  EXPECT_EQ(caps.runtime.version, "1.27.1");
  EXPECT_TRUE(caps.runtime.applies_rlimits);
  EXPECT_TRUE(caps.runtime.supports_writable_cgroups);
  // getrlimit of this process, for each of the six names and nproc (a default's ceiling).
  EXPECT_EQ(caps.hard_limits.size(), 7u);
  struct rlimit rl {};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  EXPECT_EQ(caps.hard_limits.at("nofile"), rl.rlim_max);
}

TEST(NodeCapabilities, ProbeAHybridNodeWithoutRuntime) {
  TempDir root{"podlimits_node_capabilities"};
  root.Write("proc/self/mountinfo", kHybridMountinfo);
  root.Write("proc/self/status", "CapEff:\t000001fffeffffff\n");
  root.Write("sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
  ProbeOptions options{root.path() / "proc", root.path(), (root.path() / "bin").string(), false};
  NodeCapabilities caps = ProbeNodeCapabilities(DefaultNodeConfig(), options);
  EXPECT_EQ(caps.cgroup_mode, cgroups::CgroupMode::kHybrid);
  EXPECT_FALSE(caps.nsdelegate);
  EXPECT_TRUE(caps.pids_controller);  // the v1 pids hierarchy
  EXPECT_FALSE(caps.cap_sys_resource);
  EXPECT_EQ(caps.nr_open, std::nullopt);
  EXPECT_FALSE(caps.runtime.Found());
  EXPECT_EQ(caps.runtime.error, "no OCI runtime found: looked for \"crun\", \"runc\" in PATH");
}

TEST(NodeCapabilities, ProbeWithoutAMountTable) {
  TempDir root{"podlimits_node_capabilities"};
  ProbeOptions options{root.path() / "proc", root.path(), "", false};
  NodeCapabilities caps = ProbeNodeCapabilities(DefaultNodeConfig(), options);
  EXPECT_EQ(caps.cgroup_mode, std::nullopt);
  EXPECT_NE(caps.cgroup_error, "");
  EXPECT_FALSE(caps.pids_controller);
}

TEST(NodeRuntimeLookup, Find) {
  TempDir dir{"podlimits_node_capabilities"};
  MakeExecutable(dir, "a/crun", "#!/bin/sh\necho 'crun version 1.8.1'\n");
  MakeExecutable(dir, "b/runc", "#!/bin/sh\necho 'runc version 1.1.5+ds1'\necho 'spec: 1.0.2'\n");
  dir.Write("c/crun", "not executable");
  const std::string a = (dir.path() / "a").string(), b = (dir.path() / "b").string(),
                    c = (dir.path() / "c").string();
  struct Case {
    const char* name;
    RuntimeSettings settings;
    std::string path_env;
    std::string want_name, want_path, error;
  };
  const Case cases[] = {
      {"crun first", {}, a + ":" + b, "crun", a + "/crun", ""},
      {"falls back to runc", {}, c + ":" + b, "runc", b + "/runc", ""},
      {"named runtime only", {OciRuntime::kRunc, ""}, a + ":" + b, "runc", b + "/runc", ""},
      {"named runtime missing",
       {OciRuntime::kCrun, ""},
       b,
       "",
       "",
       "no OCI runtime found: looked for \"crun\" in PATH"},
      {"relative PATH entries are skipped",
       {},
       "a:b",
       "",
       "",
       "no OCI runtime found: looked for \"crun\", \"runc\" in PATH"},
      {"explicit path", {OciRuntime::kRunc, b + "/runc"}, "", "runc", b + "/runc", ""},
      {"explicit path not executable",
       {OciRuntime::kCrun, c + "/crun"},
       a,
       "",
       "",
       "runtime.path \"" + c + "/crun\": not an executable file"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto r = FindRuntime(tc.settings, tc.path_env);
    if (!tc.error.empty()) {
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().Message(), tc.error);
      continue;
    }
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->name, tc.want_name);
    EXPECT_EQ(r->path, tc.want_path);
  }
  EXPECT_EQ(RuntimeVersion(b + "/runc"), "1.1.5+ds1");
  EXPECT_EQ(RuntimeVersion(c + "/crun"), "");  // cannot run
}

// crun creates its --root even for --version (/run/crun by default): the probe gives it a
// temporary directory and removes it, so node-info leaves nothing behind.
TEST(NodeRuntimeLookup, VersionProbeLeavesNoRuntimeRootBehind) {
  TempDir dir{"podlimits_node_capabilities"};
  const std::string args = (dir.path() / "args").string();
  // Creates its --root as crun does, and says where it was.
  MakeExecutable(
      dir, "bin/crun",
      "#!/bin/sh\nmkdir -p \"$2\" && echo \"$@\" >" + args + "\necho 'crun version 1.8.1'\n");
  EXPECT_EQ(RuntimeVersion((dir.path() / "bin/crun").string()), "1.8.1");
  std::ifstream in(args);
  std::string root, version;
  in >> root >> root >> version;
  EXPECT_EQ(version, "--version");
  EXPECT_TRUE(root.starts_with((fs::temp_directory_path() / "podlimits-version-").string()))
      << root;
  EXPECT_FALSE(fs::exists(root)) << root;
  EXPECT_FALSE(fs::exists(fs::path(root).parent_path())) << root;
}

TEST(NodeRuntimeLookup, RuntimeUnusable) {
  RuntimeInfo crun;
  crun.name = "crun";
  crun.path = "/usr/bin/crun";
  RuntimeInfo runc;
  runc.name = "runc";
  runc.path = "/usr/bin/runc";
  const std::string hybrid_reason =
      "runc on a cgroup hybrid node needs the devices hierarchy for its device rules, and "
      "podlimits manages only the pids hierarchy there: use crun (runtime.name in the "
      "NodeConfiguration)";
  struct Case {
    const char* name;
    RuntimeInfo runtime;
    std::optional<cgroups::CgroupMode> mode;
    std::string want;
  };
  const Case cases[] = {
      {"crun on hybrid", crun, cgroups::CgroupMode::kHybrid, ""},
      {"crun on v1", crun, cgroups::CgroupMode::kV1, ""},
      {"runc on v2", runc, cgroups::CgroupMode::kV2, ""},
      {"runc on hybrid", runc, cgroups::CgroupMode::kHybrid, hybrid_reason},
      {"runc on v1", runc, cgroups::CgroupMode::kV1,
       "runc on a cgroup v1 node needs the devices hierarchy for its device rules, and podlimits "
       "manages only the pids hierarchy there: use crun (runtime.name in the NodeConfiguration)"},
      {"runc, mode unknown", runc, std::nullopt, ""},
      {"no runtime", RuntimeInfo{}, cgroups::CgroupMode::kV1, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RuntimeUnusable(c.runtime, c.mode), c.want);
  }
}

TEST(NodeRuntimeLookup, ParseVersion) {
  EXPECT_EQ(ParseRuntimeVersion("crun version 1.8.1\ncommit: abc\n"), "1.8.1");
  EXPECT_EQ(ParseRuntimeVersion("runc version 1.1.5+ds1\n"), "1.1.5+ds1");
  EXPECT_EQ(ParseRuntimeVersion("something else\n"), "");
}

}  // namespace
}  // namespace podlimits::kubelet
