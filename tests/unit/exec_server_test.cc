// The exec socket between the agent and a pod's monitor (nodeagent/exec_wire.h,
// exec_server.h), with a runner standing in for the OCI runtime: the process's stdio are the
// agent's pipes, the end is reported, a container that is not running is refused in the
// kubelet's words, and an agent that goes away gets its command killed.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "base/fs.h"
#include "nodeagent/exec_server.h"
#include "cri/exec_wire.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

using cri::ConnectExecSocket;
using cri::kExecSocketFile;
using cri::ReceiveExecMessage;
using cri::SendExecMessage;
using cri::ShortSocketPath;

// A runner whose command runs until it is killed: a child of the test that waits, named in the
// runtime's pid file as crun names the exec'd process. Returns its wait status through `status`.
ExecServer::Runner UntilKilled(std::atomic<int>& status) {
  return [&status](const std::string&, const cri::AttachedExec& exec) {
    const pid_t child = fork();
    if (child == 0) {
      closefrom(3);  // as the runtime's process: none of this process's sockets
      pause();
      _exit(0);
    }
    EXPECT_TRUE(WriteFileAtomically(exec.pid_file, std::to_string(child), 0600));
    int s = 0;
    waitpid(child, &s, 0);
    status = s;
    return Result<cri::AttachedExecEnd>(cri::AttachedExecEnd{137, ""});
  };
}

struct Pipes {
  UniqueFd in_read, in_write, out_read, out_write, err_read, err_write;
  Pipes() {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    in_read.Reset(p[0]);
    in_write.Reset(p[1]);
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    out_read.Reset(p[0]);
    out_write.Reset(p[1]);
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    err_read.Reset(p[0]);
    err_write.Reset(p[1]);
  }
};

class ExecServerTest : public ::testing::Test {
 protected:
  // Connects as the agent and starts `sleep` in "app" over fresh pipes; the connection stays open
  // while the returned descriptor lives.
  UniqueFd StartSleep() {
    auto conn = ConnectExecSocket(dir_.path());
    EXPECT_TRUE(conn);
    if (!conn) return UniqueFd();
    Pipes p;
    const int fds[3] = {p.in_read.get(), p.out_write.get(), p.err_write.get()};
    EXPECT_TRUE(SendExecMessage(conn->get(), R"({"container":"app","command":["sleep"]})", fds));
    EXPECT_EQ(ReceiveExecMessage(conn->get())->json, R"({"started":true})");
    return std::move(*conn);
  }

  podlimits::testing::TempDir dir_{"podlimits-exec-server"};
};

TEST_F(ExecServerTest, RunsTheCommandWithTheAgentsStdio) {
  std::string seen_id;
  std::vector<std::string> seen_argv;
  auto server = ExecServer::Start(dir_.path(), [&](const std::string& id, const cri::AttachedExec& exec) {
    seen_id = id;
    seen_argv = exec.argv;
    // What the process would do: read its stdin, answer on stdout and stderr.
    std::string in = podlimits::testing::ReadToEnd(exec.stdio.stdin_fd);
    EXPECT_EQ(write(exec.stdio.stdout_fd, ("out:" + in).data(), 4 + in.size()), 4 + (ssize_t)in.size());
    EXPECT_EQ(write(exec.stdio.stderr_fd, "err", 3), 3);
    return Result<cri::AttachedExecEnd>(cri::AttachedExecEnd{3, ""});
  });
  ASSERT_TRUE(server) << server.error().Message();
  (*server)->SetRunning({{"app", {"id-app", nullptr}}});

  auto conn = ConnectExecSocket(dir_.path());
  ASSERT_TRUE(conn) << conn.error().Message();
  Pipes p;
  const int fds[3] = {p.in_read.get(), p.out_write.get(), p.err_write.get()};
  ASSERT_TRUE(SendExecMessage(conn->get(), R"({"container":"app","command":["sh","-c","x"],"tty":false})", fds));
  p.in_read.Reset();
  p.out_write.Reset();
  p.err_write.Reset();
  auto started = ReceiveExecMessage(conn->get());
  ASSERT_TRUE(started);
  EXPECT_EQ(started->json, R"({"started":true})");
  ASSERT_EQ(write(p.in_write.get(), "hi", 2), 2);
  p.in_write.Reset();
  EXPECT_EQ(podlimits::testing::ReadToEnd(p.out_read.get()), "out:hi");
  EXPECT_EQ(podlimits::testing::ReadToEnd(p.err_read.get()), "err");
  auto end = ReceiveExecMessage(conn->get());
  ASSERT_TRUE(end);
  EXPECT_EQ(end->json, R"({"exitCode":3})");
  EXPECT_EQ(seen_id, "id-app");
  EXPECT_EQ(seen_argv, (std::vector<std::string>{"sh", "-c", "x"}));
}

// `kubectl port-forward`: the monitor dials and hands the connected socket over, or says why
// it could not.
TEST_F(ExecServerTest, PortForwardHandsOverTheDialledSocket) {
  UniqueFd pod_end;
  std::vector<int> dialled;
  auto server = ExecServer::Start(
      dir_.path(),
      [](const std::string&, const cri::AttachedExec&) {
        ADD_FAILURE() << "nothing may run";
        return Result<cri::AttachedExecEnd>(cri::AttachedExecEnd{0, ""});
      },
      [&](int port) -> Result<UniqueFd> {
        dialled.push_back(port);
        if (port == 81) return Failure("error forwarding port 81");
        int p[2];
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p), 0);
        pod_end.Reset(p[1]);
        return UniqueFd(p[0]);
      });
  ASSERT_TRUE(server);
  auto ask = [&](std::string_view json) {
    auto conn = ConnectExecSocket(dir_.path());
    EXPECT_TRUE(conn);
    EXPECT_TRUE(SendExecMessage(conn->get(), json));
    auto reply = ReceiveExecMessage(conn->get());
    EXPECT_TRUE(reply);
    return std::move(*reply);
  };
  auto ok = ask(R"({"portForward":80})");
  EXPECT_EQ(ok.json, R"({"started":true})");
  ASSERT_EQ(ok.fds.size(), 1u);
  ASSERT_EQ(write(ok.fds[0].get(), "ping", 4), 4);
  char buf[8] = {};
  EXPECT_EQ(read(pod_end.get(), buf, sizeof buf), 4);
  EXPECT_EQ(std::string(buf, 4), "ping");

  EXPECT_EQ(ask(R"({"portForward":81})").json,
            R"({"error":"error forwarding port 81","notFound":false})");
  EXPECT_EQ(ask(R"({"portForward":0})").json, R"({"error":"invalid port 0","notFound":false})");
  EXPECT_EQ(ask(R"({"portForward":70000})").json,
            R"({"error":"invalid port 70000","notFound":false})");
  EXPECT_EQ(dialled, (std::vector<int>{80, 81}));
}

// `kubectl attach -i`: the client's pipe is copied into the running container's input until it
// ends; a container without stdin, or one that is not running, is refused.
TEST_F(ExecServerTest, AttachCopiesTheClientsInputIntoTheContainer) {
  auto server = ExecServer::Start(dir_.path(), [](const std::string&, const cri::AttachedExec&) {
    return Result<cri::AttachedExecEnd>(cri::AttachedExecEnd{0, ""});
  });
  ASSERT_TRUE(server);
  int c[2];
  ASSERT_EQ(pipe2(c, O_CLOEXEC), 0);
  UniqueFd container_stdin(c[0]);
  auto input = std::make_shared<kubelet::ContainerInput>(UniqueFd(c[1]), false, true);
  (*server)->SetRunning({{"app", {"id-app", input}}, {"quiet", {"id-quiet", nullptr}}});
  auto ask = [&](std::string_view json, int fd) {
    auto conn = ConnectExecSocket(dir_.path());
    EXPECT_TRUE(conn);
    EXPECT_TRUE(fd < 0 ? SendExecMessage(conn->get(), json)
                       : SendExecMessage(conn->get(), json, std::span<const int>(&fd, 1)));
    auto reply = ReceiveExecMessage(conn->get());
    EXPECT_TRUE(reply);
    return reply->json;
  };
  EXPECT_EQ(ask(R"({"attach":"gone","tty":false})", -1),
            R"j({"error":"container not found (\"gone\")","notFound":true})j");
  EXPECT_EQ(ask(R"({"attach":"quiet","tty":false})", -1),
            R"({"error":"container quiet does not have stdin: true: its stdin is /dev/null","notFound":false})");
  EXPECT_EQ(ask(R"({"attach":"app","tty":true})", -1),
            R"({"error":"container app does not have a terminal","notFound":false})");
  int s[2];
  ASSERT_EQ(pipe2(s, O_CLOEXEC), 0);
  UniqueFd session_write(s[1]);
  {
    UniqueFd session_read(s[0]);
    EXPECT_EQ(ask(R"({"attach":"app","tty":false})", session_read.get()), R"({"started":true})");
  }
  ASSERT_EQ(write(session_write.get(), "typed\n", 6), 6);
  session_write.Reset();  // stdinOnce: the container reads its input, then end of file
  EXPECT_EQ(podlimits::testing::ReadToEnd(container_stdin.get()), "typed\n");
}

TEST_F(ExecServerTest, ContainerNotRunning) {
  auto server = ExecServer::Start(dir_.path(), [](const std::string&, const cri::AttachedExec&) {
    ADD_FAILURE() << "nothing may run";
    return Result<cri::AttachedExecEnd>(cri::AttachedExecEnd{0, ""});
  });
  ASSERT_TRUE(server);
  (*server)->SetRunning({{"app", {"id-app", nullptr}}});
  auto conn = ConnectExecSocket(dir_.path());
  ASSERT_TRUE(conn);
  Pipes p;
  const int fds[3] = {p.in_read.get(), p.out_write.get(), p.err_write.get()};
  ASSERT_TRUE(SendExecMessage(conn->get(), R"({"container":"init","command":["true"]})", fds));
  auto reply = ReceiveExecMessage(conn->get());
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->json, R"j({"error":"container not found (\"init\")","notFound":true})j");
}

TEST_F(ExecServerTest, RuntimeFailureIsReported) {
  auto server = ExecServer::Start(dir_.path(), [](const std::string&, const cri::AttachedExec&) {
    return Result<cri::AttachedExecEnd>(
        cri::AttachedExecEnd{1, "crun exec id-app: executable file `nosuch` not found"});
  });
  ASSERT_TRUE(server);
  (*server)->SetRunning({{"app", {"id-app", nullptr}}});
  auto conn = ConnectExecSocket(dir_.path());
  ASSERT_TRUE(conn);
  Pipes p;
  const int fds[3] = {p.in_read.get(), p.out_write.get(), p.err_write.get()};
  ASSERT_TRUE(SendExecMessage(conn->get(), R"({"container":"app","command":["nosuch"]})", fds));
  EXPECT_EQ(ReceiveExecMessage(conn->get())->json, R"({"started":true})");
  EXPECT_EQ(ReceiveExecMessage(conn->get())->json,
            R"({"error":"crun exec id-app: executable file `nosuch` not found","notFound":false})");
}

// The agent's connection closing (kubectl went away) kills the exec'd process, named by the
// runtime's pid file.
TEST_F(ExecServerTest, AgentGoneKillsTheCommand) {
  std::atomic<int> status{-1};
  auto server = ExecServer::Start(dir_.path(), UntilKilled(status));
  ASSERT_TRUE(server);
  (*server)->SetRunning({{"app", {"id-app", nullptr}}});
  ASSERT_TRUE(StartSleep());  // and gone at once
  for (int i = 0; i < 500 && status == -1; ++i) usleep(10000);
  ASSERT_NE(status.load(), -1) << "the command was not killed";
  EXPECT_TRUE(WIFSIGNALED(status.load()));
  EXPECT_EQ(WTERMSIG(status.load()), SIGKILL);
}

// The server's end (the pod torn down) ends its execs too.
TEST_F(ExecServerTest, StoppingKillsRunningCommands) {
  std::atomic<int> status{-1};
  auto server = ExecServer::Start(dir_.path(), UntilKilled(status));
  ASSERT_TRUE(server);
  (*server)->SetRunning({{"app", {"id-app", nullptr}}});
  UniqueFd conn = StartSleep();
  ASSERT_TRUE(conn);
  server->reset();
  ASSERT_NE(status.load(), -1) << "the command was not killed";
  EXPECT_TRUE(WIFSIGNALED(status.load()));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / kExecSocketFile));
}

}  // namespace
}  // namespace podlimits::nodeagent
