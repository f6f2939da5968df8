// `kubectl port-forward`'s streaming half (streaming/portforward_session.h) over the real HTTPS
// server and a WebSocket client that speaks SPDY/3.1 inside, as kubectl's tunnelling dialer
// does: both directions of a forwarded connection, the half-close each way, a port that cannot
// be reached, refused streams, PING, and a client that goes away.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "streaming/portforward_session.h"
#include "streaming/spdy_frames.h"
#include "temp_dir.h"
#include "websocket_test_support.h"

namespace podlimits::streaming {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using spdy::Frame;
using spdy::FrameType;

std::string ReadSome(int fd) {
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

class PortForwardSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pki_ = podlimits::testing::TestNodePki(dir_.path());
    // Port 80 is a socketpair whose other end the test holds as the pod's; any other port
    // cannot be reached.
    auto server = http::HttpsServer::Start(podlimits::testing::TestServerOptions(pki_), [this](const http::HttpRequest&) {
      http::HttpResponse r;
      r.websocket_protocol = "SPDY/3.1+portforward.k8s.io";
      r.websocket = [this](http::WebSocketConnection& c) {
        RunPortForwardSession(c, [this](int port) -> Result<UniqueFd> {
          ++dialled_;
          if (port != 80) return Failure("error forwarding port " + std::to_string(port));
          int p[2];
          EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p), 0);
          pod_fd_ = p[1];
          return UniqueFd(p[0]);
        });
      };
      return r;
    });
    ASSERT_TRUE(server) << server.error();
    server_ = std::move(*server);
    ws_ = podlimits::testing::ConnectTestWebSocket(io_, ctx_, pki_, server_->port(),
                                                   "/api/v1/namespaces/default/pods/web/portforward",
                                                   "SPDY/3.1+portforward.k8s.io");
  }

  void Send(const std::string& bytes) { ws_->write(asio::buffer(bytes)); }

  // The pod's end of the connection the session dialled last (waits for the dial).
  UniqueFd TakePod() {
    for (int i = 0; i < 500 && pod_fd_ < 0; ++i) usleep(10000);
    EXPECT_GE(pod_fd_.load(), 0);
    return UniqueFd(pod_fd_.exchange(-1));
  }

  // Opens kubectl's two streams for a request: error (id), then data (id + 2).
  void Open(std::uint32_t id, const std::string& request, const std::string& port) {
    Send(writer_.SynStream(id, {{"streamtype", "error"}, {"port", port}, {"requestid", request}}, false));
    Send(writer_.SynStream(id + 2, {{"streamtype", "data"}, {"port", port}, {"requestid", request}}, false));
  }

  // The next frame from the server; a GOAWAY-typed empty frame once the connection closed.
  Frame Next() {
    while (true) {
      auto next = reader_.Next();
      EXPECT_TRUE(next) << next.error();
      if (!next) return {};
      if (*next) return std::move(**next);
      beast::flat_buffer buffer;
      beast::error_code ec;
      ws_->read(buffer, ec);
      if (ec) {
        Frame closed;
        closed.type = FrameType::kGoAway;
        closed.status = 0xffffffff;
        return closed;
      }
      reader_.Feed(beast::buffers_to_string(buffer.data()));
    }
  }

  podlimits::testing::TempDir dir_{"podlimits-portforward-session"};
  serve::NodePki pki_;
  std::unique_ptr<http::HttpsServer> server_;
  asio::io_context io_;
  asio::ssl::context ctx_{asio::ssl::context::tls_client};
  std::unique_ptr<podlimits::testing::TestWebSocket> ws_;
  spdy::FrameWriter writer_;
  spdy::FrameReader reader_;
  std::atomic<int> dialled_{0};
  std::atomic<int> pod_fd_{-1};  // set by the session's thread, taken by the test
  UniqueFd pod_;
};

TEST_F(PortForwardSessionTest, ForwardsBothWaysAndEndsWithThePod) {
  Open(1, "0", "80");
  Frame r1 = Next(), r3 = Next();
  EXPECT_EQ(r1.type, FrameType::kSynReply);
  EXPECT_EQ(r1.stream_id, 1u);
  EXPECT_EQ(r3.type, FrameType::kSynReply);
  EXPECT_EQ(r3.stream_id, 3u);
  pod_ = TakePod();
  EXPECT_EQ(dialled_, 1);
  // kubectl ends its side of the error stream at once; that is not the connection's end.
  Send(spdy::FrameWriter::Data(1, "", true));

  Send(spdy::FrameWriter::Data(3, "GET / HTTP/1.0\r\n\r\n", false));
  EXPECT_EQ(ReadSome(pod_.get()), "GET / HTTP/1.0\r\n\r\n");
  ASSERT_EQ(write(pod_.get(), "HTTP/1.0 200 OK\r\n", 17), 17);
  Frame d = Next();
  EXPECT_EQ(d.type, FrameType::kData);
  EXPECT_EQ(d.stream_id, 3u);
  EXPECT_EQ(d.data, "HTTP/1.0 200 OK\r\n");

  // The client's FIN is the socket's half-close; the pod still answers after it.
  Send(spdy::FrameWriter::Data(3, "", true));
  EXPECT_EQ(ReadSome(pod_.get()), "");  // end of file
  ASSERT_EQ(write(pod_.get(), "bye", 3), 3);
  EXPECT_EQ(Next().data, "bye");
  pod_.Reset();  // the pod closes: both streams end
  Frame fin_data = Next(), fin_error = Next();
  EXPECT_EQ(fin_data.stream_id, 3u);
  EXPECT_TRUE(fin_data.fin());
  EXPECT_EQ(fin_error.stream_id, 1u);
  EXPECT_TRUE(fin_error.fin());
  EXPECT_TRUE(fin_error.data.empty());

  // The connection goes on: a second forwarded connection, and a PING answered.
  Open(5, "1", "80");
  EXPECT_EQ(Next().stream_id, 5u);
  EXPECT_EQ(Next().stream_id, 7u);
  pod_ = TakePod();
  Send(spdy::FrameWriter::Data(7, std::string(200000, 'x'), false));
  std::string got;
  while (got.size() < 200000) got += ReadSome(pod_.get());
  EXPECT_EQ(got, std::string(200000, 'x'));
  Send(spdy::FrameWriter::Ping(9));
  Frame ping = Next();
  EXPECT_EQ(ping.type, FrameType::kPing);
  EXPECT_EQ(ping.ping_id, 9u);
}

TEST_F(PortForwardSessionTest, APortThatCannotBeReachedWritesTheErrorStream) {
  Open(1, "0", "81");
  EXPECT_EQ(Next().type, FrameType::kSynReply);
  EXPECT_EQ(Next().type, FrameType::kSynReply);
  Frame message = Next();
  EXPECT_EQ(message.stream_id, 1u);
  EXPECT_EQ(message.data, "error forwarding port 81");
  Frame a = Next(), b = Next();
  EXPECT_TRUE(a.fin() && b.fin());
  EXPECT_EQ(a.stream_id + b.stream_id, 4u);  // both streams, 1 and 3
}

TEST_F(PortForwardSessionTest, RefusesStreamsWithBadHeaders) {
  struct Case {
    const char* name;
    spdy::Headers headers;
  };
  const std::vector<Case> cases = {
      {"no port", {{"streamtype", "data"}, {"requestid", "0"}}},
      {"port 0", {{"streamtype", "data"}, {"port", "0"}, {"requestid", "0"}}},
      {"port past 65535", {{"streamtype", "data"}, {"port", "65536"}, {"requestid", "0"}}},
      {"a port that is a name", {{"streamtype", "data"}, {"port", "http"}, {"requestid", "0"}}},
      {"no stream type", {{"port", "80"}, {"requestid", "0"}}},
      {"another stream type", {{"streamtype", "resize"}, {"port", "80"}, {"requestid", "0"}}},
      {"no request id", {{"streamtype", "data"}, {"port", "80"}}},
  };
  std::uint32_t id = 1;
  for (const Case& c : cases) {
    Send(writer_.SynStream(id, c.headers, false));
    Frame f = Next();
    EXPECT_EQ(f.type, FrameType::kRstStream) << c.name;
    EXPECT_EQ(f.stream_id, id) << c.name;
    EXPECT_EQ(f.status, spdy::kRefusedStream) << c.name;
    id += 2;
  }
  // A second data stream for one request id is refused too.
  Open(id, "7", "80");
  EXPECT_EQ(Next().type, FrameType::kSynReply);
  EXPECT_EQ(Next().type, FrameType::kSynReply);
  Send(writer_.SynStream(id + 4, {{"streamtype", "data"}, {"port", "80"}, {"requestid", "7"}}, false));
  EXPECT_EQ(Next().type, FrameType::kRstStream);
  EXPECT_EQ(dialled_, 1);
}

TEST_F(PortForwardSessionTest, TheClientGoingAwayClosesThePodsSockets) {
  Open(1, "0", "80");
  EXPECT_EQ(Next().type, FrameType::kSynReply);
  EXPECT_EQ(Next().type, FrameType::kSynReply);
  pod_ = TakePod();
  ws_->close(websocket::close_code::normal);
  EXPECT_EQ(ReadSome(pod_.get()), "");  // the session closed its end
}

TEST_F(PortForwardSessionTest, WhatIsNotSpdyEndsTheSessionWithGoAway) {
  Send("GET / HTTP/1.1\r\n\r\n");
  Frame f = Next();
  EXPECT_EQ(f.type, FrameType::kGoAway);
  EXPECT_EQ(f.status, spdy::kProtocolError);
  EXPECT_EQ(Next().status, 0xffffffffu);  // then the connection closes
}

}  // namespace
}  // namespace podlimits::streaming
