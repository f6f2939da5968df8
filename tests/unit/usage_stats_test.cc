// kubelet/stats: parsing /proc and cgroup files, reading a cgroup's usage from a fake tree and a
// fake /proc, and the rates and peaks the usage history computes from written-out samples.
#include <gtest/gtest.h>

#include <unistd.h>

#include "cgroups/tree.h"
#include "kubelet/stats/cgroup_usage.h"
#include "kubelet/stats/node_usage.h"
#include "kubelet/stats/process_stats.h"
#include "kubelet/stats/usage_history.h"
#include "fake_proc.h"
#include "temp_dir.h"

namespace podlimits::kubelet {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::system_clock;

const Clock::time_point kT0 = Clock::time_point(seconds(1'800'000'000));

std::int64_t TickNs() { return 1'000'000'000 / sysconf(_SC_CLK_TCK); }

TEST(ParseStatCpuTicksTest, Cases) {
  struct Case {
    std::string name;
    std::string stat;
    std::optional<std::int64_t> ticks;
  };
  const std::vector<Case> cases = {
      {"plain", "42 (sh) S 1 42 42 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 100 1000 10", 10},
      {"command with spaces and parens", "7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 250 50 0 0 20 0 4 0",
       300},
      {"no closing paren", "7 (abc R 1", std::nullopt},
      {"too few fields", "7 (x) R 1 2 3", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = ParseStatCpuTicks(c.stat);
    ASSERT_EQ(got.has_value(), c.ticks.has_value());
    if (c.ticks) {
      EXPECT_EQ(*got, *c.ticks);
    }
  }
}

TEST(ParseSoftLimitsTest, KeepsOpenFilesAndProcessesAsCAdvisorNamesThem) {
  const std::string limits =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max cpu time              unlimited            unlimited            seconds   \n"
      "Max processes             unlimited            63704                processes \n"
      "Max open files            1024                 4096                 files     \n"
      "Max locked memory         8388608              8388608              bytes     \n";
  const std::map<std::string, std::int64_t> want = {{"max_open_files", 1024},
                                                    {"max_processes", -1}};
  EXPECT_EQ(ParseSoftLimits(limits), want);
}

TEST(CgroupFilesTest, CpuStatAndWorkingSet) {
  EXPECT_EQ(ParseCpuStatUsage("usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n"),
            123456000);
  EXPECT_EQ(ParseCpuStatUsage("user_usec 1\n"), std::nullopt);
  EXPECT_EQ(WorkingSet(10 << 20, "anon 100\nfile 5\ninactive_file 4194304\nactive_file 1\n"),
            6 << 20);
  EXPECT_EQ(WorkingSet(1000, "inactive_file 4096\n"), 0);
  EXPECT_EQ(WorkingSet(4096, ""), 4096);
}

TEST(NodeUsageTest, ProcStatAndMeminfo) {
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  auto busy = ParseProcStatBusy("cpu  100 2 30 5000 40 1 2 3 0 0\ncpu0 50 1 15 2500 20 0 1 1 0 0\n");
  ASSERT_TRUE(busy);
  EXPECT_EQ(*busy, 138 * TickNs());
  EXPECT_FALSE(ParseProcStatBusy("intr 1 2 3\n"));
  auto used = ParseMeminfoUsed("MemTotal:        8000000 kB\nMemFree:  100 kB\n"
                               "MemAvailable:    6000000 kB\n");
  ASSERT_TRUE(used);
  EXPECT_EQ(*used, 2000000LL * 1024);
  EXPECT_FALSE(ParseMeminfoUsed("MemTotal: 1 kB\n"));
}

using podlimits::testing::WriteFakeProcess;

TEST(ReadCgroupUsageTest, SumsProcOverTheCgroupAndItsChildrenOnAPidsHierarchy) {
  podlimits::testing::TempDir dir("podlimits-stats");
  auto tree = cgroups::CgroupTree::OnPlainDirectory(dir / "pids", {});
  dir.Write("pids/kubepods/pod1/c1/cgroup.procs", "12\n10\n");
  dir.Write("pids/kubepods/pod1/c1/pids.current", "5\n");
  dir.Write("pids/kubepods/pod1/c1/nested/cgroup.procs", "14\n");
  WriteFakeProcess(dir, 10, {.utime = 100, .stime = 50, .rss_kb = 1000, .threads = 1, .fds = 4});
  WriteFakeProcess(dir, 12, {.utime = 10, .rss_kb = 500, .threads = 3, .fds = 7, .nofile_soft = 2048});
  WriteFakeProcess(dir, 14, {.utime = 1, .stime = 1, .rss_kb = 100, .fds = 2, .nofile_soft = 64});
  CgroupUsageSource source{&tree, false, dir / "proc"};
  auto usage = ReadCgroupUsage(source, "/kubepods/pod1/c1", kT0);
  ASSERT_TRUE(usage) << usage.error().Message();
  EXPECT_TRUE(usage->from_proc);
  EXPECT_EQ(usage->processes, 3);
  EXPECT_EQ(usage->threads, 5);
  EXPECT_EQ(usage->open_files, 13);
  EXPECT_EQ(usage->process_open_files_max, 7);
  EXPECT_EQ(usage->cpu_ns, 162 * TickNs());
  EXPECT_EQ(usage->memory_bytes, 1600 * 1024);
  EXPECT_EQ(usage->pids_current, 5);
  EXPECT_EQ(usage->pids_peak, std::nullopt);
  // The first (lowest) pid's limits, as cAdvisor reads the container's root process.
  EXPECT_EQ(usage->soft_limits.at("max_open_files"), 1024);
  EXPECT_EQ(usage->process_cpu_ns.at(12), 10 * TickNs());
  EXPECT_FALSE(ReadCgroupUsage(source, "/kubepods/pod2", kT0));
}

TEST(ReadCgroupUsageTest, ReadsCpuAndMemoryFromTheUnifiedTree) {
  podlimits::testing::TempDir dir("podlimits-stats");
  auto tree = cgroups::CgroupTree::OnPlainDirectory(dir / "cg", {});
  dir.Write("cg/pod1/cgroup.procs", "10\n");
  dir.Write("cg/pod1/cpu.stat", "usage_usec 2500000\n");
  dir.Write("cg/pod1/memory.current", "8388608\n");
  dir.Write("cg/pod1/memory.stat", "inactive_file 1048576\n");
  dir.Write("cg/pod1/pids.current", "3\n");
  dir.Write("cg/pod1/pids.peak", "9\n");
  WriteFakeProcess(dir, 10, {.utime = 1, .stime = 1, .rss_kb = 4, .threads = 3, .fds = 5});
  auto usage = ReadCgroupUsage({&tree, true, dir / "proc"}, "pod1", kT0);
  ASSERT_TRUE(usage) << usage.error().Message();
  EXPECT_FALSE(usage->from_proc);
  EXPECT_EQ(usage->cpu_ns, 2'500'000'000);
  EXPECT_EQ(usage->memory_bytes, 7 << 20);
  EXPECT_EQ(usage->pids_peak, 9);
  EXPECT_TRUE(usage->process_cpu_ns.empty());
}

CgroupUsage Cgroup(seconds at, std::int64_t cpu_ns, std::int64_t memory,
                   std::map<pid_t, std::int64_t> per_process = {}) {
  CgroupUsage u;
  u.time = kT0 + at;
  u.cpu_ns = cpu_ns;
  u.memory_bytes = memory;
  u.from_proc = !per_process.empty();
  u.process_cpu_ns = std::move(per_process);
  return u;
}

TEST(RateBetweenTest, Cases) {
  struct Case {
    std::string name;
    CgroupUsage earlier, later;
    std::optional<std::int64_t> nanocores;
  };
  const std::vector<Case> cases = {
      {"a quarter cpu over 10s", Cgroup(seconds(0), 1'000'000'000, 1),
       Cgroup(seconds(10), 3'500'000'000, 2), 250'000'000},
      {"idle", Cgroup(seconds(0), 5, 1), Cgroup(seconds(15), 5, 1), 0},
      {"cgroup made anew: cpu went down", Cgroup(seconds(0), 900, 1), Cgroup(seconds(15), 100, 1),
       std::nullopt},
      {"no window", Cgroup(seconds(5), 1, 1), Cgroup(seconds(5), 2, 1), std::nullopt},
      // /proc sums: pid 11 exited (its time leaves the sum), pid 13 is new and counts whole,
      // pid 12's counter went down (the pid was reused) and counts from zero.
      {"proc: exited, new and reused processes",
       Cgroup(seconds(0), 0, 1, {{10, 1'000'000'000}, {11, 9'000'000'000}, {12, 800'000'000}}),
       Cgroup(seconds(20), 0, 1, {{10, 3'000'000'000}, {12, 500'000'000}, {13, 1'500'000'000}}),
       (2'000'000'000LL + 500'000'000 + 1'500'000'000) / 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto rate = RateBetween(c.earlier, c.later);
    ASSERT_EQ(rate.has_value(), c.nanocores.has_value());
    if (!rate) continue;
    EXPECT_EQ(rate->nanocores, *c.nanocores);
    EXPECT_EQ(rate->timestamp, c.later.time);
    EXPECT_EQ(rate->memory_bytes, c.later.memory_bytes);
  }
}

PodSample Sample(seconds at, std::int64_t pids, std::vector<ContainerSample> containers) {
  PodSample s;
  s.time = kT0 + at;
  s.pids_current = pids;
  s.containers = std::move(containers);
  return s;
}

ContainerSample Container(std::string name, std::string id, seconds at, std::int64_t cpu_ns,
                          std::int64_t fds, std::int64_t processes) {
  ContainerSample c{std::move(name), std::move(id), Cgroup(at, cpu_ns, 4096)};
  c.usage.open_files = fds;
  c.usage.processes = processes;
  c.usage.threads = processes;
  return c;
}

TEST(UsageHistoryTest, RatesNeedTwoSamplesOfTheSameContainer) {
  UsageHistory h;
  h.RecordPod("u1", Sample(seconds(0), 3, {Container("app", "a1", seconds(0), 0, 5, 2),
                                           Container("side", "s1", seconds(0), 0, 3, 1)}));
  EXPECT_EQ(h.PodRateOf("u1"), std::nullopt) << "one sample: no rate yet";
  // "side" restarted (another runtime id): it has no rate in this window, "app" has.
  h.RecordPod("u1", Sample(seconds(15), 40, {Container("app", "a1", seconds(15), 1'500'000'000, 9, 30),
                                             Container("side", "s2", seconds(15), 10, 3, 1)}));
  auto rate = h.PodRateOf("u1");
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->window, seconds(15));
  EXPECT_EQ(rate->timestamp, kT0 + seconds(15));
  ASSERT_EQ(rate->containers.size(), 1u);
  EXPECT_EQ(rate->containers[0].name, "app");
  EXPECT_EQ(rate->containers[0].rate.nanocores, 100'000'000);

  h.RecordPod("u1", Sample(seconds(30), 7, {Container("app", "a1", seconds(30), 1'500'000'000, 6, 4)}));
  auto seen = h.ObservationOf("u1");
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->samples, 3);
  EXPECT_EQ(seen->since, kT0);
  EXPECT_EQ(seen->last, kT0 + seconds(30));
  EXPECT_EQ(seen->pids_peak_sampled, 40);
  EXPECT_EQ(seen->pids_peak_kernel, std::nullopt);
  EXPECT_EQ(seen->containers.at("app").open_files, 9);
  EXPECT_EQ(seen->containers.at("app").processes, 30);
  EXPECT_EQ(seen->containers.at("side").open_files, 3);

  h.Retain({});
  EXPECT_EQ(h.ObservationOf("u1"), std::nullopt);
  EXPECT_EQ(h.PodRateOf("u1"), std::nullopt);
}

TEST(UsageHistoryTest, NodeRate) {
  UsageHistory h;
  h.RecordNode({kT0, 1'000'000'000, 100});
  EXPECT_EQ(h.NodeRate(), std::nullopt);
  h.RecordNode({kT0 + seconds(10), 6'000'000'000, 200});
  auto rate = h.NodeRate();
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->nanocores, 500'000'000);
  EXPECT_EQ(rate->memory_bytes, 200);
  EXPECT_EQ(rate->window, seconds(10));
}

}  // namespace
}  // namespace podlimits::kubelet
