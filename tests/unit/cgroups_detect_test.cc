// Cgroup layout detection from mountinfo fixtures (proc(5) format).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cgroups/detect.h"
#include "temp_dir.h"

namespace podlimits::cgroups {
namespace {

using podlimits::testing::TempDir;
using podlimits::testing::WriteText;

namespace fs = std::filesystem;

// This project's machines: v1 controllers under /sys/fs/cgroup plus a controller-less cgroup2 at
// /sys/fs/cgroup/unified, without nsdelegate (environment.md §0).
constexpr const char* kHybrid =
    "21 26 0:20 / /proc rw,relatime - proc proc rw\n"
    "22 26 0:21 / /sys rw,relatime - sysfs sysfs rw\n"
    "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
    "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "33 30 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "35 30 0:32 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "36 30 0:33 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
    "37 30 0:34 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
    "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

// A systemd v1 host (Debian 10 style): combined cpu,cpuacct and net_cls,net_prio hierarchies,
// shared: optional fields, no cgroup2.
constexpr const char* kV1 =
    "25 30 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
    "26 25 0:24 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:10 - cgroup "
    "cgroup rw,xattr,name=systemd\n"
    "29 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:12 - cgroup "
    "cgroup rw,cpu,cpuacct\n"
    "30 25 0:28 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid,nodev,noexec,relatime shared:13 - "
    "cgroup cgroup rw,net_cls,net_prio\n"
    "31 25 0:29 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup "
    "rw,pids\n"
    "32 25 0:30 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:15 - cgroup "
    "cgroup rw,memory\n";

// systemd on a pure v2 host.
constexpr const char* kV2Nsdelegate =
    "24 31 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "28 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";

// Inside a container with its own cgroup namespace: cgroup2 without nsdelegate.
constexpr const char* kV2Plain =
    "612 611 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup rw\n";

struct LayoutCase {
  std::string name;
  std::string mountinfo;
  CgroupMode mode;
  std::string unified_mount;  // "" when none
  bool nsdelegate;
  std::string pids_mount;  // "" when pids is not a v1 hierarchy
  std::size_t v1_count;
};

TEST(CgroupDetect, LayoutFromMountinfo) {
  const std::vector<LayoutCase> cases = {
      {"hybrid, this machine", kHybrid, CgroupMode::kHybrid, "/sys/fs/cgroup/unified", false,
       "/sys/fs/cgroup/pids", 9},
      {"v1 only", kV1, CgroupMode::kV1, "", false, "/sys/fs/cgroup/pids", 5},
      {"v2 with nsdelegate", kV2Nsdelegate, CgroupMode::kV2, "/sys/fs/cgroup", true, "", 0},
      {"v2 without nsdelegate", kV2Plain, CgroupMode::kV2, "/sys/fs/cgroup", false, "", 0},
      {"cgroup2 elsewhere, no v1",
       "40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate\n",
       CgroupMode::kHybrid, "/sys/fs/cgroup/unified", true, "", 0},
  };
  for (const LayoutCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto entries = ParseMountinfo(c.mountinfo);
    ASSERT_TRUE(entries) << entries.error().Message();
    auto layout = LayoutFromMountinfo(*entries, "fixture");
    ASSERT_TRUE(layout) << layout.error().Message();
    EXPECT_EQ(layout->mode, c.mode);
    EXPECT_EQ(layout->v1.size(), c.v1_count);
    if (c.unified_mount.empty()) {
      EXPECT_FALSE(layout->unified);
    } else {
      ASSERT_TRUE(layout->unified);
      EXPECT_EQ(layout->unified->mount_point, c.unified_mount);
      EXPECT_EQ(layout->unified->nsdelegate, c.nsdelegate);
    }
    const V1Hierarchy* pids = layout->V1For("pids");
    if (c.pids_mount.empty()) {
      EXPECT_EQ(pids, nullptr);
    } else {
      ASSERT_NE(pids, nullptr);
      EXPECT_EQ(pids->mount_point, c.pids_mount);
      EXPECT_EQ(pids->controllers, std::vector<std::string>{"pids"});
    }
  }
}

TEST(CgroupDetect, V1HierarchiesAndNames) {
  auto layout = LayoutFromMountinfo(*ParseMountinfo(kV1), "fixture");
  ASSERT_TRUE(layout);
  const V1Hierarchy* cpu = layout->V1For("cpuacct");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(cpu->controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(layout->V1For("net_prio"), layout->V1For("net_cls"));
  EXPECT_EQ(layout->V1For("systemd"), nullptr);  // a named hierarchy binds no controller
  EXPECT_EQ(layout->V1For("xattr"), nullptr);
  EXPECT_TRUE(std::any_of(layout->v1.begin(), layout->v1.end(),
                          [](const V1Hierarchy& h) { return h.name == "systemd"; }));
  EXPECT_EQ(layout->V1For("hugetlb"), nullptr);
}

TEST(CgroupDetect, SuperOptionsOfTheUnifiedMount) {
  auto layout = LayoutFromMountinfo(*ParseMountinfo(kV2Nsdelegate), "fixture");
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->unified->super_options,
            (std::vector<std::string>{"rw", "nsdelegate", "memory_recursiveprot"}));
}

TEST(CgroupDetect, MountinfoFields) {
  // proc(5)'s example line, plus two optional fields and an escaped space and backslash.
  auto entries = ParseMountinfo(
      "36 35 98:0 /mnt\\0401 /mnt/my\\040dir\\134x rw,noatime master:1 shared:2 - ext3 "
      "/dev/root\\040a rw,errors=continue\n");
  ASSERT_TRUE(entries) << entries.error().Message();
  ASSERT_EQ(entries->size(), 1u);
  const MountinfoEntry& e = entries->front();
  EXPECT_EQ(e.mount_id, 36);
  EXPECT_EQ(e.parent_id, 35);
  EXPECT_EQ(e.major_minor, "98:0");
  EXPECT_EQ(e.root, "/mnt 1");
  EXPECT_EQ(e.mount_point, "/mnt/my dir\\x");
  EXPECT_EQ(e.mount_options, (std::vector<std::string>{"rw", "noatime"}));
  EXPECT_EQ(e.optional_fields, (std::vector<std::string>{"master:1", "shared:2"}));
  EXPECT_EQ(e.fs_type, "ext3");
  EXPECT_EQ(e.source, "/dev/root a");
  EXPECT_EQ(e.super_options, (std::vector<std::string>{"rw", "errors=continue"}));
}

TEST(CgroupDetect, EscapedCgroupMountPoint) {
  auto layout = LayoutFromMountinfo(
      *ParseMountinfo("50 30 0:40 / /run/my\\040cgroups rw - cgroup cgroup rw,pids\n"), "fx");
  ASSERT_TRUE(layout);
  ASSERT_NE(layout->V1For("pids"), nullptr);
  EXPECT_EQ(layout->V1For("pids")->mount_point, "/run/my cgroups");
}

TEST(CgroupDetect, PrefersMountsUnderSysFsCgroup) {
  auto layout = LayoutFromMountinfo(
      *ParseMountinfo("60 1 0:35 / /mnt/pids rw - cgroup cgroup rw,pids\n"
                      "38 30 0:35 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
                      "70 1 0:37 / /mnt/unified rw - cgroup2 cgroup2 rw\n"
                      "40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"),
      "fx");
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->V1For("pids")->mount_point, "/sys/fs/cgroup/pids");
  EXPECT_EQ(layout->unified->mount_point, "/sys/fs/cgroup/unified");
  EXPECT_EQ(layout->v1.size(), 1u);
}

struct BadCase {
  std::string name;
  std::string text;
  std::string message;
};

TEST(CgroupDetect, MalformedMountinfo) {
  const std::vector<BadCase> cases = {
      {"no separator", "1 2 0:1 / /x rw shared:1 ext4 /dev/x rw\n",
       "parse \"/proc/self/mountinfo\": line 1: no \" - \" separator"},
      {"too few fields", "21 26 0:20 / /proc rw,relatime - proc proc rw\n1 2 - ext4 x rw\n",
       "parse \"/proc/self/mountinfo\": line 2: expected at least 6 fields before \" - \", got 2"},
      {"nothing after separator", "1 2 0:1 / /x rw -\n",
       "parse \"/proc/self/mountinfo\": line 1: expected fstype and source after \" - \""},
      {"ids not numbers", "a 2 0:1 / /x rw - ext4 /dev/x rw\n",
       "parse \"/proc/self/mountinfo\": line 1: mount ids are not numbers"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto entries = ParseMountinfo(c.text);
    ASSERT_FALSE(entries);
    EXPECT_EQ(entries.error().Message(), c.message);
  }
}

TEST(CgroupDetect, NoCgroupMountIsAnError) {
  auto layout = LayoutFromMountinfo(
      *ParseMountinfo("21 26 0:20 / /proc rw,relatime - proc proc rw\n"), "/proc/self/mountinfo");
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error().Message(),
            "detect cgroups \"/proc/self/mountinfo\": no cgroup or cgroup2 filesystem is mounted");
}

TEST(CgroupDetect, DetectLayoutReadsUnifiedControllers) {
  TempDir tmp{"podlimits-cgdetect"};
  WriteText(tmp.path() / "mountinfo", kHybrid);
  WriteText(tmp.path() / "sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
  auto layout = DetectLayout(tmp.path() / "mountinfo", tmp.path());
  ASSERT_TRUE(layout) << layout.error().Message();
  EXPECT_EQ(layout->mode, CgroupMode::kHybrid);
  EXPECT_EQ(layout->unified_controllers, std::vector<std::string>{"hugetlb"});
  EXPECT_TRUE(layout->UnifiedHas("hugetlb"));
  EXPECT_FALSE(layout->UnifiedHas("pids"));
  EXPECT_EQ(Name(layout->mode), "hybrid");

  WriteText(tmp.path() / "v2", kV2Nsdelegate);
  WriteText(tmp.path() / "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  layout = DetectLayout(tmp.path() / "v2", tmp.path());
  ASSERT_TRUE(layout) << layout.error().Message();
  EXPECT_EQ(layout->unified_controllers,
            (std::vector<std::string>{"cpuset", "cpu", "io", "memory", "pids"}));
  EXPECT_TRUE(layout->unified->nsdelegate);
}

TEST(CgroupDetect, DetectLayoutReportsUnreadableFiles) {
  TempDir tmp{"podlimits-cgdetect"};
  auto missing = DetectLayout(tmp.path() / "nope", tmp.path());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().Message(),
            "open \"" + (tmp.path() / "nope").string() + "\": No such file or directory");

  WriteText(tmp.path() / "mountinfo", kV2Plain);
  auto no_controllers = DetectLayout(tmp.path() / "mountinfo", tmp.path());
  ASSERT_FALSE(no_controllers);
  EXPECT_EQ(no_controllers.error().path, tmp.path() / "sys/fs/cgroup/cgroup.controllers");
}

}  // namespace
}  // namespace podlimits::cgroups
