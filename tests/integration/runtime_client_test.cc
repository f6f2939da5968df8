// The OCI runtime client against the real crun and runc, as root, inside the runtime mount
// namespace (/sys/fs/cgroup showing the v1 pids hierarchy only on a v1 or hybrid machine, the
// unified tree on a cgroup v2 machine).
//
// unshare(CLONE_NEWNS) changes the calling process, so everything runs in a forked child: the
// test process's own mount namespace never changes. The child is a subreaper (the container's
// init is re-parented to it when the runtime exits, so it can wait for it by pid), reports each
// failed check on a pipe and exits. The parent turns the reports into gtest failures and then
// checks what must hold afterwards: no podlimits-test-<pid> cgroup left in the managed tree,
// nothing new in the memory hierarchy, its own /proc/self/mountinfo unchanged, no process of
// the test left. Cgroups are created only in /sys/fs/cgroup/pids, or on cgroup v2 the unified
// tree (by the runtimes, from cgroupsPath); a v1 memory hierarchy is never written.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cgroups/detect.h"
#include "cgroups/hierarchies.h"
#include "cri/oci_runtime.h"
#include "cri/process_limits.h"
#include "cri/runtime_mount_namespace.h"

namespace podlimits::cri {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kPidsRoot = "/sys/fs/cgroup/pids";
const fs::path kUnifiedRoot = "/sys/fs/cgroup";

// True on a cgroup v2 machine: the pids controller is the unified tree's.
bool UnifiedOnly() { return fs::exists(kUnifiedRoot / "cgroup.controllers"); }

// Where the runtimes create the test's cgroups: the v1 pids hierarchy, or the unified tree.
fs::path ManagedRoot() { return UnifiedOnly() ? kUnifiedRoot : kPidsRoot; }
const fs::path kMemoryRoot = "/sys/fs/cgroup/memory";
constexpr long kCgroup2Magic = 0x63677270;
constexpr long kTmpfsMagic = 0x01021994;

std::string ReadText(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Every directory below `root`, relative.
std::set<std::string> Directories(const fs::path& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_directory(ec2)) out.insert(it->path().lexically_relative(root).string());
  }
  return out;
}

// The memory hierarchy, minus the per-session cgroups the machine's own process manager
// (/process_api) creates and removes while other sessions come and go.
std::set<std::string> MemoryCgroups() {
  static const std::regex kSession("process_api/[0-9a-f]{32}");
  std::set<std::string> out;
  for (const auto& d : Directories(kMemoryRoot)) {
    if (!std::regex_match(d, kSession)) out.insert(d);
  }
  return out;
}

// The cgroup of `controller` in /proc/<pid>/cgroup text ("8:pids:/x" -> "/x"; on a cgroup v2
// machine the one "0::/x" line), or "?".
std::string CgroupOf(const std::string& text, const std::string& controller) {
  for (const std::string& line : Lines(text)) {
    if (UnifiedOnly() && line.starts_with("0::")) return line.substr(3);
    auto first = line.find(':');
    auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::istringstream names(line.substr(first + 1, second - first - 1));
    for (std::string name; std::getline(names, name, ',');) {
      if (name == controller) return line.substr(second + 1);
    }
  }
  return "?";
}

// ---- the forked child and its reports -----------------------------------------------------

// Writes the child's findings to the pipe as records "F|S <text>\n" (newlines in the text
// become \x1f), so the parent gets them even if the child dies later.
class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}
  void Fail(const std::string& message) {
    failed_ = true;
    Send('F', message);
  }
  void Skip(const std::string& message) { Send('S', message); }
  // Records a failure unless `ok`; returns `ok`.
  bool Check(bool ok, const std::string& message) {
    if (!ok) Fail(message);
    return ok;
  }
  bool failed() const { return failed_; }

 private:
  void Send(char kind, std::string text) {
    for (char& c : text) {
      if (c == '\n') c = '\x1f';
    }
    std::string record = std::string(1, kind) + " " + text + "\n";
    [[maybe_unused]] ssize_t n = write(fd_, record.data(), record.size());
  }
  int fd_;
  bool failed_ = false;
};

struct ChildOutcome {
  std::vector<std::string> failures;
  std::string skip;
};

// Runs `body` in a forked child that is a subreaper, and collects its reports. Past `limit`
// the child is killed (by its pid).
ChildOutcome RunInChild(const std::function<void(Reporter&)>& body,
                        std::chrono::seconds limit = 120s) {
  ChildOutcome outcome;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    outcome.failures.push_back("pipe2 failed");
    return outcome;
  }
  pid_t child = fork();
  if (child < 0) {
    outcome.failures.push_back("fork failed");
    return outcome;
  }
  if (child == 0) {
    close(p[0]);
    Reporter reporter(p[1]);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
      reporter.Fail("prctl(PR_SET_CHILD_SUBREAPER) failed");
    } else {
      body(reporter);
    }
    _exit(reporter.failed() ? 1 : 0);
  }
  close(p[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) {
      timed_out = true;
      break;
    }
    pollfd pfd{p[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    ssize_t n = read(p[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, n);
  }
  close(p[0]);
  if (timed_out) {
    kill(child, SIGKILL);
    outcome.failures.push_back("the test child did not finish within the time limit: killed");
  }
  int status = 0;
  waitpid(child, &status, 0);
  for (std::string line : Lines(text)) {
    for (char& c : line) {
      if (c == '\x1f') c = '\n';
    }
    if (line.starts_with("F ")) outcome.failures.push_back(line.substr(2));
    if (line.starts_with("S ")) outcome.skip = line.substr(2);
  }
  if (!timed_out && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) && outcome.failures.empty()) {
    outcome.failures.push_back("the test child ended with status " + std::to_string(status) +
                               " without reporting why");
  }
  return outcome;
}

// ---- in the child ------------------------------------------------------------------------

// Enters the runtime mount namespace for the managed hierarchies (default: pids).
bool EnterNamespace(Reporter& r, const std::vector<std::string>& controllers = {"pids"}) {
  auto layout = cgroups::DetectLayout();
  if (!layout) return r.Check(false, "DetectLayout: " + layout.error().Message());
  auto managed = cgroups::ManagedHierarchies(*layout, controllers);
  if (!managed) return r.Check(false, "ManagedHierarchies: " + managed.error().Message());
  auto entered = EnterRuntimeMountNamespace(*managed);
  return r.Check(entered.has_value(),
                 "EnterRuntimeMountNamespace: " + (entered ? "" : entered.error().Message()));
}

// The names in /sys/fs/cgroup and the cgroup mounts in mountinfo, as "TYPE MOUNTPOINT".
std::set<std::string> CgroupDirNames() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/fs/cgroup", ec)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

std::set<std::string> CgroupMounts() {
  std::set<std::string> out;
  auto entries = cgroups::ParseMountinfo(ReadText("/proc/self/mountinfo"));
  if (!entries) return {"unparsable mountinfo"};
  for (const auto& e : *entries) {
    if (e.fs_type == "cgroup" || e.fs_type == "cgroup2") {
      out.insert(e.fs_type + " " + e.mount_point.string());
    }
  }
  return out;
}

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return "{" + out + "}";
}

struct BundleSpec {
  std::string args;             // the shell command the container runs
  std::vector<Rlimit> rlimits;  // process.rlimits
  std::string cgroups_path;     // linux.cgroupsPath
  int pids_limit = 10;          // linux.resources.pids.limit
};

std::string ConfigJson(const BundleSpec& spec) {
  std::string rlimits;
  for (const auto& l : spec.rlimits) {
    rlimits += std::string(rlimits.empty() ? "" : ", ") + "{\"type\": \"" + l.type +
               "\", \"soft\": " + std::to_string(l.soft) + ", \"hard\": " + std::to_string(l.hard) +
               "}";
  }
  std::string escaped;
  for (char c : spec.args) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return R"({
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": {"uid": 0, "gid": 0},
    "args": ["/bin/sh", "-c", ")" +
         escaped + R"("],
    "env": ["PATH=/bin"],
    "cwd": "/",
    "capabilities": {
      "bounding": ["CAP_KILL"], "effective": ["CAP_KILL"], "permitted": ["CAP_KILL"]
    },
    "rlimits": [)" +
         rlimits + R"(],
    "noNewPrivileges": true
  },
  "root": {"path": "rootfs", "readonly": true},
  "hostname": "podlimits-test",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs",
     "options": ["nosuid", "noexec", "nodev", "ro"]},
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
     "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}
  ],
  "linux": {
    "cgroupsPath": ")" +
         spec.cgroups_path + R"(",
    "resources": {"pids": {"limit": )" +
         std::to_string(spec.pids_limit) + R"(}},
    "namespaces": [
      {"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"},
      {"type": "mount"}, {"type": "cgroup"}
    ]
  }
}
)";
}

// bundle/rootfs with busybox as /bin/sh, cat and sleep; bundle/config.json.
bool MakeBundle(Reporter& r, const fs::path& bundle, const BundleSpec& spec) {
  std::error_code ec;
  for (const char* dir : {"rootfs/bin", "rootfs/proc", "rootfs/dev", "rootfs/sys", "rootfs/tmp"}) {
    fs::create_directories(bundle / dir, ec);
    if (ec) return r.Check(false, "mkdir " + (bundle / dir).string() + ": " + ec.message());
  }
  fs::copy_file("/bin/busybox", bundle / "rootfs/bin/busybox", ec);
  if (ec) return r.Check(false, "copy /bin/busybox: " + ec.message());
  for (const char* applet : {"sh", "cat", "sleep"}) {
    fs::create_symlink("busybox", bundle / "rootfs/bin" / applet, ec);
    if (ec) return r.Check(false, std::string("symlink ") + applet + ": " + ec.message());
  }
  std::ofstream(bundle / "config.json") << ConfigJson(spec);
  return true;
}

// Reads `fd` until end of file (every holder of the write end closed it) or until `until`
// appears; false on timeout.
bool ReadOutput(int fd, std::string& into, std::chrono::seconds limit,
                const std::string& until = "") {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (!until.empty() && into.find(until) != std::string::npos) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) return false;
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return until.empty();
    into.append(buf, n);
  }
}

// Waits for the container's init, re-parented to this subreaper; SIGKILLs it past the limit.
int WaitExit(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(5ms);
  }
  return status;
}

// The "Max open files" row of /proc/self/limits text, as {soft, hard}.
std::vector<std::string> NofileRow(const std::string& output) {
  for (const auto& line : Lines(output)) {
    auto w = Words(line);
    if (w.size() >= 5 && w[0] == "Max" && w[1] == "open" && w[2] == "files") {
      return {w[3], w[4]};
    }
  }
  return {};
}

std::string NofileText(const std::vector<ProcessLimit>& limits) {
  for (const auto& l : limits) {
    if (l.type == "RLIMIT_NOFILE") return std::to_string(l.soft) + "/" + std::to_string(l.hard);
  }
  return "none";
}

// Whatever the runtime and the test made for one container: deleted, killed (by its pid, it is
// the test's), its cgroups removed deepest first.
struct ContainerCleanup {
  OciRuntimeClient* client;
  std::string id;
  pid_t pid = 0;
  std::vector<fs::path> cgroups;  // deepest first
  Reporter* r;
  ~ContainerCleanup() {
    if (auto d = client->Delete(id); !d) r->Fail("cleanup: " + d.error().Message());
    if (pid > 0 && kill(pid, 0) == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    for (const auto& cg : cgroups) {
      if (rmdir(cg.c_str()) != 0 && errno != ENOENT) {
        r->Fail("cleanup: rmdir " + cg.string() + ": " + std::strerror(errno));
      }
    }
  }
};

struct Scratch {
  fs::path dir;        // the parent's temp dir
  std::string cgroup;  // "podlimits-test-<parent pid>"
};

// Create -> checks -> Start -> wait -> State/Delete for one runtime, in the runtime namespace.
void Lifecycle(Reporter& r, RuntimeKind kind, const fs::path& binary, const Scratch& s) {
  if (!EnterNamespace(r)) return;
  const std::string id = std::string(kind == RuntimeKind::kCrun ? "crun" : "runc") + "-life";
  BundleSpec spec;
  spec.args = "cat /proc/self/limits; cat /proc/self/cgroup";
  spec.rlimits = {{"RLIMIT_NOFILE", 256, 512}};
  spec.cgroups_path = "/" + s.cgroup + "/c1";
  const fs::path bundle = s.dir / id;
  if (!MakeBundle(r, bundle, spec)) return;
  OciRuntimeClient client(kind, binary, s.dir / "state");
  client.timeout = 30s;
  const fs::path parent_cg = ManagedRoot() / s.cgroup, leaf_cg = parent_cg / "c1";
  ContainerCleanup cleanup{&client, id, 0, {leaf_cg, parent_cg}, &r};

  int out[2];
  if (!r.Check(pipe2(out, O_CLOEXEC) == 0, "pipe2")) return;
  auto pid = client.Create(id, bundle, {-1, out[1], out[1]});
  close(out[1]);
  if (!pid && kind == RuntimeKind::kRunc &&
      pid.error().Message().find("mountpoint for devices not found") != std::string::npos) {
    // runc 1.1.5's v1 cgroup manager insists on the devices hierarchy, which podlimits must not
    // use here. The failure itself must be clean and well-worded.
    r.Check(pid.error().Message() ==
                "runc create " + id + ": runc create failed: mountpoint for devices not found",
            "runc's create error: " + pid.error().Message());
    r.Check(!fs::exists(s.dir / "state" / id), "runc left state for " + id);
    r.Check(!fs::exists(parent_cg), "runc left " + parent_cg.string());
    r.Check(!client.State(id).has_value(), "State of the failed container succeeded");
    // That clean refusal is what this test checks on such a node; runc's lifecycle itself is
    // checked on cgroup v2 by the e2e test runc-bare.
    close(out[0]);
    return;
  }
  if (!r.Check(pid.has_value(), "Create: " + (pid ? "" : pid.error().Message()))) {
    close(out[0]);
    return;
  }
  cleanup.pid = *pid;
  r.Check(kill(*pid, 0) == 0, "the container's init " + std::to_string(*pid) + " does not exist");

  // Before start: the rlimits, the cgroups (seen from outside the container's cgroupns).
  auto limits = ReadProcessLimits(*pid);
  if (r.Check(limits.has_value(),
              "ReadProcessLimits: " + (limits ? "" : limits.error().Message()))) {
    r.Check(NofileText(*limits) == "256/512", "RLIMIT_NOFILE after create: " + NofileText(*limits));
  }
  const std::string theirs = ReadText("/proc/" + std::to_string(*pid) + "/cgroup");
  const std::string ours = ReadText("/proc/self/cgroup");
  r.Check(CgroupOf(theirs, "pids") == "/" + s.cgroup + "/c1",
          "the container's pids cgroup: " + CgroupOf(theirs, "pids"));
  for (const char* other : {"memory", "cpu", "cpuset", "devices", "freezer", "blkio"}) {
    if (UnifiedOnly()) break;  // one tree: nothing else to stay in
    r.Check(CgroupOf(theirs, other) == CgroupOf(ours, other),
            std::string("the container moved in the ") + other + " hierarchy: " +
                CgroupOf(theirs, other) + " (the test is in " + CgroupOf(ours, other) + ")");
  }
  r.Check(ReadText(leaf_cg / "pids.max") == std::to_string(spec.pids_limit) + "\n",
          "pids.max of " + leaf_cg.string() + ": " + ReadText(leaf_cg / "pids.max"));
  auto state = client.State(id);
  if (r.Check(state.has_value(), "State after create: " + (state ? "" : state.error().Message()))) {
    r.Check(state->status == "created" && state->pid == *pid && state->id == id,
            "State after create: " + state->status + " pid " + std::to_string(state->pid));
  }

  auto started = client.Start(id);
  r.Check(started.has_value(), "Start: " + (started ? "" : started.error().Message()));
  std::string output;
  r.Check(ReadOutput(out[0], output, 30s), "no end of output within 30 s: " + output);
  close(out[0]);
  int status = WaitExit(*pid, 30s);
  cleanup.pid = 0;
  r.Check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the container ended with status " + std::to_string(status) + ", output: " + output);

  // What the container saw: its rlimits, and its pids cgroup as its cgroup namespace's root.
  r.Check(NofileRow(output) == std::vector<std::string>{"256", "512"},
          "Max open files inside the container:\n" + output);
  r.Check(CgroupOf(output, "pids") == "/", "pids cgroup inside the container:\n" + output);

  state = client.State(id);
  if (r.Check(state.has_value(), "State after exit: " + (state ? "" : state.error().Message()))) {
    r.Check(state->status == "stopped", "State after exit: " + state->status);
  }
  auto killed = client.Kill(id, SIGKILL);
  r.Check(killed.has_value(),
          "Kill of a stopped container: " + (killed ? "" : killed.error().Message()));
  auto deleted = client.Delete(id);
  r.Check(deleted.has_value(), "Delete: " + (deleted ? "" : deleted.error().Message()));
  r.Check(!client.State(id).has_value(), "State after Delete succeeded");
  r.Check(client.Delete(id).has_value(), "Delete of a deleted container failed");
  r.Check(client.Kill(id, SIGKILL).has_value(), "Kill of a deleted container failed");
  // `delete` removes the container's own cgroup; the parent the runtime made is left to us.
  r.Check(!fs::exists(leaf_cg), leaf_cg.string() + " survived delete");
}

// A container without rlimits: NOFILE corrected with prlimit before start, then killed.
void Correction(Reporter& r, const fs::path& binary, const Scratch& s) {
  if (!EnterNamespace(r)) return;
  const std::string id = "crun-correct";
  BundleSpec spec;
  spec.args = "cat /proc/self/limits; echo ready; exec sleep 60";
  spec.cgroups_path = "/" + s.cgroup + "/c2";
  const fs::path bundle = s.dir / id;
  if (!MakeBundle(r, bundle, spec)) return;
  OciRuntimeClient client(RuntimeKind::kCrun, binary, s.dir / "state");
  const fs::path parent_cg = ManagedRoot() / s.cgroup, leaf_cg = parent_cg / "c2";
  ContainerCleanup cleanup{&client, id, 0, {leaf_cg, parent_cg}, &r};

  int out[2];
  if (!r.Check(pipe2(out, O_CLOEXEC) == 0, "pipe2")) return;
  auto pid = client.Create(id, bundle, {-1, out[1], out[1]});
  close(out[1]);
  if (!r.Check(pid.has_value(), "Create: " + (pid ? "" : pid.error().Message()))) {
    close(out[0]);
    return;
  }
  cleanup.pid = *pid;
  auto before = ReadProcessLimits(*pid);
  if (!r.Check(before.has_value(),
               "ReadProcessLimits: " + (before ? "" : before.error().Message()))) {
    close(out[0]);
    return;
  }
  const Rlimit wanted{"RLIMIT_NOFILE", 300, 400};
  auto corrections = CorrectProcessLimits(*pid, {wanted});
  if (r.Check(corrections.has_value(),
              "CorrectProcessLimits: " + (corrections ? "" : corrections.error().Message()))) {
    r.Check(corrections->size() == 1 && (*corrections)[0].wanted == wanted,
            "corrections: " + std::to_string(corrections->size()));
    r.Check(corrections->size() == 1 && std::to_string((*corrections)[0].found_soft) + "/" +
                                                std::to_string((*corrections)[0].found_hard) ==
                                            NofileText(*before),
            "the correction's found values differ from " + NofileText(*before));
  }
  auto again = CorrectProcessLimits(*pid, {wanted});
  r.Check(again && again->empty(), "a second correction was not a no-op");

  auto started = client.Start(id);
  r.Check(started.has_value(), "Start: " + (started ? "" : started.error().Message()));
  std::string output;
  r.Check(ReadOutput(out[0], output, 30s, "ready\n"), "no \"ready\" within 30 s: " + output);
  r.Check(NofileRow(output) == std::vector<std::string>{"300", "400"},
          "Max open files inside the container:\n" + output);

  // A running container is killed through the runtime (a numeric signal), then it is stopped.
  auto killed = client.Kill(id, SIGKILL);
  r.Check(killed.has_value(), "Kill: " + (killed ? "" : killed.error().Message()));
  int status = WaitExit(*pid, 30s);
  cleanup.pid = 0;
  close(out[0]);
  r.Check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
          "the killed container ended with status " + std::to_string(status));
  auto state = client.State(id);
  r.Check(state && state->status == "stopped",
          "State after the kill: " + (state ? state->status : state.error().Message()));
  auto again_killed = client.Kill(id, SIGKILL, /*all=*/true);
  r.Check(again_killed.has_value(),
          "Kill of the stopped container: " + (again_killed ? "" : again_killed.error().Message()));
}

// ---- the parent's fixture ----------------------------------------------------------------

class RuntimeClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root";
    ASSERT_TRUE(fs::exists(ManagedRoot() / "cgroup.procs"))
        << "neither the cgroup v1 pids hierarchy nor a cgroup v2 tree at /sys/fs/cgroup";
    if (!fs::exists("/bin/busybox")) GTEST_SKIP() << "needs /bin/busybox (busybox-static)";
    std::string pattern = (fs::temp_directory_path() / "podlimits-rtclient-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    scratch_.dir = pattern;
    scratch_.cgroup = "podlimits-test-" + std::to_string(getpid());
    memory_before_ = MemoryCgroups();
    mountinfo_before_ = ReadText("/proc/self/mountinfo");
  }

  void TearDown() override {
    if (scratch_.dir.empty()) return;
    // Anything a failed child left: its processes (the test's own, killed by pid), then the
    // cgroups deepest first.
    const fs::path mine = ManagedRoot() / scratch_.cgroup;
    if (fs::exists(mine)) {
      ADD_FAILURE() << mine << " was left behind";
      std::vector<fs::path> dirs;
      for (const auto& d : Directories(mine)) dirs.push_back(mine / d);
      std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
        return a.string().size() > b.string().size();
      });
      dirs.push_back(mine);
      for (const auto& d : dirs) {
        for (const auto& line : Lines(ReadText(d / "cgroup.procs"))) {
          if (!line.empty()) kill(std::stoi(line), SIGKILL);
        }
      }
      std::this_thread::sleep_for(200ms);
      for (const auto& d : dirs) rmdir(d.c_str());
    }
    for (const auto& d : Directories(ManagedRoot())) {
      EXPECT_FALSE(d.starts_with(scratch_.cgroup)) << "left in the managed tree: " << d;
    }
    EXPECT_EQ(MemoryCgroups(), memory_before_) << "the memory hierarchy changed";
    EXPECT_EQ(ReadText("/proc/self/mountinfo"), mountinfo_before_)
        << "the test process's mount table changed";
    std::error_code ec;
    fs::remove_all(scratch_.dir, ec);
    EXPECT_FALSE(ec) << "remove " << scratch_.dir << ": " << ec.message();
  }

  void Report(const ChildOutcome& outcome) {
    for (const auto& f : outcome.failures) ADD_FAILURE() << f;
    if (!outcome.skip.empty() && outcome.failures.empty()) GTEST_SKIP() << outcome.skip;
  }

  Scratch scratch_;
  std::set<std::string> memory_before_;
  std::string mountinfo_before_;
};

TEST_F(RuntimeClientTest, MountNamespaceShowsOnlyThePidsHierarchy) {
  const std::string host_mountinfo = ReadText("/proc/self/mountinfo");
  Report(RunInChild([&](Reporter& r) {
    if (!EnterNamespace(r)) return;
    if (UnifiedOnly()) {
      // cgroup v2: the runtime sees the unified tree as the host mounts it, nothing else.
      r.Check(CgroupMounts() == std::set<std::string>{"cgroup2 /sys/fs/cgroup"},
              "cgroup mounts in the namespace: " + Join(CgroupMounts()));
      struct statfs st;
      r.Check(statfs("/sys/fs/cgroup", &st) == 0 && st.f_type == kCgroup2Magic,
              "/sys/fs/cgroup is not cgroup2");
      return;
    }
    r.Check(CgroupDirNames() == std::set<std::string>{"pids"},
            "/sys/fs/cgroup holds " + Join(CgroupDirNames()));
    r.Check(CgroupMounts() == std::set<std::string>{"cgroup /sys/fs/cgroup/pids"},
            "cgroup mounts in the namespace: " + Join(CgroupMounts()));
    struct statfs st;
    r.Check(statfs("/sys/fs/cgroup", &st) == 0 && st.f_type == kTmpfsMagic,
            "/sys/fs/cgroup is not a tmpfs");
    r.Check(fs::exists(kPidsRoot / "pids.max") == false && fs::exists(kPidsRoot / "cgroup.procs"),
            "/sys/fs/cgroup/pids is not the pids hierarchy's root");
    r.Check(ReadText("/proc/self/mountinfo") != host_mountinfo, "the mount table did not change");
  }));
}

// A cgroup2 mount among the managed hierarchies (pids in cgroup2 on a hybrid node whose pids
// controller is bound to no v1 hierarchy) is shown to the runtime as the host has it. This
// machine binds pids to v1, so the test hands the namespace the cgroup2 mount itself; nothing is
// created there.
TEST_F(RuntimeClientTest, MountNamespaceKeepsAManagedCgroup2MountAsTheHostHasIt) {
  auto layout = cgroups::DetectLayout();
  ASSERT_TRUE(layout) << layout.error().Message();
  if (layout->mode == cgroups::CgroupMode::kV2 && layout->unified) {
    // cgroup v2: the namespace's /sys/fs/cgroup is the host's mount itself, so its superblock
    // options (nsdelegate above all) are the host's.
    std::string host_options;
    for (const auto& o : layout->unified->super_options) host_options += o + ",";
    Report(RunInChild([&](Reporter& r) {
      if (!EnterNamespace(r)) return;
      auto inside = cgroups::DetectLayout();
      if (!r.Check(inside.has_value() && inside->unified.has_value(), "no cgroup2 inside")) return;
      std::string options;
      for (const auto& o : inside->unified->super_options) options += o + ",";
      r.Check(options == host_options,
              "cgroup2 options inside: " + options + " (the host's: " + host_options + ")");
    }));
    return;
  }
  if (!layout->unified) {
    // A v1 machine without any cgroup2 mount: none appears in the namespace either.
    Report(RunInChild([&](Reporter& r) {
      if (!EnterNamespace(r)) return;
      for (const auto& m : CgroupMounts()) {
        r.Check(!m.starts_with("cgroup2 "), "a cgroup2 mount in the namespace: " + m);
      }
    }));
    return;
  }
  const std::string unified = layout->unified->mount_point.string();
  std::string host_options;
  for (const auto& o : layout->unified->super_options) host_options += o + ",";
  Report(RunInChild([&](Reporter& r) {
    auto managed = cgroups::ManagedHierarchies(*layout);
    if (!r.Check(managed.has_value(), "ManagedHierarchies")) return;
    managed->push_back({cgroups::CgroupVersion::kV2,
                        {},
                        cgroups::CgroupTree::OnCgroupfs(layout->unified->mount_point)});
    auto entered = EnterRuntimeMountNamespace(*managed);
    if (!r.Check(entered.has_value(),
                 "EnterRuntimeMountNamespace: " + (entered ? "" : entered.error().Message()))) {
      return;
    }
    const std::string name = fs::path(unified).filename().string();
    r.Check(CgroupDirNames() == std::set<std::string>{"pids", name},
            "/sys/fs/cgroup holds " + Join(CgroupDirNames()));
    r.Check(
        CgroupMounts() == std::set<std::string>{"cgroup /sys/fs/cgroup/pids", "cgroup2 " + unified},
        "cgroup mounts in the namespace: " + Join(CgroupMounts()));
    struct statfs st;
    r.Check(statfs(unified.c_str(), &st) == 0 && st.f_type == kCgroup2Magic,
            unified + " is not cgroup2");
  }));
  // The host's cgroup2 superblock options are untouched (a fresh mount would have reset them).
  auto after = cgroups::DetectLayout();
  ASSERT_TRUE(after) << after.error().Message();
  std::string options;
  for (const auto& o : after->unified->super_options) options += o + ",";
  EXPECT_EQ(options, host_options);
}

TEST_F(RuntimeClientTest, CrunLifecycle) {
  if (!fs::exists("/usr/bin/crun")) GTEST_SKIP() << "needs /usr/bin/crun";
  Report(RunInChild(
      [&](Reporter& r) { Lifecycle(r, RuntimeKind::kCrun, "/usr/bin/crun", scratch_); }));
}

// On a v1/hybrid node without the devices hierarchy in view (this project's machines), runc
// refuses at create; the test then checks that refusal is clean (message, no state, no cgroup).
TEST_F(RuntimeClientTest, RuncLifecycleOrCleanRefusalWithoutDevicesHierarchy) {
  if (!fs::exists("/usr/bin/runc")) GTEST_SKIP() << "needs /usr/bin/runc";
  Report(RunInChild(
      [&](Reporter& r) { Lifecycle(r, RuntimeKind::kRunc, "/usr/bin/runc", scratch_); }));
}

TEST_F(RuntimeClientTest, CorrectProcessLimitsBeforeStart) {
  if (!fs::exists("/usr/bin/crun")) GTEST_SKIP() << "needs /usr/bin/crun";
  Report(RunInChild([&](Reporter& r) { Correction(r, "/usr/bin/crun", scratch_); }));
}

}  // namespace
}  // namespace podlimits::cri
