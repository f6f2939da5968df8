// RunChild: what reaches the program (only fds 0-2, default signals), what comes back (stdout,
// stderr, exit status), the time limit, and that exactly the spawned child is reaped. StartChild:
// the same start, in a session of its own when asked, left to the caller to wait for.
#include "base/child_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace podlimits::kubelet {
namespace {

using namespace std::chrono_literals;

ChildCommand Shell(const std::string& script) {
  ChildCommand c;
  c.argv = {"/bin/sh", "-c", script};
  c.timeout = 10s;
  return c;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

// Whether `pid` is gone or a zombie (reaped by its new parent soon).
bool Ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  auto close_paren = line.rfind(')');
  return close_paren != std::string::npos && line.size() > close_paren + 2 &&
         line[close_paren + 2] == 'Z';
}

TEST(RunChild, CapturesStdoutStderrAndExitStatus) {
  struct Case {
    std::string name;
    std::string script;
    std::string out, err;
    int exit_code;
    int signal;
    std::string describe;
  };
  const std::vector<Case> cases = {
      {"success", "echo out; echo err >&2", "out\n", "err\n", 0, 0, "exit status 0"},
      {"failure", "echo nope >&2; exit 3", "", "nope\n", 3, 0, "exit status 3"},
      {"signal", "kill -KILL $$", "", "", -1, SIGKILL, "killed by signal 9 (Killed)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = RunChild(Shell(c.script));
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->out, c.out);
    EXPECT_EQ(r->err, c.err);
    EXPECT_EQ(r->exit_code, c.exit_code);
    EXPECT_EQ(r->signal, c.signal);
    EXPECT_FALSE(r->timed_out);
    EXPECT_EQ(r->Succeeded(), c.exit_code == 0);
    EXPECT_EQ(r->Describe(10s), c.describe);
  }
}

TEST(RunChild, ReadsLargeOutputWithoutBlockingAndCapsIt) {
  auto r = RunChild(Shell("head -c 300000 /dev/zero; head -c 3000000 /dev/zero >&2"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out.size(), 300000u);
  EXPECT_EQ(r->err.size(), 1u << 20);
}

TEST(RunChild, GivenDescriptorsBecomeStdioAndNothingElseLeaks) {
  int in[2], out[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  // A descriptor someone opened without O_CLOEXEC must still not reach the program.
  int leaked = open("/dev/null", O_RDONLY);
  ASSERT_GE(leaked, 3);
  ASSERT_EQ(write(in[1], "hello\n", 6), 6);
  close(in[1]);

  ChildCommand c = Shell(
      "read line; echo \"got $line\"; echo to-err >&2; "
      "if [ -e /proc/self/fd/" +
      std::to_string(leaked) + " ]; then echo leaked; else echo clean; fi");
  c.stdin_fd = in[0];
  c.stdout_fd = out[1];
  c.stderr_fd = out[1];
  auto r = RunChild(c);
  close(in[0]);
  close(out[1]);
  close(leaked);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "");  // not captured: it went to the caller's pipe
  EXPECT_EQ(ReadAll(out[0]), "got hello\nto-err\nclean\n");
  close(out[0]);
}

TEST(RunChild, DevNullForUnsetDescriptors) {
  ChildCommand c = Shell("cat; echo done; readlink /proc/self/fd/0");
  c.stdin_fd = ChildCommand::kDevNull;
  auto r = RunChild(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->out, "done\n/dev/null\n");

  c = Shell("echo invisible; echo visible >&2");
  c.stdout_fd = ChildCommand::kDevNull;
  r = RunChild(c);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->out, "");
  EXPECT_EQ(r->err, "visible\n");
}

TEST(RunChild, StartsWithDefaultSignalsAndAnEmptyMask) {
  // The caller blocks SIGTERM (as `podlimits run` does for its signalfd) and ignores SIGUSR1.
  sigset_t term, old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(sigprocmask(SIG_BLOCK, &term, &old_mask), 0);
  struct sigaction ignore = {}, old_usr1 = {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGUSR1, &ignore, &old_usr1), 0);

  auto blocked = RunChild(Shell("kill -TERM $$; sleep 2; echo survived"));
  auto ignored = RunChild(Shell("kill -USR1 $$; sleep 2; echo survived"));

  sigaction(SIGUSR1, &old_usr1, nullptr);
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ASSERT_TRUE(blocked) << blocked.error();
  EXPECT_EQ(blocked->signal, SIGTERM);
  ASSERT_TRUE(ignored) << ignored.error();
  EXPECT_EQ(ignored->signal, SIGUSR1);
}

TEST(RunChild, TimeoutKillsTheProgramAndWhatItForked) {
  const auto pid_file = std::filesystem::temp_directory_path() /
                        ("podlimits-child-" + std::to_string(getpid()) + ".pid");
  ChildCommand c = Shell("sleep 30 & echo $! > " + pid_file.string() + "; wait");
  c.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = RunChild(c);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->Succeeded());
  EXPECT_EQ(r->signal, SIGKILL);
  EXPECT_EQ(r->Describe(c.timeout), "timed out after 300 ms");
  EXPECT_LT(took, 5s);

  pid_t background = 0;
  std::ifstream(pid_file) >> background;
  std::filesystem::remove(pid_file);
  ASSERT_GT(background, 0);
  bool ended = false;
  for (int i = 0; i < 200 && !ended; ++i) {
    ended = Ended(background);
    if (!ended) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(ended) << "the background sleep " << background << " survived the timeout";
}

TEST(RunChild, ReapsOnlyItsOwnChild) {
  pid_t other = fork();
  ASSERT_GE(other, 0);
  if (other == 0) _exit(7);
  auto r = RunChild(Shell("sleep 0.2"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->exit_code, 0);
  int status = 0;
  ASSERT_EQ(waitpid(other, &status, 0), other) << "RunChild reaped a child that was not its own";
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(RunChild, ReportsWhatCouldNotBeStarted) {
  ChildCommand none;
  auto empty = RunChild(none);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().Message(), "run: empty command line");

  ChildCommand missing;
  missing.argv = {"/nonexistent/crun", "--version"};
  auto r = RunChild(missing);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().Message(), "posix_spawn \"/nonexistent/crun\": No such file or directory");
}

// serve's pod monitors: a session of their own, output to a file of the caller's, no other
// descriptor of the caller's, default signals; the caller waits for them.
TEST(StartChild, ASessionOfItsOwnWithTheGivenOutputAndNothingElse) {
  char log_name[] = "/tmp/start-child-XXXXXX";
  const int log = mkstemp(log_name);
  ASSERT_GE(log, 0);
  const int leaked = open("/dev/null", O_RDONLY);  // no O_CLOEXEC: must not reach the child
  ASSERT_GE(leaked, 0);
  sigset_t blocked, old;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &blocked, &old);
  ChildCommand c = Shell("echo out; echo err >&2; [ -e /proc/self/fd/" + std::to_string(leaked) +
                         " ] && echo leaked; grep SigBlk /proc/self/status; "
                         "[ \"$(cut -d' ' -f6 /proc/$$/stat)\" = $$ ] && echo session leader");
  c.stdout_fd = log;
  c.stderr_fd = log;
  c.new_session = true;
  auto pid = StartChild(c);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(leaked);
  ASSERT_TRUE(pid) << pid.error();
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  lseek(log, 0, SEEK_SET);
  EXPECT_EQ(ReadAll(log), "out\nerr\nSigBlk:\t0000000000000000\nsession leader\n");
  close(log);
  unlink(log_name);
}

TEST(StartChild, CapturesNothing) {
  ChildCommand c = Shell("true");
  auto pid = StartChild(c);
  ASSERT_FALSE(pid);
  EXPECT_EQ(pid.error().Message(), "start /bin/sh: output is captured only by RunChild");
}

}  // namespace
}  // namespace podlimits::kubelet
