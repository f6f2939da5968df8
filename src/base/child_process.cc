#include "base/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "base/child_reaper.h"
#include "base/fs.h"
#include "base/error.h"

namespace podlimits {
namespace {

using Fd = UniqueFd;

constexpr std::size_t kMaxCaptured = 1 << 20;

std::string Errno(int e) {
  return std::strerror(e);
}

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// Reads what is available without blocking; closes `fd` at end of file. Past kMaxCaptured the
// bytes are read and dropped, so a chatty program never blocks on a full pipe.
void Drain(Fd& fd, std::string& into) {
  char buf[16384];
  while (fd) {
    ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      std::size_t keep = std::min<std::size_t>(static_cast<std::size_t>(n),
                                               kMaxCaptured - std::min(kMaxCaptured, into.size()));
      into.append(buf, keep);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    fd.Reset();  // end of file, or an error that will not go away
  }
}

pid_t WaitBlocking(pid_t pid, int* status) {
  for (;;) {
    pid_t r = waitpid(pid, status, 0);
    if (r >= 0 || errno != EINTR) return r;
  }
}

// Kills the child's process group (the program and anything it forked) and reaps the child.
// The group id is the child's pid, which cannot be reused while the child is unreaped.
void KillAndReap(pid_t pid, int* status) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  WaitBlocking(pid, status);
}

Result<ChildResult> Wait(pid_t pid, Fd out, Fd err, std::chrono::milliseconds timeout) {
  ChildResult result;
  result.pid = pid;
  // A pidfd makes the exit pollable together with the pipes. Without one (kernels before 5.3)
  // the loop polls waitpid every few milliseconds instead.
  Fd pidfd = OpenPidfd(pid);
  const bool limited = timeout.count() > 0;
  const auto deadline = limited ? std::chrono::steady_clock::now() + timeout
                                : std::chrono::steady_clock::time_point::max();
  int status = 0;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (limited && now >= deadline) {
      KillAndReap(pid, &status);
      result.timed_out = true;
      break;
    }
    int wait_ms = -1;
    if (limited) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
      wait_ms = static_cast<int>(std::min<long long>(left, INT_MAX));
    }
    if (!pidfd) wait_ms = wait_ms < 0 ? 5 : std::min(wait_ms, 5);

    pollfd fds[3];
    nfds_t n = 0;
    for (const Fd* fd : {&pidfd, &out, &err}) {
      if (*fd) fds[n++] = {fd->get(), POLLIN, 0};
    }
    if (poll(fds, n, wait_ms) < 0 && errno != EINTR) {
      int e = errno;
      KillAndReap(pid, &status);
      return Failure(fmt::format("poll for pid {}: {}", pid, Errno(e)));
    }
    Drain(out, result.out);
    Drain(err, result.err);
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      int e = errno;
      KillAndReap(pid, &status);
      return Failure(fmt::format("waitpid {}: {}", pid, Errno(e)));
    }
  }
  // Whatever the program wrote before it exited is in the pipes now. A process it left behind
  // may still hold them open: it is not waited for.
  Drain(out, result.out);
  Drain(err, result.err);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace

std::string ChildResult::Describe(std::chrono::milliseconds timeout) const {
  if (timed_out) return fmt::format("timed out after {} ms", timeout.count());
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

namespace {

// The child's 0, 1 and 2 as RunChild and StartChild give them: `pipe_*` receive the read ends
// of captured streams.
struct ChildStdio {
  Fd devnull;
  Fd out_read, out_write, err_read, err_write;
  int sources[3] = {-1, -1, -1};
};

Result<void> OpenStdio(const ChildCommand& command, ChildStdio& stdio) {
  auto open_pipe = [](Fd& read_end, Fd& write_end) -> Result<void> {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return Failure(fmt::format("pipe: {}", Errno(errno)));
    read_end.Reset(p[0]);
    write_end.Reset(p[1]);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    return {};
  };
  auto source = [&](int fd, Fd& read_end, Fd& write_end) -> Result<int> {
    if (fd == ChildCommand::kCapture) {
      if (auto ok = open_pipe(read_end, write_end); !ok) return std::unexpected(ok.error());
      return write_end.get();
    }
    if (fd >= 0) return fd;
    if (!stdio.devnull) {
      stdio.devnull.Reset(open("/dev/null", O_RDWR | O_CLOEXEC));
      if (!stdio.devnull) return Failure(fmt::format("open \"/dev/null\": {}", Errno(errno)));
    }
    return stdio.devnull.get();
  };
  Fd unused_read, unused_write;  // stdin is never captured
  auto in =
      source(command.stdin_fd == ChildCommand::kCapture ? ChildCommand::kDevNull : command.stdin_fd,
             unused_read, unused_write);
  if (!in) return std::unexpected(in.error());
  auto out = source(command.stdout_fd, stdio.out_read, stdio.out_write);
  if (!out) return std::unexpected(out.error());
  auto err = source(command.stderr_fd, stdio.err_read, stdio.err_write);
  if (!err) return std::unexpected(err.error());
  stdio.sources[0] = *in;
  stdio.sources[1] = *out;
  stdio.sources[2] = *err;
  return {};
}

// Spawns the command with `stdio.sources` as its 0, 1 and 2, owned by the process's
// ChildReaper (`owned`) or not; the parent's copies of the write ends are closed.
Result<pid_t> Spawn(const ChildCommand& command, ChildStdio& stdio, bool owned) {
  const std::string& program = command.argv[0];
  // Every source is first copied above 2: a dup2 onto its own number would keep the
  // close-on-exec flag, and a source that is itself 0, 1 or 2 must not be overwritten before it
  // is copied to its target.
  Fd copies[3];
  SpawnSetup setup;
  for (int target = 0; target < 3; ++target) {
    copies[target].Reset(fcntl(stdio.sources[target], F_DUPFD_CLOEXEC, 3));
    if (!copies[target]) {
      return Failure(
          fmt::format("dup fd {} for {}: {}", stdio.sources[target], program, Errno(errno)));
    }
    posix_spawn_file_actions_adddup2(&setup.actions, copies[target].get(), target);
  }
  // Belt and braces: a descriptor some library opened without O_CLOEXEC never reaches the
  // runtime (and, through it, the container).
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);

  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (command.new_session) {
    flags |= POSIX_SPAWN_SETSID;
  } else {
    posix_spawnattr_setpgroup(&setup.attr, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&setup.attr, flags);

  std::vector<char*> argv;
  argv.reserve(command.argv.size() + 1);
  for (const std::string& a : command.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  std::vector<char*> envp;
  if (command.env) {
    envp.reserve(command.env->size() + 1);
    for (const std::string& e : *command.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  char** const environment = command.env ? envp.data() : environ;

  pid_t pid = 0;
  int rc = 0;
  auto spawn = [&] {
    rc = posix_spawn(&pid, program.c_str(), &setup.actions, &setup.attr, argv.data(), environment);
    return rc == 0 ? pid : -1;
  };
  // Owned from birth: another thread's ChildReaper::ReapOrphans must not reap it first.
  if (owned) {
    ChildReaper::Process().SpawnOwned(spawn);
  } else {
    spawn();
  }
  // The child has its copies; the write ends must close here or the pipes never reach EOF.
  for (Fd& c : copies) c.Reset();
  stdio.out_write.Reset();
  stdio.err_write.Reset();
  stdio.devnull.Reset();
  if (rc != 0) return SystemError("posix_spawn", program, rc);
  return pid;
}

}  // namespace

Result<ChildResult> RunChild(const ChildCommand& command) {
  if (command.argv.empty()) return Failure("run: empty command line");
  ChildStdio stdio;
  if (auto opened = OpenStdio(command, stdio); !opened) return std::unexpected(opened.error());
  auto pid = Spawn(command, stdio, /*owned=*/true);
  if (!pid) return std::unexpected(pid.error());
  auto result = Wait(*pid, std::move(stdio.out_read), std::move(stdio.err_read), command.timeout);
  ChildReaper::Process().Release(*pid);
  return result;
}

Result<pid_t> StartChild(const ChildCommand& command) {
  if (command.argv.empty()) return Failure("run: empty command line");
  if (command.stdout_fd == ChildCommand::kCapture || command.stderr_fd == ChildCommand::kCapture) {
    return Failure("start " + command.argv[0] + ": output is captured only by RunChild");
  }
  ChildStdio stdio;
  if (auto opened = OpenStdio(command, stdio); !opened) return std::unexpected(opened.error());
  return Spawn(command, stdio, /*owned=*/false);
}

}  // namespace podlimits
