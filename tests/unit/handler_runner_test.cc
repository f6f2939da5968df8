// httpGet and tcpSocket actions against loopback servers in this test (the node's own network
// namespace), with the kubelet's outcomes and Go's error words.
#include "kubelet/prober/handler_runner.h"
#include "kubelet/prober/http_get.h"
#include "net_test_support.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace podlimits::kubelet {
namespace {

using namespace std::chrono_literals;

// Answers each connection on a loopback port with the next canned response (empty: never
// answers), recording the requests; stops after `responses.size()` connections.
class CannedServer {
 public:
  explicit CannedServer(std::vector<std::string> responses) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this, responses = std::move(responses)] {
      for (const auto& response : responses) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char buf[4096];
        ssize_t n = read(c, buf, sizeof buf);
        if (n > 0) requests_.emplace_back(buf, static_cast<std::size_t>(n));
        if (response.empty()) {
          std::this_thread::sleep_for(1500ms);
        } else {
          (void)!write(c, response.data(), response.size());
        }
        close(c);
      }
    });
  }
  ~CannedServer() {
    thread_.join();
    close(fd_);
  }
  int port() const { return port_; }
  const std::vector<std::string>& requests() const { return requests_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::vector<std::string> requests_;
};

ActionOutcome Get(int port, std::string path, std::chrono::milliseconds timeout = 1000ms) {
  api::Container c;
  c.name = "web";
  api::HandlerAction a;
  a.kind = "httpGet";
  a.port = std::to_string(port);
  a.path = std::move(path);
  a.scheme = "HTTP";
  a.http_headers = {{"X-Probe", "1"}};
  ActionTarget t;
  t.container = &c;
  return RunAction(a, t, timeout);
}

TEST(HandlerRunner, HttpGet) {
  {
    CannedServer s({"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"});
    auto o = Get(s.port(), "/healthz?x=1");
    EXPECT_EQ(o.result, ProbeResult::kSuccess);
    EXPECT_EQ(o.output, "ok");
    EXPECT_EQ(o.http_status, 200);
    ASSERT_EQ(s.requests().size(), 1u);
    const std::string& req = s.requests()[0];
    EXPECT_TRUE(req.starts_with("GET /healthz?x=1 HTTP/1.1\r\n")) << req;
    EXPECT_NE(req.find("Host: 127.0.0.1:" + std::to_string(s.port()) + "\r\n"), std::string::npos);
    EXPECT_NE(req.find("User-Agent: kube-probe/1.32\r\n"), std::string::npos) << req;
    EXPECT_NE(req.find("Accept: */*\r\n"), std::string::npos) << req;
    EXPECT_NE(req.find("X-Probe: 1\r\n"), std::string::npos) << req;
  }
  {
    CannedServer s({"HTTP/1.1 500 Internal Server Error\r\n\r\nsecret body"});
    auto o = Get(s.port(), "/");
    EXPECT_EQ(o.result, ProbeResult::kFailure);
    EXPECT_EQ(o.output, "HTTP probe failed with statuscode: 500");  // never the body
  }
  {
    CannedServer s({"HTTP/1.1 302 Found\r\nLocation: /ok\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n"});
    auto o = Get(s.port(), "/");
    EXPECT_EQ(o.result, ProbeResult::kSuccess);  // a redirect on the same server is followed
    ASSERT_EQ(s.requests().size(), 2u);
    EXPECT_TRUE(s.requests()[1].starts_with("GET /ok HTTP/1.1")) << s.requests()[1];
  }
  {
    CannedServer s({"HTTP/1.1 301 Moved\r\nLocation: http://elsewhere/\r\n\r\nmoved"});
    auto o = Get(s.port(), "/");
    EXPECT_EQ(o.result, ProbeResult::kWarning);
    EXPECT_EQ(o.output, "Probe terminated redirects, Response body: moved");
  }
  {
    CannedServer s({""});  // accepts, never answers
    auto o = Get(s.port(), "/slow", 200ms);
    EXPECT_EQ(o.result, ProbeResult::kFailure);
    EXPECT_EQ(o.output, "Get \"http://127.0.0.1:" + std::to_string(s.port()) +
                            "/slow\": context deadline exceeded (Client.Timeout exceeded while "
                            "awaiting headers)");
  }
}

// What the prober's Beast client does with the shapes of answer servers send.
TEST(HandlerRunner, HttpGetResponseShapes) {
  struct Case {
    const char* name;
    std::string response;
    ProbeResult result;
    std::string output;
    std::string error;
  };
  const Case cases[] = {
      {"Chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3\r\n!!!\r\n0\r\n\r\n",
       ProbeResult::kSuccess, "ok!!!", ""},
      {"InterimAnswerSkipped",
       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
       ProbeResult::kSuccess, "ok", ""},
      {"BodyToTheEndOfTheConnection", "HTTP/1.0 200 OK\r\n\r\nall of it", ProbeResult::kSuccess,
       "all of it", ""},
      {"BodyReadAtMost10KiB",
       "HTTP/1.1 200 OK\r\nContent-Length: 20000\r\n\r\n" + std::string(20000, 'b'),
       ProbeResult::kSuccess, std::string(10 * 1024, 'b'), ""},
      {"ChunkedCutShortIsAnError",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", ProbeResult::kUnknown,
       "", "unexpected EOF"},
      {"RedirectNotFollowedIsAWarning", "HTTP/1.1 304 Not Modified\r\n\r\n", ProbeResult::kWarning,
       "Probe terminated redirects, Response body: ", ""},
      {"ClosedInTheHeaders", "HTTP/1.1 200 OK\r\nContent-", ProbeResult::kFailure, ": EOF", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    CannedServer s({c.response});
    auto o = Get(s.port(), "/");
    EXPECT_EQ(o.result, c.result);
    if (c.result == ProbeResult::kFailure) {  // Get "URL": ..., the port varies
      EXPECT_TRUE(o.output.ends_with(c.output)) << o.output;
    } else {
      EXPECT_EQ(o.output, c.output);
    }
    EXPECT_EQ(o.error, c.error);
  }
}

TEST(HandlerRunner, HttpGetRedirects) {
  {  // an absolute location on the same hostname (another port) is followed, with a Referer
    CannedServer target({"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nhere"});
    CannedServer s({"HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1:" +
                    std::to_string(target.port()) + "/there?x=1\r\n\r\n"});
    auto o = Get(s.port(), "/start");
    EXPECT_EQ(o.result, ProbeResult::kSuccess);
    EXPECT_EQ(o.output, "here");
    ASSERT_EQ(target.requests().size(), 1u);
    const std::string& req = target.requests()[0];
    EXPECT_TRUE(req.starts_with("GET /there?x=1 HTTP/1.1\r\n")) << req;
    EXPECT_NE(req.find("Referer: http://127.0.0.1:" + std::to_string(s.port()) + "/start\r\n"),
              std::string::npos)
        << req;
    EXPECT_NE(req.find("X-Probe: 1\r\n"), std::string::npos) << req;  // headers go along
  }
  {  // a relative location resolves against the current path's directory
    CannedServer s({"HTTP/1.1 307 Temporary Redirect\r\nLocation: ready\r\n\r\n",
                    "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"});
    EXPECT_EQ(Get(s.port(), "/health/live").result, ProbeResult::kSuccess);
    ASSERT_EQ(s.requests().size(), 2u);
    EXPECT_TRUE(s.requests()[1].starts_with("GET /health/ready HTTP/1.1")) << s.requests()[1];
  }
  {  // another hostname ends the chain with the redirect itself
    CannedServer s({"HTTP/1.1 302 Found\r\nLocation: http://localhost:1/\r\n\r\nbye"});
    auto o = Get(s.port(), "/");
    EXPECT_EQ(o.result, ProbeResult::kWarning);
    EXPECT_EQ(o.output, "Probe terminated redirects, Response body: bye");
  }
  {  // RedirectChecker: at most 10 requests, then Go's error with the last location
    CannedServer s(std::vector<std::string>(10, "HTTP/1.1 302 Found\r\nLocation: /loop\r\n\r\n"));
    auto o = Get(s.port(), "/");
    EXPECT_EQ(o.result, ProbeResult::kFailure);
    EXPECT_EQ(o.output, "Get \"/loop\": stopped after 10 redirects");
    EXPECT_EQ(s.requests().size(), 10u);
  }
}

TEST(HandlerRunner, CanonicalHeaderName) {
  const std::pair<const char*, const char*> cases[] = {
      {"x-probe", "X-Probe"}, {"USER-AGENT", "User-Agent"}, {"accept", "Accept"},
      {"x_under", "X_under"}, {"bad name", "bad name"},  // not a token: left as it is
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(CanonicalHeaderName(in), want) << in;
}

TEST(HandlerRunner, ConnectionRefusedAndTcpSocket) {
  const int port = podlimits::testing::UnusedLoopbackPort();
  const std::string where = "127.0.0.1:" + std::to_string(port);

  auto http = Get(port, "/");
  EXPECT_EQ(http.result, ProbeResult::kFailure);
  EXPECT_EQ(http.output, "Get \"http://" + where + "/\": dial tcp " + where +
                             ": connect: connection refused");

  api::Container c;
  c.name = "web";
  c.ports = {{"metrics", std::nullopt, port, "TCP", ""}};
  api::HandlerAction tcp;
  tcp.kind = "tcpSocket";
  tcp.port = "metrics";  // by name
  ActionTarget t;
  t.container = &c;
  auto refused = RunAction(tcp, t, 1000ms);
  EXPECT_EQ(refused.result, ProbeResult::kFailure);
  EXPECT_EQ(refused.output, "dial tcp " + where + ": connect: connection refused");

  CannedServer s({"x"});
  c.ports[0].container_port = s.port();
  EXPECT_EQ(RunAction(tcp, t, 1000ms).result, ProbeResult::kSuccess);

  tcp.port = "nope";
  auto unknown = RunAction(tcp, t, 1000ms);
  EXPECT_EQ(unknown.result, ProbeResult::kUnknown);
  EXPECT_EQ(unknown.error, "couldn't find port: nope in container \"web\"");
}

}  // namespace
}  // namespace podlimits::kubelet
