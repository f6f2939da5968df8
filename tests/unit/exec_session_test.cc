// `kubectl exec`'s streaming half (streaming/exec_session.h) over the real HTTPS server and a
// WebSocket client: the channels, v5's close of stdin, the final Status and the normal close, and
// a client that goes away (the node must learn it: the control connection closes).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <thread>

#include "podstreams/pod_exec_handler.h"
#include "cri/exec_wire.h"
#include "http/https_server.h"
#include "serve/pki.h"
#include "streaming/exec_session.h"
#include "temp_dir.h"
#include "websocket_test_support.h"

namespace podlimits::streaming {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// The process's side of an exec: pipes and the node's control connection.
struct FakeProcess {
  UniqueFd stdin_read, stdout_write, stderr_write, control;
  UniqueFd terminal;  // with a terminal: its slave side, the process's stdin and stdout
};

class ExecSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { pki_ = podlimits::testing::TestNodePki(dir_.path()); }

  // Starts a server whose every request becomes an exec session over fresh pipes (or, with
  // `tty`, a terminal as kubectl exec -t has it); the process's ends go to `process_`.
  void StartServer(std::string protocol, bool tty = false) {
    auto server = http::HttpsServer::Start(podlimits::testing::TestServerOptions(pki_), [this, protocol, tty](const http::HttpRequest&) {
      auto streams = std::make_shared<ExecStreams>();
      int p[2];
      if (tty) {
        const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        EXPECT_GE(master, 0);
        EXPECT_EQ(grantpt(master), 0);
        EXPECT_EQ(unlockpt(master), 0);
        process_.terminal.Reset(open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC));
        streams->tty = true;
        streams->terminal.Reset(master);
        streams->stdout_fd.Reset(fcntl(master, F_DUPFD_CLOEXEC, 0));
        EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p), 0);
        streams->control.Reset(p[0]);
        process_.control.Reset(p[1]);
        ready_ = true;
        http::HttpResponse r;
        r.websocket_protocol = protocol;
        r.websocket = [streams](http::WebSocketConnection& c) {
          RunExecSession(
              c, std::move(*streams),
              [](std::string_view node_message) {
                return apiserver::ExecStatusJson(node_message, {"sh"});
              },
              true);
        };
        return r;
      }
      EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
      process_.stdin_read.Reset(p[0]);
      streams->stdin_fd.Reset(p[1]);
      EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
      streams->stdout_fd.Reset(p[0]);
      process_.stdout_write.Reset(p[1]);
      EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
      streams->stderr_fd.Reset(p[0]);
      process_.stderr_write.Reset(p[1]);
      EXPECT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p), 0);
      streams->control.Reset(p[0]);
      process_.control.Reset(p[1]);
      ready_ = true;
      http::HttpResponse r;
      r.websocket_protocol = protocol;
      r.websocket = [streams, protocol](http::WebSocketConnection& c) {
        // The API's Status for the node's message, as pod_exec_handler passes it.
        RunExecSession(
            c, std::move(*streams),
            [](std::string_view node_message) {
              return apiserver::ExecStatusJson(node_message, {"sh", "-c", "x"});
            },
            protocol == "v5.channel.k8s.io");
      };
      return r;
    });
    ASSERT_TRUE(server) << server.error();
    server_ = std::move(*server);
  }

  // A client as kubectl is: TLS with the admin certificate, the subprotocol offered.
  struct Client {
    asio::io_context io;
    asio::ssl::context ctx{asio::ssl::context::tls_client};
    std::unique_ptr<podlimits::testing::TestWebSocket> ws;
  };
  std::unique_ptr<Client> Connect(const std::string& protocol) {
    auto c = std::make_unique<Client>();
    std::string chosen;
    c->ws = podlimits::testing::ConnectTestWebSocket(
        c->io, c->ctx, pki_, server_->port(), "/api/v1/namespaces/default/pods/web/exec?command=sh",
        protocol, &chosen);
    EXPECT_EQ(chosen, protocol);
    return c;
  }
  static void Send(Client& c, std::string message) { c.ws->write(asio::buffer(message)); }

  // Every message until the server closes: channel -> what it carried.
  static std::map<int, std::string> ReadAll(Client& c, bool& closed_normally) {
    std::map<int, std::string> got;
    closed_normally = false;
    for (;;) {
      beast::flat_buffer buffer;
      beast::error_code ec;
      c.ws->read(buffer, ec);
      if (ec == websocket::error::closed) {
        closed_normally = c.ws->reason().code == websocket::close_code::normal;
        return got;
      }
      if (ec) return got;
      std::string m = beast::buffers_to_string(buffer.data());
      if (!m.empty()) got[static_cast<unsigned char>(m[0])] += m.substr(1);
    }
  }

  void WaitReady() {
    for (int i = 0; i < 500 && !ready_; ++i) usleep(10000);
    ASSERT_TRUE(ready_);
  }

  podlimits::testing::TempDir dir_{"podlimits-exec-session"};
  serve::NodePki pki_;
  std::unique_ptr<http::HttpsServer> server_;
  FakeProcess process_;
  std::atomic<bool> ready_{false};
};

TEST_F(ExecSessionTest, StreamsAndStatusOverV5) {
  StartServer("v5.channel.k8s.io");
  auto client = Connect("v5.channel.k8s.io");
  WaitReady();
  // The process: reads stdin to its end (v5's close), answers on both streams, exits 2.
  std::thread process([this] {
    const std::string in = podlimits::testing::ReadToEnd(process_.stdin_read.get());
    const std::string out = "echo:" + in;
    EXPECT_EQ(write(process_.stdout_write.get(), out.data(), out.size()), (ssize_t)out.size());
    EXPECT_EQ(write(process_.stderr_write.get(), "warn", 4), 4);
    process_.stdout_write.Reset();
    process_.stderr_write.Reset();
    EXPECT_TRUE(cri::SendExecMessage(process_.control.get(), R"({"exitCode":2})"));
  });
  Send(*client, std::string("\0hel", 4));
  Send(*client, std::string("\0lo", 3));
  Send(*client, std::string("\xff\0", 2));  // CLOSE stdin
  bool normal = false;
  auto got = ReadAll(*client, normal);
  process.join();
  EXPECT_EQ(got[1], "echo:hello");
  EXPECT_EQ(got[2], "warn");
  EXPECT_EQ(got[3],
            R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: )"
            R"(error executing command [sh -c x], exit code 2","reason":"NonZeroExitCode",)"
            R"("details":{"causes":[{"reason":"ExitCode","message":"2"}]}})");
  EXPECT_TRUE(normal) << "the server ends with a normal close";
}

TEST_F(ExecSessionTest, V4HasNoCloseButEndsWithTheProcess) {
  StartServer("v4.channel.k8s.io");
  auto client = Connect("v4.channel.k8s.io");
  WaitReady();
  std::thread process([this] {
    EXPECT_EQ(write(process_.stdout_write.get(), "done", 4), 4);
    process_.stdout_write.Reset();
    process_.stderr_write.Reset();
    EXPECT_TRUE(cri::SendExecMessage(process_.control.get(), R"({"exitCode":0})"));
  });
  bool normal = false;
  auto got = ReadAll(*client, normal);
  process.join();
  EXPECT_EQ(got[1], "done");
  EXPECT_EQ(got[3], R"({"metadata":{},"status":"Success"})");
  EXPECT_TRUE(normal);
}

// kubectl killed: the node's control connection closes (and the node kills the command).
TEST_F(ExecSessionTest, ClientGoneClosesTheControlConnection) {
  StartServer("v5.channel.k8s.io");
  auto client = Connect("v5.channel.k8s.io");
  WaitReady();
  beast::get_lowest_layer(*client->ws).close();
  pollfd p{process_.control.get(), POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1) << "the control connection stayed open";
  char byte;
  EXPECT_EQ(recv(process_.control.get(), &byte, 1, MSG_DONTWAIT), 0) << "closed, not a message";
}

// A terminal's output waits for kubectl's first terminal size: client-go sends it once it has
// made all its streams, and drops what arrives on a stream it has not made yet ("Unknown stream
// id 1, discarding message"). The size is the terminal's before the output goes.
TEST_F(ExecSessionTest, ATerminalsOutputWaitsForTheFirstSize) {
  StartServer("v5.channel.k8s.io", /*tty=*/true);
  auto client = Connect("v5.channel.k8s.io");
  WaitReady();
  ASSERT_EQ(write(process_.terminal.get(), "early", 5), 5);
  Send(*client, std::string("\x04") + R"({"Width":123,"Height":45})");
  beast::flat_buffer buffer;
  client->ws->read(buffer);
  const std::string first = beast::buffers_to_string(buffer.data());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first[0], 1) << "stdout";
  EXPECT_NE(first.find("early"), std::string::npos) << first;
  winsize size{};
  ASSERT_EQ(ioctl(process_.terminal.get(), TIOCGWINSZ, &size), 0);
  EXPECT_EQ(size.ws_col, 123);
  EXPECT_EQ(size.ws_row, 45);
  process_.terminal.Reset();
  EXPECT_TRUE(cri::SendExecMessage(process_.control.get(), R"({"exitCode":0})"));
}

// A client that never sends a size (client-go without a size queue) still gets the output,
// after the wait (1 s).
TEST_F(ExecSessionTest, ATerminalsOutputGoesWithoutASizeAfterTheWait) {
  StartServer("v5.channel.k8s.io", /*tty=*/true);
  auto client = Connect("v5.channel.k8s.io");
  WaitReady();
  const auto began = std::chrono::steady_clock::now();
  ASSERT_EQ(write(process_.terminal.get(), "late", 4), 4);
  beast::flat_buffer buffer;
  client->ws->read(buffer);
  const auto waited = std::chrono::steady_clock::now() - began;
  const std::string first = beast::buffers_to_string(buffer.data());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first[0], 1);
  EXPECT_NE(first.find("late"), std::string::npos) << first;
  EXPECT_GE(waited, std::chrono::milliseconds(900)) << "the output did not wait for a size";
  process_.terminal.Reset();
  EXPECT_TRUE(cri::SendExecMessage(process_.control.get(), R"({"exitCode":0})"));
}

}  // namespace
}  // namespace podlimits::streaming
