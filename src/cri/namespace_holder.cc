#include "cri/namespace_holder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <linux/close_range.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/child_reaper.h"
#include "base/unique_fd.h"

namespace podlimits::cri {
namespace {

constexpr uid_t kHolderId = 65535;  // the pause image's user and group

// What the child failed at, sent to the parent before it exits.
struct ChildFailure {
  int step = 0;
  int error = 0;
  int index = 0;  // the sysctl, for step 10
};

constexpr const char* kSteps[] = {
    "join its cgroup",
    "unshare its cgroup namespace",
    "make its mounts private",
    "set the hostname",
    "bring loopback up",
    "enter its root",
    "redirect stdio",
    "drop to 65535:65535",
    "set no_new_privs",
    "execute the holder",
    "set sysctl",
};

// In the child: only system calls from here on (the parent has threads).
[[noreturn]] void Fail(int report_fd, int step, int index = 0) {
  ChildFailure f{step, errno, index};
  (void)!write(report_fd, &f, sizeof f);
  _exit(127);
}

// What the child needs, made before the clone: it may not allocate.
struct ChildArgs {
  const HolderRequest* request;
  const int* cgroup_fds;  // its cgroups' cgroup.procs, open for writing
  std::size_t cgroup_count;
  int report_fd, binary_fd, root_fd, devnull_fd;
  char* const* argv;
  char* const* envp;
};

// The child: it shares the parent's memory until it executes the holder (the parent waits,
// as for vfork), so it runs on a stack of its own and makes only system calls.
[[noreturn]] void RunChild(const ChildArgs& a) {
  const HolderRequest& r = *a.request;
  const int report_fd = a.report_fd;
  // The signal mask blocked around the clone and the ignored signals would survive the exec.
  sigset_t none;
  sigemptyset(&none);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &dfl, nullptr);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Into its cgroups before it runs anything ("0": the writer itself).
  for (std::size_t i = 0; i < a.cgroup_count; ++i) {
    if (write(a.cgroup_fds[i], "0", 1) != 1) Fail(report_fd, 0, static_cast<int>(i));
  }
  // In its cgroup now: a cgroup namespace rooted there.
  if (unshare(CLONE_NEWCGROUP) != 0) Fail(report_fd, 1);
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) Fail(report_fd, 2);
  if (!r.host_network) {
    if (sethostname(r.hostname.data(), r.hostname.size()) != 0) Fail(report_fd, 3);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) Fail(report_fd, 4);
    struct ifreq ifr {};
    std::memcpy(ifr.ifr_name, "lo", 3);
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) Fail(report_fd, 4);
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP | IFF_RUNNING);
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) Fail(report_fd, 4);
    close(s);
  }
  // The pod's sysctls, in the namespaces just made (the /proc/sys view is the writer's).
  for (std::size_t i = 0; i < r.sysctls.size(); ++i) {
    int fd = open(r.sysctls[i].first.c_str(), O_WRONLY | O_CLOEXEC);
    const std::string& value = r.sysctls[i].second;
    if (fd < 0 || write(fd, value.data(), value.size()) < 0) {
      Fail(report_fd, 10, static_cast<int>(i));
    }
    close(fd);
  }
  if (fchdir(a.root_fd) != 0 || chroot(".") != 0 || chdir("/") != 0) Fail(report_fd, 5);
  if (dup2(a.devnull_fd, 0) < 0 || dup2(a.devnull_fd, 1) < 0 || dup2(a.devnull_fd, 2) < 0) {
    Fail(report_fd, 6);
  }
  // Raw system calls: glibc's set*id wrappers synchronise every thread the parent has (the
  // setxid broadcast), which would change the parent's ids, not this process's.
  const gid_t gid = kHolderId;
  if (syscall(SYS_setgroups, 1, &gid) != 0 || syscall(SYS_setresgid, gid, gid, gid) != 0 ||
      syscall(SYS_setresuid, kHolderId, kHolderId, kHolderId) != 0) {
    Fail(report_fd, 7);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail(report_fd, 8);
  // Whatever descriptors of podlimits this child inherited close at exec.
  syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  syscall(SYS_execveat, a.binary_fd, "", a.argv, a.envp, AT_EMPTY_PATH);
  Fail(report_fd, 9);
}

int ChildMain(void* args) {
  RunChild(*static_cast<const ChildArgs*>(args));
}

// The child's stack: enough for RunChild's few frames and the system call wrappers.
constexpr std::size_t kChildStack = 64 * 1024;

}  // namespace

Result<pid_t> StartNamespaceHolder(const HolderRequest& r) {
  UniqueFd binary(open(r.binary.c_str(), O_RDONLY | O_CLOEXEC));
  if (!binary) return SystemError("open the pod sandbox's holder", r.binary, errno);
  UniqueFd root(open(r.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root) return SystemError("open the pod sandbox's root", r.root, errno);
  UniqueFd devnull(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!devnull) return SystemError("open", "/dev/null", errno);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return SystemError("pipe", {}, errno);
  UniqueFd report_read(report[0]), report_write(report[1]);
  std::vector<UniqueFd> cgroup_files;
  std::vector<int> cgroup_fds;
  for (const auto& procs : r.cgroup_procs) {
    UniqueFd fd(open(procs.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) return SystemError("open", procs, errno, "to move the pod sandbox's holder there");
    cgroup_fds.push_back(fd.get());
    cgroup_files.push_back(std::move(fd));
  }

  // Everything the child uses is ready before the clone: it may not allocate.
  std::string arg0 = r.binary.filename().string(), arg1 = "-P";
  char* const argv[] = {arg0.data(), arg1.data(), nullptr};
  std::string path = "PATH=/";
  char* const envp[] = {path.data(), nullptr};
  ChildArgs args{&r,           cgroup_fds.data(), cgroup_fds.size(), report_write.get(),
                 binary.get(), root.get(),        devnull.get(),     argv,
                 envp};
  void* stack = mmap(nullptr, kChildStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return SystemError("mmap", {}, errno, "the holder's stack");
  struct Unmap {
    void* p;
    ~Unmap() { munmap(p, kChildStack); }
  } unmap{stack};

  // vfork's way, with the namespaces: the child shares this memory and the parent waits until
  // it has executed the holder or failed, so nothing is copied (a fork of this process copied
  // its page tables, most of a millisecond) and nothing can change under it.
  int flags = CLONE_VM | CLONE_VFORK | CLONE_NEWNS | SIGCHLD;
  if (!r.host_pid) flags |= CLONE_NEWPID;
  if (!r.host_ipc) flags |= CLONE_NEWIPC;
  if (!r.host_network) flags |= CLONE_NEWNET | CLONE_NEWUTS;
  // No signal handler may run in the child on this process's memory.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  int clone_errno = 0;
  const pid_t pid = ChildReaper::Process().SpawnOwned([&]() -> pid_t {
    const pid_t child = clone(ChildMain, static_cast<char*>(stack) + kChildStack, flags, &args);
    clone_errno = errno;
    return child;
  });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    return SystemError("clone the pod sandbox's holder", {}, clone_errno,
                       "with new mount, PID, IPC, network and UTS namespaces as the pod needs");
  }
  auto kill_and_reap = [&]() { ChildReaper::Process().KillAndReap(pid); };
  report_write.Reset();

  // End of file: the exec happened (the report pipe is close-on-exec). Anything else is the
  // step that failed.
  ChildFailure failure;
  ssize_t n;
  while ((n = read(report_read.get(), &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  if (n == 0) return pid;
  kill_and_reap();
  if (n != static_cast<ssize_t>(sizeof failure) || failure.step < 0 ||
      failure.step >= static_cast<int>(std::size(kSteps))) {
    return Failure("start the pod sandbox's holder", r.binary, "it exited before running");
  }
  if (failure.step == 0 && failure.index >= 0 &&
      static_cast<std::size_t>(failure.index) < r.cgroup_procs.size()) {
    return SystemError("move the pod sandbox's holder into", r.cgroup_procs[failure.index],
                       failure.error);
  }
  if (failure.step == 10 && failure.index >= 0 &&
      static_cast<std::size_t>(failure.index) < r.sysctls.size()) {
    return SystemError("pod sandbox's holder: set sysctl", r.sysctls[failure.index].first,
                       failure.error, fmt::format("to \"{}\"", r.sysctls[failure.index].second));
  }
  return SystemError(fmt::format("pod sandbox's holder: {}", kSteps[failure.step]), r.binary,
                     failure.error);
}

std::string HolderNamespacePath(pid_t holder_pid, std::string_view type) {
  return fmt::format("/proc/{}/ns/{}", holder_pid, type == "network" ? "net" : type);
}

}  // namespace podlimits::cri
