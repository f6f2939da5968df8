// A container runtime for unit tests of the pod workers: each container is a real child
// process of the test (forked at Create, held until Start), so that the pod worker waits for
// it, reads its output and signals it exactly as it does a crun container, while what the
// process does is a script the test writes: its output, its exit code, how long it runs,
// whether it ignores SIGTERM, whether the runtime refuses to start it. Unprivileged, any
// machine. Every call is logged ("create web", "start web", "kill web 15", "delete web").
#pragma once

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cri/container_runtime.h"
#include "base/child_reaper.h"
#include "image/snapshotter.h"
#include "kubelet/podworker/pod_holder.h"

namespace podlimits::testing {

// One run of a container.
struct FakeRun {
  int exit_code = 0;
  std::chrono::milliseconds runs_for{0};  // before it exits by itself
  bool ignores_sigterm = false;
  bool start_refused = false;  // the runtime's start fails as for a missing executable
  bool create_fails = false;   // the runtime cannot be run at all: a node failure
  std::string output = {};     // written to stdout once started
};

class FakeRuntime : public cri::ContainerRuntime {
 public:
  // The runs of the container named `name`, in order; past the last, the last repeats.
  void Script(const std::string& name, std::vector<FakeRun> runs) {
    std::lock_guard lock(mu_);
    scripts_[name] = std::move(runs);
  }
  // Fault injection: the next `op` ("start", "kill" or "delete") of the container named `name`
  // fails as a runtime that could not be run would (once per call of Fail).
  void Fail(const std::string& op, const std::string& name) {
    std::lock_guard lock(mu_);
    ++faults_[op + " " + name];
  }
  // Called (outside the lock) after each create, with the container name and its run number.
  std::function<void(const std::string&, int)> on_create;

  Result<pid_t> Create(const std::string& id, const std::filesystem::path& bundle,
                       const cri::ContainerStdio& stdio, bool* refused) override {
    const std::string name = bundle.filename().string();
    FakeRun run;
    int number = 0;
    {
      std::lock_guard lock(mu_);
      Log("create " + name);
      number = runs_[name]++;
      const auto& script = scripts_[name];
      if (!script.empty()) run = script[std::min<std::size_t>(number, script.size() - 1)];
    }
    if (run.create_fails) {
      if (refused) *refused = false;
      return Failure("fake create " + name + ": the runtime could not be run");
    }
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0) return SystemError("pipe", {}, errno);
    // SIGTERM stays blocked across the fork until the child has chosen to ignore it or not: a
    // stop request may come at once.
    sigset_t term, old;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, &old);
    pid_t pid = fork();
    if (pid != 0) pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0) return SystemError("fork", {}, errno);
    if (pid == 0) {
      // The container: only async-signal-safe calls from here on.
      if (stdio.stdout_fd >= 0) dup2(stdio.stdout_fd, 1);
      if (stdio.stderr_fd >= 0) dup2(stdio.stderr_fd, 2);
      if (run.ignores_sigterm) signal(SIGTERM, SIG_IGN);
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
      // Nothing else of the test's: another container's pipe held open here would never end.
      dup2(gate[0], 3);
      close_range(4, ~0U, 0);
      char go = 0;
      if (read(3, &go, 1) != 1 || go != 's') _exit(137);  // deleted before start
      if (!run.output.empty()) (void)!write(1, run.output.data(), run.output.size());
      auto ms = run.runs_for.count();
      timespec t{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000L};
      while (nanosleep(&t, &t) != 0) {
      }
      _exit(run.exit_code);
    }
    close(gate[0]);
    {
      std::lock_guard lock(mu_);
      containers_[id] = {name, pid, gate[1], run};
    }
    if (on_create) on_create(name, number);
    return pid;
  }

  Result<void> Start(const std::string& id, bool* refused) override {
    std::lock_guard lock(mu_);
    auto it = containers_.find(id);
    if (it == containers_.end()) return Failure("fake start: no container " + id);
    Log("start " + it->second.name);
    if (TakeFault("start", it->second.name)) {
      if (refused) *refused = false;
      return Failure("fake start " + it->second.name + ": injected fault");
    }
    if (it->second.run.start_refused) {
      if (refused) *refused = true;
      return Failure("fake start " + it->second.name +
                     ": exec: \"nope\": executable file not found in $PATH");
    }
    (void)!write(it->second.gate, "s", 1);
    return {};
  }

  Result<cri::ContainerState> State(const std::string& id) override {
    std::lock_guard lock(mu_);
    auto it = containers_.find(id);
    if (it == containers_.end()) return Failure("fake state: no container " + id);
    return cri::ContainerState{id, "running", it->second.pid, {}};
  }

  Result<void> Kill(const std::string& id, int signal, bool) override {
    std::lock_guard lock(mu_);
    auto it = containers_.find(id);
    if (it == containers_.end()) return {};
    Log("kill " + it->second.name + " " + std::to_string(signal));
    if (TakeFault("kill", it->second.name)) {
      return Failure("fake kill " + it->second.name + ": injected fault");
    }
    ::kill(it->second.pid, signal);
    return {};
  }

  // What an exec in the container named `name` returns (called outside the lock); unset: exit 0.
  std::function<cri::ExecResult(const std::string& name, const std::vector<std::string>& argv)>
      on_exec;

  Result<cri::ExecResult> Exec(const std::string& id, const std::vector<std::string>& argv,
                               std::chrono::milliseconds) override {
    std::string name;
    {
      std::lock_guard lock(mu_);
      auto it = containers_.find(id);
      if (it == containers_.end()) return Failure("fake exec " + id + ": no such container");
      name = it->second.name;
      std::string joined;
      for (const auto& a : argv) joined += " " + a;
      Log("exec " + name + joined);
    }
    if (on_exec) return on_exec(name, argv);
    return cri::ExecResult{0, false, "", ""};
  }

  Result<cri::AttachedExecEnd> ExecAttached(const std::string& id,
                                             const cri::AttachedExec&) override {
    return Failure("fake exec " + id + ": the fake runtime runs no attached execs");
  }

  Result<void> Delete(const std::string& id) override {
    std::lock_guard lock(mu_);
    auto it = containers_.find(id);
    if (it == containers_.end()) return {};
    Log("delete " + it->second.name);
    if (TakeFault("delete", it->second.name)) {
      return Failure("fake delete " + it->second.name + ": injected fault");
    }
    ::kill(it->second.pid, SIGKILL);  // as `delete --force`; the pod worker reaps it
    close(it->second.gate);
    containers_.erase(it);
    return {};
  }

  std::string_view Name() const override { return "fake"; }
  // The binary a pod record names (the stale-run recovery runs it as `delete --force`).
  void set_binary(std::filesystem::path binary) { binary_ = std::move(binary); }
  const std::filesystem::path& Binary() const override { return binary_; }
  const std::filesystem::path& StateRoot() const override { return binary_; }

  std::vector<std::string> Calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // The calls about one container, e.g. {"create web", "start web", "delete web"}.
  std::vector<std::string> CallsFor(const std::string& name) const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& c : calls_) {
      auto space = c.find(' ');
      std::string rest = c.substr(space + 1);
      if (rest == name || rest.starts_with(name + " ")) out.push_back(c);
    }
    return out;
  }

 private:
  struct Container {
    std::string name;
    pid_t pid = 0;
    int gate = -1;
    FakeRun run;
  };
  void Log(std::string call) { calls_.push_back(std::move(call)); }
  bool TakeFault(const std::string& op, const std::string& name) {
    auto it = faults_.find(op + " " + name);
    if (it == faults_.end() || it->second == 0) return false;
    --it->second;
    return true;
  }

  mutable std::mutex mu_;
  std::map<std::string, std::vector<FakeRun>> scripts_;
  std::map<std::string, int> runs_;
  std::map<std::string, Container> containers_;
  std::vector<std::string> calls_;
  std::map<std::string, int> faults_;
  std::filesystem::path binary_ = "/fake/runtime";
};

// The image's own directory as the container's root filesystem: the fake runtime never looks
// at it, and nothing is mounted.
class PlainSnapshotter : public image::Snapshotter {
 public:
  Result<std::filesystem::path> Prepare(const std::filesystem::path& image_rootfs,
                                        const std::filesystem::path&) override {
    return image_rootfs;
  }
  Result<void> Release(const std::filesystem::path&) override { return {}; }
};

// The pod sandbox's holder for unit tests: a plain child that waits to be killed, with each
// request recorded (no namespaces, no cgroup: those need root).
class FakeHolder {
 public:
  kubelet::HolderStarter Starter() {
    return [this](const cri::HolderRequest& request) -> Result<pid_t> {
      pid_t pid = ChildReaper::Process().SpawnOwned([] {
        pid_t p = fork();
        if (p == 0) {
          close_range(3, ~0U, 0);
          while (true) pause();
        }
        return p;
      });
      if (pid < 0) return SystemError("fork", {}, errno);
      std::lock_guard lock(mu_);
      requests_.push_back(request);
      pids_.push_back(pid);
      return pid;
    };
  }
  std::vector<cri::HolderRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  std::vector<pid_t> pids() const {
    std::lock_guard lock(mu_);
    return pids_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<cri::HolderRequest> requests_;
  std::vector<pid_t> pids_;
};

}  // namespace podlimits::testing
