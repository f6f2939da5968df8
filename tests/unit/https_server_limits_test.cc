// What a client can hold of the HTTPS listener, and for how long (apiserver/https_server.h):
// connections that never send a byte, half a request, a response nobody reads, headers over the
// limit, garbage, and a drain with requests half-received.
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http/https_server.h"
#include "http/listener_metrics.h"
#include "serve/pki.h"
#include "temp_dir.h"
#include "websocket_test_support.h"

namespace podlimits::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

// Whether the peer closed `fd` within `limit` (bytes that arrive meanwhile are dropped).
bool ClosedWithin(int fd, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char scratch[4096];
    const ssize_t n = recv(fd, scratch, sizeof scratch, 0);
    if (n <= 0) return true;
  }
}

// The process may open as many files as its hard limit allows (the servers raise theirs the
// same way); returns the limit.
std::size_t RaiseOpenFiles() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  getrlimit(RLIMIT_NOFILE, &limit);
  return static_cast<std::size_t>(limit.rlim_cur);
}

int ThreadsOfThisProcess() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
  }
  return -1;
}

class ListenerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override { pki_ = podlimits::testing::TestNodePki(dir_.path()); }

  void Start(std::function<void(HttpsServerOptions&)> configure, HttpHandler handler) {
    HttpsServerOptions o = podlimits::testing::TestServerOptions(pki_);
    o.authenticate = false;
    configure(o);
    auto server = HttpsServer::Start(o, std::move(handler));
    ASSERT_TRUE(server) << server.error();
    server_ = std::move(*server);
  }
  static HttpResponse Ok(const HttpRequest& r) { return {200, "text/plain", "ok " + r.path}; }

  // A TCP connection from `from` (a loopback address) that sends nothing.
  std::unique_ptr<tcp::socket> Idle(const std::string& from = "127.0.0.1") {
    auto s = std::make_unique<tcp::socket>(io_);
    s->open(tcp::v4());
    s->bind(tcp::endpoint(asio::ip::make_address(from), 0));
    s->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
    return s;
  }

  // A TLS client, as a Go client would be, without a client certificate.
  struct Tls {
    asio::ssl::context ctx{asio::ssl::context::tls_client};
    std::unique_ptr<beast::ssl_stream<tcp::socket>> stream;
    int fd() { return stream->next_layer().native_handle(); }
    void Send(const std::string& bytes) { asio::write(*stream, asio::buffer(bytes)); }
    bhttp::response<bhttp::string_body> Read() {
      beast::flat_buffer buffer;
      bhttp::response<bhttp::string_body> res;
      bhttp::read(*stream, buffer, res);
      return res;
    }
    std::string ReadAll() {
      std::string out;
      beast::error_code ec;
      char chunk[4096];
      while (true) {
        const std::size_t n = stream->read_some(asio::buffer(chunk), ec);
        if (ec) break;
        out.append(chunk, n);
      }
      return out;
    }
  };
  std::unique_ptr<Tls> Connect() {
    auto c = std::make_unique<Tls>();
    c->ctx.load_verify_file(pki_.ca_cert.string());
    c->stream = std::make_unique<beast::ssl_stream<tcp::socket>>(io_, c->ctx);
    c->stream->next_layer().connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
    c->stream->handshake(asio::ssl::stream_base::client);
    return c;
  }
  static std::string Get(const std::string& path, bool keep_alive = true) {
    return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n" +
           (keep_alive ? "" : "Connection: close\r\n") + "\r\n";
  }
  // One request on a fresh connection: the status, or -1 when the connection failed.
  int Status(const std::string& path) {
    try {
      auto c = Connect();
      c->Send(Get(path, false));
      return c->Read().result_int();
    } catch (const std::exception&) {
      return -1;
    }
  }

  podlimits::testing::TempDir dir_{"podlimits-listener"};
  serve::NodePki pki_;
  asio::io_context io_;
  std::unique_ptr<HttpsServer> server_;
};

TEST_F(ListenerLimitsTest, ConnectionsThatNeverSendAByteLockNobodyOut) {
  // 1,030 of them locked every client out of the thread-per-connection listener.
  const std::size_t files = RaiseOpenFiles();
  const std::size_t idle_count = std::min<std::size_t>(2000, (files - 256) / 2);
  const int threads_before = ThreadsOfThisProcess();
  Start(
      [](HttpsServerOptions& o) {
        o.io_threads = 2;
        o.caps = {4096, 4096};  // all of them from one address, within both caps
      },
      Ok);
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (std::size_t i = 0; i < idle_count; ++i) idle.push_back(Idle());
  while (server_->stats().open < idle_count) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(Status("/api"), 200);
  const auto stats = server_->stats();
  EXPECT_GE(stats.open, idle_count);
  EXPECT_LE(stats.worker_threads, 2u);
  // Two io threads and the workers that ran the request: none per connection.
  EXPECT_LE(ThreadsOfThisProcess(), threads_before + 4);
}

TEST_F(ListenerLimitsTest, AtTheGlobalCapTheOldestWaitingConnectionMakesRoom) {
  Start([](HttpsServerOptions& o) { o.caps = {8, 8}; }, Ok);
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(Idle());
  while (server_->stats().open < 8) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(Status("/api"), 200);
  EXPECT_TRUE(ClosedWithin(idle[0]->native_handle(), 2s)) << "the oldest was not displaced";
  EXPECT_FALSE(ClosedWithin(idle[7]->native_handle(), 100ms)) << "the newest was displaced";
  EXPECT_GE(server_->stats().displaced_total, 1u);
}

TEST_F(ListenerLimitsTest, OneSourceCannotTakeMoreThanItsShare) {
  Start([](HttpsServerOptions& o) { o.caps = {100, 10}; }, Ok);
  std::vector<std::unique_ptr<tcp::socket>> flood;
  for (int i = 0; i < 30; ++i) flood.push_back(Idle("127.0.0.2"));
  // The first 20 make room for the last 10, each in its turn.
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(ClosedWithin(flood[i]->native_handle(), 2s)) << "connection " << i;
  }
  EXPECT_LE(server_->stats().open, 10u);
  EXPECT_EQ(Status("/api"), 200);  // another source is not affected
}

TEST_F(ListenerLimitsTest, WhenEverySlotIsBusyANewcomerIsRefused) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> entered{0};
  Start(
      [](HttpsServerOptions& o) {
        o.caps = {2, 2};
      },
      [&](const HttpRequest& r) {
        ++entered;
        released.wait();
        return Ok(r);
      });
  std::vector<std::thread> busy;
  std::atomic<int> answered{0};
  for (int i = 0; i < 2; ++i) {
    busy.emplace_back([&] { answered += Status("/slow") == 200; });
  }
  while (entered < 2) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(Status("/api"), -1);
  EXPECT_GE(server_->stats().refused_total, 1u);
  release.set_value();
  for (auto& t : busy) t.join();
  EXPECT_EQ(answered, 2);
  // A client has its answer before the server has let the connection's slot go: the slots
  // come back once those two connections are closed, which may take a moment on a busy machine.
  int after = -1;
  for (auto until = std::chrono::steady_clock::now() + 5s;
       after != 200 && std::chrono::steady_clock::now() < until;) {
    after = Status("/api");
    if (after != 200) std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(after, 200);
}

TEST_F(ListenerLimitsTest, DeadlinesCloseWhatStalls) {
  Start(
      [](HttpsServerOptions& o) {
        o.read_header_timeout = 300ms;
        o.idle_timeout = 300ms;
        o.body_timeout = 300ms;
      },
      Ok);
  auto silent = Idle();  // no TLS handshake
  auto half_header = Connect();
  half_header->Send("GET /api HTTP/1.1\r\nHost: loc");
  auto half_body = Connect();
  half_body->Send("POST /api HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n0123");
  auto kept = Connect();
  kept->Send(Get("/api"));
  EXPECT_EQ(kept->Read().result_int(), 200);  // then idle on keep-alive
  EXPECT_TRUE(ClosedWithin(silent->native_handle(), 3s));
  EXPECT_TRUE(ClosedWithin(half_header->fd(), 3s));
  EXPECT_TRUE(ClosedWithin(half_body->fd(), 3s));
  EXPECT_TRUE(ClosedWithin(kept->fd(), 3s));
  EXPECT_EQ(server_->stats().timed_out_total, 4u);
  // The slots are given back once each connection's last handler has run.
  for (int i = 0; i < 100 && server_->stats().open > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server_->stats().open, 0u);
}

TEST_F(ListenerLimitsTest, AKeepAliveConnectionIsNotCutShortWhileItsClientTalks) {
  Start([](HttpsServerOptions& o) { o.idle_timeout = 400ms; }, Ok);
  auto c = Connect();
  for (int i = 0; i < 6; ++i) {  // 1.2 s in all, each wait shorter than the idle timeout
    c->Send(Get("/api"));
    EXPECT_EQ(c->Read().result_int(), 200) << "request " << i;
    std::this_thread::sleep_for(200ms);
  }
}

TEST_F(ListenerLimitsTest, OversizedHeadersGetGos431) {
  Start([](HttpsServerOptions& o) { o.max_header_bytes = 64 * 1024; }, Ok);
  auto c = Connect();
  c->Send("GET /api HTTP/1.1\r\nHost: localhost\r\nX-Big: " + std::string(70 * 1024, 'a') +
          "\r\n\r\n");
  EXPECT_EQ(c->ReadAll(),
            "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; "
            "charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large");
  EXPECT_EQ(Status("/api"), 200);  // and nothing else is disturbed
}

TEST_F(ListenerLimitsTest, GarbageGetsGos400) {
  Start([](HttpsServerOptions&) {}, Ok);
  auto c = Connect();
  c->Send("HELLO THERE\r\n\r\n");
  EXPECT_EQ(c->ReadAll(),
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: "
            "close\r\n\r\n400 Bad Request");
}

TEST_F(ListenerLimitsTest, BodiesBeyondTheirBudgetGetTheApiserversTooManyRequests) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> entered{false};
  Start([](HttpsServerOptions& o) { o.max_buffered_body_bytes = 3000; },
        [&](const HttpRequest& r) {
          if (r.path == "/hold") {
            entered = true;
            released.wait();
          }
          return Ok(r);
        });
  auto post = [](const std::string& path, std::size_t size) {
    return "POST " + path +
           " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n" +
           std::string(size, 'b');
  };
  auto holder = Connect();  // 2,000 of the 3,000 bytes, held while its handler waits
  holder->Send(post("/hold", 2000));
  while (!entered) std::this_thread::sleep_for(5ms);
  auto over = Connect();
  over->Send(post("/api", 1500));
  EXPECT_EQ(over->ReadAll(),
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Retry-After: 1\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n"
            "Content-Length: 43\r\n\r\nToo many requests, please try again later.\n");
  auto fits = Connect();
  fits->Send(post("/api", 900));
  EXPECT_EQ(fits->Read().result_int(), 200);
  EXPECT_EQ(Status("/api"), 200);  // a request without a body needs no budget
  release.set_value();
  EXPECT_EQ(holder->Read().result_int(), 200);
  auto after = Connect();  // the held bytes are given back once their handler is done
  after->Send(post("/api", 2900));
  EXPECT_EQ(after->Read().result_int(), 200);
  EXPECT_EQ(server_->stats().too_many_total, 1u);
}

// The listener's figures as serve's and the webhook's /metrics carry them (listener_metrics.h),
// read back over the wire after a 431, a 400 and a 429, while one body is held.
TEST_F(ListenerLimitsTest, ItsFiguresReadBackFromMetrics) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> entered{false};
  auto source = std::make_shared<ListenerStatsSource>();
  Start([](HttpsServerOptions& o) { o.max_buffered_body_bytes = 3000; },
        [&, source](const HttpRequest& r) {
          if (r.path == "/metrics") return HttpResponse{200, "text/plain", source->MetricsText()};
          if (r.path == "/hold") {
            entered = true;
            released.wait();
          }
          return Ok(r);
        });
  EXPECT_EQ(source->MetricsText(), "");  // a request racing the start reports nothing
  source->Attach(*server_);
  auto post = [](const std::string& path, std::size_t size) {
    return "POST " + path +
           " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(size) +
           "\r\n\r\n" + std::string(size, 'b');
  };
  auto big = Connect();
  big->Send("GET /api HTTP/1.1\r\nHost: localhost\r\nX-Big: " + std::string(70 * 1024, 'a') +
            "\r\n\r\n");
  EXPECT_TRUE(big->ReadAll().starts_with("HTTP/1.1 431 "));
  auto garbage = Connect();
  garbage->Send("HELLO THERE\r\n\r\n");
  EXPECT_TRUE(garbage->ReadAll().starts_with("HTTP/1.1 400 "));
  auto holder = Connect();
  holder->Send(post("/hold", 2000));
  while (!entered) std::this_thread::sleep_for(5ms);
  auto over = Connect();
  over->Send(post("/api", 1500));
  EXPECT_TRUE(over->ReadAll().starts_with("HTTP/1.1 429 "));

  auto scrape = Connect();
  scrape->Send(Get("/metrics", false));
  const std::string text = scrape->Read().body();
  for (const std::string line :
       {"# TYPE podlimits_http_connections_open gauge\n",
        "podlimits_http_refusals_total{code=\"400\"} 1\n",
        "podlimits_http_refusals_total{code=\"413\"} 0\n",
        "podlimits_http_refusals_total{code=\"429\"} 1\n",
        "podlimits_http_refusals_total{code=\"431\"} 1\n",
        "podlimits_http_request_body_bytes_in_flight 2000\n",
        "podlimits_http_connections_refused_total 0\n",
        "podlimits_http_connections_displaced_total 0\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " in:\n" << text;
  }
  // The holder and the scrape itself at least; the refused ones may still be closing.
  const auto open = text.find("\npodlimits_http_connections_open ");
  ASSERT_NE(open, std::string::npos) << text;
  EXPECT_GE(std::stoi(text.substr(open + 33)), 2) << text;
  release.set_value();
  EXPECT_EQ(holder->Read().result_int(), 200);
}

TEST_F(ListenerLimitsTest, AResponseNobodyReadsIsDroppedAtTheWriteDeadline) {
  Start([](HttpsServerOptions& o) { o.write_timeout = 300ms; },
        [](const HttpRequest&) {
          return HttpResponse{200, "text/plain", std::string(64 << 20, 'x')};
        });
  auto c = Connect();
  c->Send(Get("/big"));
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server_->stats().timed_out_total == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(server_->stats().timed_out_total, 1u);
  EXPECT_TRUE(ClosedWithin(c->fd(), 3s));
}

TEST_F(ListenerLimitsTest, AStreamToAReaderThatStoppedEnds) {
  std::promise<void> ended;
  auto stream_ended = ended.get_future();
  Start([](HttpsServerOptions& o) { o.write_timeout = 300ms; },
        [&](const HttpRequest&) {
          HttpResponse r;
          r.stream = [&](ResponseStream& out) {
            const std::string chunk(64 * 1024, 'w');
            while (out.Write(chunk)) {
            }
            ended.set_value();
          };
          return r;
        });
  auto c = Connect();
  c->Send(Get("/watch"));
  EXPECT_EQ(stream_ended.wait_for(5s), std::future_status::ready);
}

// A handler that never blocks (the webhook's) runs on the io thread; one that streams anyway is a
// bug answered with a 500, never a blocked io thread.
TEST_F(ListenerLimitsTest, AHandlerThatNeverBlocksIsAnsweredInline) {
  Start([](HttpsServerOptions& o) { o.handler_blocks = false; },
        [](const HttpRequest& r) {
          if (r.path != "/stream") return Ok(r);
          HttpResponse streamed;
          streamed.stream = [](ResponseStream& out) { out.Write("never"); };
          return streamed;
        });
  auto c = Connect();
  for (int i = 0; i < 3; ++i) {
    c->Send(Get("/api"));
    auto answer = c->Read();
    EXPECT_EQ(answer.result_int(), 200);
    EXPECT_EQ(answer.body(), "ok /api");
  }
  EXPECT_EQ(Status("/stream"), 500);
  EXPECT_EQ(server_->stats().worker_threads, 0u);
}

// A TLS 1.3 client's Finished and its first request in one segment, as a fast client sends them
// (Python's http.client did, a third of the time): the server reads them together, so the
// request's records wait in the TLS stream's buffer while the socket shows nothing. Its answer
// once came only when the client gave up.
TEST_F(ListenerLimitsTest, ARequestThatArrivesWithTheClientsFinishedIsAnswered) {
  Start([](HttpsServerOptions&) {}, Ok);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL* ssl = SSL_new(ctx);
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, in, out);
  SSL_set_connect_state(ssl);
  auto socket = Idle();
  const int fd = socket->native_handle();
  auto flush = [&] {
    char chunk[16384];
    int n;
    while ((n = BIO_read(out, chunk, sizeof chunk)) > 0) ASSERT_EQ(send(fd, chunk, n, 0), n);
  };
  auto feed = [&] {
    char chunk[16384];
    const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    ASSERT_GT(n, 0);
    BIO_write(in, chunk, static_cast<int>(n));
  };
  while (SSL_do_handshake(ssl) != 1) {
    ASSERT_EQ(SSL_get_error(ssl, -1), SSL_ERROR_WANT_READ);
    if (BIO_pending(out) > 0 && !SSL_is_init_finished(ssl)) flush();
    feed();
  }
  // The handshake is done on this side: its Finished is still in `out`. The request joins it.
  const std::string request = Get("/api", false);
  ASSERT_EQ(SSL_write(ssl, request.data(), static_cast<int>(request.size())),
            static_cast<int>(request.size()));
  flush();
  std::string answer;
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (answer.find("ok /api") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char chunk[16384];
    const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    BIO_write(in, chunk, static_cast<int>(n));
    int got;
    while ((got = SSL_read(ssl, chunk, sizeof chunk)) > 0) answer.append(chunk, got);
  }
  EXPECT_NE(answer.find("HTTP/1.1 200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find("ok /api"), std::string::npos) << answer;
  SSL_free(ssl);
  SSL_CTX_free(ctx);
}

TEST_F(ListenerLimitsTest, DrainAnswersEveryRequestItReceivedAndClosesTheRest) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> entered{false};
  Start([](HttpsServerOptions&) {},
        [&](const HttpRequest& r) {
          if (r.path == "/block") {
            entered = true;
            released.wait();
          }
          return Ok(r);
        });
  auto in_flight = Connect();
  in_flight->Send(Get("/block"));
  auto half = Connect();
  half->Send("GET /half HTTP/1.1\r\nHost: loc");
  auto idle_tls = Connect();
  auto silent = Idle();
  while (!entered) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(50ms);  // the half request's bytes have reached the server
  std::thread drain([&] { server_->Drain(10s); });
  EXPECT_TRUE(ClosedWithin(idle_tls->fd(), 2s));
  EXPECT_TRUE(ClosedWithin(silent->native_handle(), 2s));
  half->Send("alhost\r\n\r\n");
  auto half_answer = half->Read();
  EXPECT_EQ(half_answer.result_int(), 200);
  EXPECT_EQ(half_answer.body(), "ok /half");
  EXPECT_FALSE(half_answer.keep_alive());
  release.set_value();
  auto blocked_answer = in_flight->Read();
  EXPECT_EQ(blocked_answer.result_int(), 200);
  EXPECT_FALSE(blocked_answer.keep_alive());
  drain.join();
  EXPECT_EQ(Status("/api"), -1);  // no longer accepting
}

}  // namespace
}  // namespace podlimits::http
