#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "cri/kernel_limits.h"
#include "kubelet/cm/pid_capacity.h"
#include "temp_dir.h"

namespace podlimits::kubelet {
namespace {

using podlimits::testing::TempDir;

TEST(PidCapacity, ReadsMinOfPidMaxAndThreadsMax) {
  struct Case {
    const char* name;
    const char* pid_max;  // nullptr: file absent
    const char* threads_max;
    std::optional<std::int64_t> want;
  };
  const Case cases[] = {
      {"pid_max smaller", "32768\n", "192730\n", 32768},
      {"threads-max smaller", "4194304\n", "63000\n", 63000},
      {"equal", "1000\n", "1000\n", 1000},
      {"only pid_max readable", "32768\n", nullptr, 32768},
      {"only threads-max readable", nullptr, "500\n", 500},
      {"neither readable", nullptr, nullptr, std::nullopt},
      {"garbage is unreadable", "lots\n", "700\n", 700},
      {"no trailing newline keeps every digit", "32768", "192730", 32768},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir proc{"podlimits_pid_capacity"};
    if (c.pid_max) proc.Write("sys/kernel/pid_max", c.pid_max);
    if (c.threads_max) proc.Write("sys/kernel/threads-max", c.threads_max);
    PidCapacity cap = ReadPidCapacity(proc.path());
    EXPECT_EQ(cap.Capacity(), c.want);
  }
}

TEST(PidCapacity, NrOpenAndTaskCount) {
  TempDir proc{"podlimits_pid_capacity"};
  EXPECT_EQ(cri::ReadNrOpen(proc.path()), std::nullopt);
  proc.Write("sys/fs/nr_open", "1048576\n");
  EXPECT_EQ(cri::ReadNrOpen(proc.path()), 1048576);

  struct Case {
    const char* name;
    const char* loadavg;
    Result<std::int64_t> want;
  };
  const Case cases[] = {
      {"running/total", "0.00 0.01 0.05 2/3518 12345\n", 3518},
      {"too few fields", "0.00 0.01 0.05\n", Failure("not enough fields in /proc/loadavg")},
      {"no slash", "0.00 0.01 0.05 3518 1\n",
       Failure("error parsing fourth field of /proc/loadavg")},
      {"not a number", "0.00 0.01 0.05 2/x 1\n",
       Failure("error parsing fourth field of /proc/loadavg")},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    proc.Write("loadavg", c.loadavg);
    EXPECT_EQ(ReadTaskCount(proc.path()), c.want);
  }
}

TEST(PidCapacity, RealProcIsReadable) {
  // Every Linux machine has both files; the capacity is what the kubelet would use.
  PidCapacity cap = ReadPidCapacity();
  ASSERT_TRUE(cap.Capacity());
  EXPECT_GT(*cap.Capacity(), 0);
  EXPECT_TRUE(ReadTaskCount());
}

TEST(PidCapacity, AllocatableClampsAtZero) {
  struct Case {
    const char* name;
    std::int64_t capacity;
    const char* system;
    const char* kube;
    std::int64_t want;
  };
  const Case cases[] = {
      {"nothing reserved", 32768, "0", "0", 32768},
      {"both reserved", 32768, "1000", "500", 31268},
      {"suffixes", 32768, "1k", "2k", 29768},
      {"fractions are subtracted exactly and rounded up", 100, "0.5", "0.4", 100},
      {"exactly all", 1000, "600", "400", 0},
      {"more than capacity clamps to 0", 1000, "900", "900", 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(
        PidAllocatable(c.capacity, *resource::Quantity::Parse(c.system), *resource::Quantity::Parse(c.kube)),
        c.want);
  }
}

TEST(PidCapacity, KubepodsPidsMax) {
  NodeConfig config = DefaultNodeConfig();
  config.system_reserved["pid"] = *resource::Quantity::Parse("1000");
  config.kube_reserved["pid"] = *resource::Quantity::Parse("500");
  struct Case {
    const char* name;
    std::vector<std::string> enforce;
    std::optional<std::int64_t> capacity;
    std::optional<std::int64_t> want;
  };
  const Case cases[] = {
      {"pods enforced: allocatable", {"pods"}, 32768, 31268},
      {"none: capacity", {"none"}, 32768, 32768},
      {"empty list: capacity", {}, 32768, 32768},
      {"capacity unknown: unbounded", {"pods"}, std::nullopt, std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    config.enforce_node_allocatable = c.enforce;
    EXPECT_EQ(KubepodsPidsMax(c.capacity, config), c.want);
  }
}

}  // namespace
}  // namespace podlimits::kubelet
