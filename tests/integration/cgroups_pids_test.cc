// The pod cgroup on the real kernel, as root, in the tree that holds the pids controller: the v1
// pids hierarchy (/sys/fs/cgroup/pids) on a v1 or hybrid machine, the unified tree on a cgroup v2
// one (the VM suite runs these there). Nothing is created anywhere else; in particular a v1
// memory hierarchy is never written. Every test removes what it created, also when it fails, and
// checks that the pids (and memory) trees look as they did before.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cgroups/detect.h"
#include "cgroups/hierarchies.h"
#include "cgroups/pids.h"
#include "cgroups/pod_cgroups.h"
#include "cgroups/tree.h"

namespace podlimits::cgroups {
namespace {

namespace fs = std::filesystem;

const fs::path kMemoryRoot = "/sys/fs/cgroup/memory";

std::string ReadText(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every directory below `root`, relative. Other sessions may create or remove cgroups meanwhile,
// so errors (a directory vanishing mid-walk) are ignored.
std::set<std::string> Directories(const fs::path& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_directory(ec2)) out.insert(it->path().lexically_relative(root).string());
  }
  return out;
}

// The line of /proc/<pid>/cgroup for a v1 controller ("4:memory:/x" -> "/x"); "" names the
// cgroup v2 line ("0::/x").
std::string CgroupOf(const std::string& proc_cgroup_text, const std::string& controller) {
  std::istringstream in(proc_cgroup_text);
  for (std::string line; std::getline(in, line);) {
    auto first = line.find(':');
    auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    if (controller.empty() && controllers.empty() && line.starts_with("0:")) {
      return line.substr(second + 1);
    }
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');) {
      if (!controller.empty() && name == controller) return line.substr(second + 1);
    }
  }
  return "";
}

// What a worker reports after forking inside the pod cgroup until the kernel refuses.
struct ForkReport {
  int forked = 0;      // children created before the refusal
  int fork_errno = 0;  // errno of the refused fork (0: never refused)
};

// Worker bodies. They run in a forked process once it has been moved into its cgroup.
void ForkUntilRefused(int result_fd) {
  ForkReport r;
  for (int i = 0; i < 20; ++i) {
    pid_t p = ::fork();
    if (p == 0) {
      for (;;) ::pause();
    }
    if (p < 0) {
      r.fork_errno = errno;
      break;
    }
    ++r.forked;
  }
  if (::write(result_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) ::_exit(2);
  for (;;) ::pause();
}

void ForkForever(int result_fd) {
  if (::write(result_fd, "s", 1) != 1) ::_exit(2);
  for (;;) {  // children exit at once and are reaped; a fork refused by pids.max is retried
    pid_t p = ::fork();
    if (p == 0) ::_exit(0);
    if (p > 0) ::waitpid(p, nullptr, 0);
  }
}

void SleepForever(int result_fd) {
  if (::write(result_fd, "s", 1) != 1) ::_exit(2);
  for (;;) ::pause();
}

// A worker process W under its own reaper S, a child subreaper: whatever W forks and leaves
// behind when it is killed is reaped by S (never by pid 1), and the test process itself is not
// changed. W waits until the test has moved it into a cgroup and says go; without a go it exits.
struct Worker {
  pid_t reaper = -1;
  pid_t pid = -1;
  int go = -1;      // write end
  int result = -1;  // read end
};

Worker SpawnWorker(void (*body)(int result_fd)) {
  int go[2], result[2], pid_pipe[2];
  Worker w;
  if (::pipe(go) != 0 || ::pipe(result) != 0 || ::pipe(pid_pipe) != 0) return w;
  pid_t reaper = ::fork();
  if (reaper == 0) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t worker = ::fork();
    if (worker == 0) {
      ::close(go[1]);
      ::close(result[0]);
      ::close(pid_pipe[0]);
      ::close(pid_pipe[1]);
      char c;
      if (::read(go[0], &c, 1) != 1) ::_exit(1);
      body(result[1]);
      ::_exit(0);
    }
    if (::write(pid_pipe[1], &worker, sizeof worker) != static_cast<ssize_t>(sizeof worker)) {
      ::_exit(2);
    }
    ::close(go[0]);
    ::close(go[1]);
    ::close(result[0]);
    ::close(result[1]);
    ::close(pid_pipe[1]);
    while (::wait(nullptr) > 0 || errno == EINTR) {
    }
    ::_exit(0);  // every descendant is gone
  }
  ::close(go[0]);
  ::close(result[1]);
  ::close(pid_pipe[1]);
  w.reaper = reaper;
  w.go = go[1];
  w.result = result[0];
  if (::read(pid_pipe[0], &w.pid, sizeof w.pid) != static_cast<ssize_t>(sizeof w.pid)) w.pid = -1;
  ::close(pid_pipe[0]);
  return w;
}

// Waits up to 5 s for the reaper to exit, i.e. for the worker and all it forked to be gone.
bool ReaperExited(Worker& w) {
  if (w.reaper <= 0) return true;
  for (int i = 0; i < 500; ++i) {
    if (::waitpid(w.reaper, nullptr, WNOHANG) == w.reaper) {
      w.reaper = -1;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class CgroupPidsIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    auto layout = DetectLayout();
    ASSERT_TRUE(layout) << "cannot detect the cgroup layout: " << layout.error().Message();
    layout_ = *layout;
    if (const V1Hierarchy* pids = layout_.V1For("pids")) {
      pids_root_ = pids->mount_point;
    } else {
      ASSERT_TRUE(layout_.unified && layout_.UnifiedHas("pids"))
          << "no pids controller in a v1 hierarchy or the unified tree (mode "
          << Name(layout_.mode) << ")";
      pids_root_ = layout_.unified->mount_point;
      v2_ = true;
    }
    static std::atomic<int> counter{0};
    name_ = "podlimits-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    pids_before_ = Directories(pids_root_);
    memory_before_ = Directories(kMemoryRoot);
    self_cgroups_before_ = ReadText("/proc/self/cgroup");
  }

  void TearDown() override {
    if (name_.empty()) return;  // skipped
    if (pod_) {
      auto removed = pod_->Teardown();
      EXPECT_TRUE(removed) << removed.error().Message();
    }
    if (tree_) {
      auto removed = tree_->Teardown();
      EXPECT_TRUE(removed) << removed.error().Message();
    }
    for (Worker& w : workers_) {
      if (w.go >= 0) ::close(w.go);  // a worker still waiting for its go exits
      if (w.result >= 0) ::close(w.result);
      if (!ReaperExited(w)) {
        ADD_FAILURE() << "worker " << w.pid << " outlived its test; killing it and its reaper";
        if (w.pid > 0) ::kill(w.pid, SIGKILL);  // the processes this test started, by pid
        ::kill(w.reaper, SIGKILL);
        ::waitpid(w.reaper, nullptr, 0);
      }
    }

    // Nothing of ours is left in the pids hierarchy, and nothing changed in memory.
    const std::set<std::string> pids_after = Directories(pids_root_);
    for (const std::string& dir : pids_after) {
      EXPECT_EQ(dir.find(name_), std::string::npos) << "left behind: " << pids_root_ / dir;
    }
    ReportForeignChanges(pids_root_, pids_before_, pids_after);
    const std::set<std::string> memory_after = Directories(kMemoryRoot);
    for (const std::string& dir : memory_after) {
      EXPECT_EQ(dir.find("podlimits-test"), std::string::npos)
          << "a cgroup in the memory hierarchy: " << kMemoryRoot / dir;
    }
    ReportForeignChanges(kMemoryRoot, memory_before_, memory_after);
    EXPECT_EQ(ReadText("/proc/self/cgroup"), self_cgroups_before_);
  }

  // Differences that are not ours come from other sessions on this machine; they are printed, not
  // failed on, so concurrent work cannot break these tests.
  void ReportForeignChanges(const fs::path& root, const std::set<std::string>& before,
                            const std::set<std::string>& after) {
    for (const std::string& dir : before) {
      if (!after.count(dir)) std::cerr << "note: " << root / dir << " vanished meanwhile\n";
    }
    for (const std::string& dir : after) {
      if (!before.count(dir) && dir.find(name_) == std::string::npos) {
        std::cerr << "note: " << root / dir << " appeared meanwhile (not ours)\n";
      }
    }
  }

  PodCgroup& MakePod() {
    auto managed = ManagedHierarchies(layout_);
    EXPECT_TRUE(managed) << managed.error().Message();
    // This machine's safety rule, checked before anything is written: the pids hierarchy only.
    EXPECT_EQ(managed->size(), 1u);
    for (const ManagedHierarchy& h : *managed) {
      EXPECT_EQ(h.tree.root(), pids_root_);
      if (h.tree.root() != pids_root_) std::abort();
    }
    pod_.emplace(std::move(*managed));
    return *pod_;
  }

  CgroupTree& MakeTree() {
    tree_.emplace(CgroupTree::OnCgroupfs(pids_root_));
    return *tree_;
  }

  PodCgroupPlan Plan(std::optional<std::int64_t> kubepods, std::optional<std::int64_t> pod) {
    return {"it-" + name_.substr(name_.rfind('-') + 1),
            QosClass::kBurstable,
            "/" + name_,
            kubepods,
            pod,
            std::nullopt};
  }

  // Starts a worker, moves it into `cgroup` and lets it run `body`.
  Worker& StartIn(CgroupTree& tree, const fs::path& cgroup, void (*body)(int)) {
    workers_.push_back(SpawnWorker(body));
    Worker& w = workers_.back();
    EXPECT_GT(w.pid, 0);
    auto joined = tree.Write(cgroup, "cgroup.procs", std::to_string(w.pid));
    EXPECT_TRUE(joined) << joined.error().Message();
    if (joined) {  // never let it run outside the cgroup
      EXPECT_EQ(::write(w.go, "g", 1), 1);
    }
    ::close(w.go);
    w.go = -1;
    return w;
  }

  CgroupLayout layout_;
  // The root of the tree that holds pids: /sys/fs/cgroup/pids, or the unified mount on v2.
  fs::path pids_root_;
  bool v2_ = false;
  std::string name_;
  std::set<std::string> pids_before_, memory_before_;
  std::string self_cgroups_before_;
  std::optional<PodCgroup> pod_;
  std::optional<CgroupTree> tree_;
  std::deque<Worker> workers_;  // references to elements stay valid
};

TEST_F(CgroupPidsIntegration, ForkBeyondThePodPidsMaxFailsWithEagain) {
  PodCgroup& pod = MakePod();
  auto applied = pod.Apply(Plan(1000, 5));
  ASSERT_TRUE(applied) << applied.error().Message();
  const HierarchyReadBack& rb = applied->hierarchies.at(0);
  const fs::path pod_dir =
      pids_root_ / name_ / "kubepods/burstable" / ("pod" + Plan({}, {}).pod_uid);
  EXPECT_EQ(rb.pod_cgroup_dir, pod_dir);
  ASSERT_TRUE(rb.pod_pids_max);
  EXPECT_EQ(rb.pod_pids_max->value, MaxValue(5));
  ASSERT_TRUE(rb.kubepods_pids_max);
  EXPECT_EQ(rb.kubepods_pids_max->value, MaxValue(1000));
  EXPECT_EQ(ReadText(pod_dir / "pids.max"), "5\n");
  EXPECT_EQ(ReadText(pids_root_ / name_ / "kubepods/pids.max"), "1000\n");
  EXPECT_EQ(ReadText(pids_root_ / name_ / "kubepods/burstable/pids.max"), "max\n");

  CgroupTree& tree = pod.hierarchies()[0].tree;
  Worker& worker = StartIn(tree, applied->cgroup, &ForkUntilRefused);
  ForkReport report;
  ASSERT_EQ(::read(worker.result, &report, sizeof report), static_cast<ssize_t>(sizeof report));
  // The worker itself is the first of 5 pids: 4 forks succeed, the 5th is refused.
  EXPECT_EQ(report.forked, 4);
  EXPECT_EQ(report.fork_errno, EAGAIN) << std::strerror(report.fork_errno);
  auto current = ReadPidsCurrent(tree, applied->cgroup);
  ASSERT_TRUE(current) << current.error().Message();
  EXPECT_EQ(*current, 5);
  auto events = ReadPidsEvents(tree, applied->cgroup);
  ASSERT_TRUE(events) << events.error().Message();
  EXPECT_EQ(events->max, 1);
  auto procs = tree.Procs(applied->cgroup);
  ASSERT_TRUE(procs);
  EXPECT_EQ(procs->size(), 5u);
  std::cerr << "pod pids.max 5: forked " << report.forked << ", then errno " << report.fork_errno
            << " (" << std::strerror(report.fork_errno) << "); pids.current " << *current
            << ", pids.events max " << events->max << "\n";

  // The worker sits in the pod cgroup in pids, and in our own cgroup everywhere else (memory!).
  const std::string worker_cgroups = ReadText("/proc/" + std::to_string(worker.pid) + "/cgroup");
  EXPECT_EQ(CgroupOf(worker_cgroups, v2_ ? "" : "pids"), applied->cgroup.string());
  if (!v2_) {
    EXPECT_EQ(CgroupOf(worker_cgroups, "memory"), CgroupOf(self_cgroups_before_, "memory"));
  }

  auto killed = tree.Kill(applied->cgroup);
  ASSERT_TRUE(killed) << killed.error().Message();
  procs = tree.Procs(applied->cgroup);
  ASSERT_TRUE(procs);
  EXPECT_TRUE(procs->empty());
  EXPECT_TRUE(ReaperExited(worker));  // the worker and its 4 children are gone

  auto removed = pod.Teardown();
  ASSERT_TRUE(removed) << removed.error().Message();
  EXPECT_FALSE(fs::exists(pids_root_ / name_));
}

TEST_F(CgroupPidsIntegration, KubepodsAllocatableBoundsPodsWithoutALimit) {
  PodCgroup& pod = MakePod();
  auto applied = pod.Apply(Plan(3, std::nullopt));
  ASSERT_TRUE(applied) << applied.error().Message();
  const HierarchyReadBack& rb = applied->hierarchies.at(0);
  ASSERT_TRUE(rb.pod_pids_max);
  EXPECT_EQ(rb.pod_pids_max->value, std::nullopt);  // "max"
  CgroupTree& tree = pod.hierarchies()[0].tree;
  Worker& worker = StartIn(tree, applied->cgroup, &ForkUntilRefused);
  ForkReport report;
  ASSERT_EQ(::read(worker.result, &report, sizeof report), static_cast<ssize_t>(sizeof report));
  EXPECT_EQ(report.forked, 2);  // worker + 2 = kubepods' 3
  EXPECT_EQ(report.fork_errno, EAGAIN);
  auto kubepods_current = ReadPidsCurrent(tree, KubepodsCgroup("/" + name_));
  ASSERT_TRUE(kubepods_current);
  EXPECT_EQ(*kubepods_current, 3);
  // v1 counts a refused fork in the forking task's cgroup, whichever limit refused it.
  auto events = ReadPidsEvents(tree, applied->cgroup);
  ASSERT_TRUE(events);
  EXPECT_EQ(events->max, 1);
  std::cerr << "kubepods pids.max 3, pod unlimited: forked " << report.forked << ", then "
            << std::strerror(report.fork_errno) << "; kubepods pids.current " << *kubepods_current
            << ", pod pids.events max " << events->max << "\n";
  // Teardown alone kills what runs in the pod cgroup.
  auto removed = pod.Teardown();
  ASSERT_TRUE(removed) << removed.error().Message();
  EXPECT_TRUE(ReaperExited(worker));
  EXPECT_FALSE(fs::exists(pids_root_ / name_));
}

TEST_F(CgroupPidsIntegration, KernelRejectionIsReportedAndRolledBack) {
  PodCgroup& pod = MakePod();
  // PIDS_MAX = PID_MAX_LIMIT + 1 = 4194305 on 64-bit: pids.max refuses it with EINVAL.
  auto applied = pod.Apply(Plan(1000, 4194305));
  ASSERT_FALSE(applied);
  const fs::path pod_dir =
      pids_root_ / name_ / "kubepods/burstable" / ("pod" + Plan({}, {}).pod_uid);
  EXPECT_EQ(applied.error().Message(),
            "write \"" + (pod_dir / "pids.max").string() + "\": Invalid argument");
  std::cerr << "error: " << applied.error().Message() << "\n";
  EXPECT_TRUE(pod.hierarchies()[0].tree.created().empty());
  EXPECT_FALSE(fs::exists(pids_root_ / name_));
}

TEST_F(CgroupPidsIntegration, KillStopsAProcessThatKeepsForking) {
  CgroupTree& tree = MakeTree();
  const fs::path cgroup = fs::path("/") / name_;
  ASSERT_TRUE(tree.Create(cgroup, CgroupTree::CreateMode::kExclusive));
  ASSERT_TRUE(tree.Write(cgroup, "pids.max", "16"));
  Worker& worker = StartIn(tree, cgroup, &ForkForever);
  char started;
  ASSERT_EQ(::read(worker.result, &started, 1), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto before = tree.Procs(cgroup);
  ASSERT_TRUE(before);
  EXPECT_FALSE(before->empty());
  const auto start = std::chrono::steady_clock::now();
  auto killed = tree.Kill(cgroup);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(killed) << killed.error().Message();
  std::cerr << "killed a forking process in "
            << std::chrono::duration_cast<std::chrono::microseconds>(took).count() << " us\n";
  auto after = tree.Procs(cgroup);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->empty());
  EXPECT_TRUE(ReaperExited(worker));
  auto removed = tree.Teardown();
  ASSERT_TRUE(removed) << removed.error().Message();
}

TEST_F(CgroupPidsIntegration, RemoveKillsWhatStillRunsThenRmdirs) {
  CgroupTree& tree = MakeTree();
  const fs::path cgroup = fs::path("/") / name_;
  ASSERT_TRUE(tree.Create(cgroup));
  Worker& worker = StartIn(tree, cgroup, &SleepForever);
  char started;
  ASSERT_EQ(::read(worker.result, &started, 1), 1);
  // A plain rmdir is refused while the process is in the cgroup ...
  ASSERT_NE(::rmdir((pids_root_ / name_).c_str()), 0);
  EXPECT_EQ(errno, EBUSY);
  // ... Remove kills it and retries.
  auto removed = tree.Remove(cgroup);
  ASSERT_TRUE(removed) << removed.error().Message();
  EXPECT_FALSE(fs::exists(pids_root_ / name_));
  EXPECT_TRUE(ReaperExited(worker));
}

TEST_F(CgroupPidsIntegration, DetectsThisMachine) {
  std::cerr << "mode " << Name(layout_.mode) << ", pids at " << pids_root_;
  if (v2_) {
    // Pure v2: one tree, pids among its controllers, no v1 hierarchy.
    EXPECT_EQ(layout_.mode, CgroupMode::kV2);
    EXPECT_TRUE(layout_.UnifiedHas("pids"));
    EXPECT_EQ(layout_.V1For("pids"), nullptr);
    std::cerr << "\n";
    return;
  }
  if (layout_.unified) {
    std::cerr << ", cgroup2 at " << layout_.unified->mount_point << " nsdelegate "
              << layout_.unified->nsdelegate << " controllers [";
    for (const std::string& c : layout_.unified_controllers) std::cerr << " " << c;
    std::cerr << " ]";
    // A controller bound to a v1 hierarchy is not available in cgroup2.
    EXPECT_FALSE(layout_.UnifiedHas("pids"));
  }
  std::cerr << "\n";
  EXPECT_NE(layout_.mode, CgroupMode::kV2);
}

}  // namespace
}  // namespace podlimits::cgroups
