// The API listener: TLS with the node's certificates, who may talk to it, and its limits.
#include "http/https_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "serve/pki.h"
#include "temp_dir.h"
#include "websocket_test_support.h"

namespace podlimits::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;

struct Reply {
  int status = 0;
  std::string body;
  std::string error;
};

// One request over a fresh TLS connection, as a Go client makes it: the server certificate
// verified against the node's CA for "localhost", a client certificate when given.
Reply Request(std::uint16_t port, const serve::NodePki& pki, bool with_client_cert,
              const std::string& target, const std::string& body = "",
              const std::string& bearer = "") {
  Reply out;
  try {
    asio::io_context io;
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.load_verify_file(pki.ca_cert.string());
    ctx.set_verify_mode(asio::ssl::verify_peer);
    if (with_client_cert) {
      ctx.use_certificate_chain_file(pki.admin_cert.string());
      ctx.use_private_key_file(pki.admin_key.string(), asio::ssl::context::pem);
    }
    beast::ssl_stream<tcp::socket> stream(io, ctx);
    stream.set_verify_callback(asio::ssl::host_name_verification("localhost"));
    stream.next_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    stream.handshake(asio::ssl::stream_base::client);
    bhttp::request<bhttp::string_body> req{body.empty() ? bhttp::verb::get : bhttp::verb::post, target,
                                         11};
    req.set(bhttp::field::host, "localhost");
    if (!bearer.empty()) req.set(bhttp::field::authorization, "Bearer " + bearer);
    req.body() = body;
    req.prepare_payload();
    bhttp::write(stream, req);
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(16 << 20);
    bhttp::read(stream, buffer, parser);
    out.status = parser.get().result_int();
    out.body = parser.get().body();
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

class HttpsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pki_ = podlimits::testing::TestNodePki(dir_.path());
    HttpsServerOptions o = podlimits::testing::TestServerOptions(pki_);
    o.bearer_token = "s3cret-token";
    auto server = HttpsServer::Start(o, [](const HttpRequest& r) {
      std::string groups;
      for (const auto& g : r.groups) groups += g + ";";
      return HttpResponse{200, "text/plain",
                          r.method + " " + r.path + " user=" + r.user + " groups=" + groups +
                              " q=" + (r.query.contains("labelSelector") ? r.query.at("labelSelector") : "") +
                              " body=" + std::to_string(r.body.size()),
                          {}};
    });
    ASSERT_TRUE(server) << server.error();
    server_ = std::move(*server);
  }
  podlimits::testing::TempDir dir_{"podlimits-https"};
  serve::NodePki pki_;
  std::unique_ptr<HttpsServer> server_;
};

TEST_F(HttpsServerTest, WhoMayTalkToIt) {
  auto admin = Request(server_->port(), pki_, true, "/api/v1/pods?labelSelector=app%3Dweb");
  ASSERT_EQ(admin.error, "");
  EXPECT_EQ(admin.status, 200);
  EXPECT_EQ(admin.body,
            "GET /api/v1/pods user=kubernetes-admin groups=system:masters; q=app=web body=0");

  auto anonymous = Request(server_->port(), pki_, false, "/api");
  ASSERT_EQ(anonymous.error, "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}");

  EXPECT_EQ(Request(server_->port(), pki_, false, "/api", "", "s3cret-token").status, 200);
  EXPECT_EQ(Request(server_->port(), pki_, false, "/api", "", "s3cret-tokem").status, 401);
}

TEST_F(HttpsServerTest, BodiesOverTheApiserversLimit) {
  auto ok = Request(server_->port(), pki_, true, "/x", std::string(1024, 'a'));
  EXPECT_EQ(ok.status, 200) << ok.error;
  EXPECT_NE(ok.body.find("body=1024"), std::string::npos);
  auto big = Request(server_->port(), pki_, true, "/x", std::string(kMaxRequestBodyBytes + 1, 'a'));
  EXPECT_EQ(big.status, 413) << big.error;
  EXPECT_NE(big.body.find("Request entity too large: limit is 3145728"), std::string::npos);
}

TEST_F(HttpsServerTest, StopsWithConnectionsOpen) {
  // An idle connection (handshake done, no request) must not hold Stop up.
  asio::io_context io;
  tcp::socket idle(io);
  idle.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
  server_->Stop();
  auto after = Request(server_->port(), pki_, true, "/api");
  EXPECT_NE(after.error, "");
}

// A node PKI of its own in `dir` (its own CA).
serve::NodePki MakePki(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  serve::PkiOptions options;
  options.data_dir = dir;
  auto pki = serve::EnsureNodePki(options);
  EXPECT_TRUE(pki) << pki.error();
  return pki ? *pki : serve::NodePki{};
}

TEST(HttpsServerWebhook, WithoutAuthenticationAndWithAReloadedCertificate) {
  podlimits::testing::TempDir dir("podlimits-https-webhook");
  const serve::NodePki first = MakePki(dir.path() / "first");
  const serve::NodePki second = MakePki(dir.path() / "second");
  const std::filesystem::path cert = dir.path() / "tls.crt", key = dir.path() / "tls.key";
  std::filesystem::copy_file(first.serving_cert, cert);
  std::filesystem::copy_file(first.serving_key, key);
  HttpsServerOptions o;
  o.port = 0;
  o.cert_file = cert;
  o.key_file = key;
  o.authenticate = false;
  o.reload_certificate = true;
  auto server = HttpsServer::Start(
      o, [](const HttpRequest& r) { return HttpResponse{200, "text/plain", "user=" + r.user}; });
  ASSERT_TRUE(server) << server.error();
  // No client certificate, no token: served, as an apiserver calls a webhook.
  auto anonymous = Request((*server)->port(), first, false, "/validate");
  EXPECT_EQ(anonymous.status, 200) << anonymous.error;
  EXPECT_EQ(anonymous.body, "user=");

  // The Secret is renewed: the files are replaced (as a kubelet swaps a projected volume).
  std::filesystem::copy_file(second.serving_cert, dir.path() / "new.crt");
  std::filesystem::copy_file(second.serving_key, dir.path() / "new.key");
  std::filesystem::rename(dir.path() / "new.key", key);
  std::filesystem::rename(dir.path() / "new.crt", cert);
  EXPECT_EQ(Request((*server)->port(), second, false, "/validate").status, 200);
  EXPECT_NE(Request((*server)->port(), first, false, "/validate").error, "");  // old CA: refused

  // A half-written pair does not load: the one in use stays.
  {
    std::ofstream(cert) << "-----BEGIN CERTIFICATE-----\ntruncated";
  }
  EXPECT_EQ(Request((*server)->port(), second, false, "/validate").status, 200);
}

TEST(HttpsServerWebhook, DrainAnswersTheRequestInFlight) {
  podlimits::testing::TempDir dir("podlimits-https-drain");
  const serve::NodePki pki = MakePki(dir.path());
  HttpsServerOptions o;
  o.port = 0;
  o.cert_file = pki.serving_cert;
  o.key_file = pki.serving_key;
  o.authenticate = false;
  std::atomic<bool> entered{false};
  auto server = HttpsServer::Start(o, [&](const HttpRequest&) {
    entered = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return HttpResponse{200, "text/plain", "answered"};
  });
  ASSERT_TRUE(server) << server.error();
  const std::uint16_t port = (*server)->port();
  asio::io_context io;
  tcp::socket idle(io);  // an idle keep-alive connection must not hold the drain up
  idle.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  Reply in_flight;
  std::thread client([&] { in_flight = Request(port, pki, false, "/validate"); });
  while (!entered) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto start = std::chrono::steady_clock::now();
  (*server)->Drain(std::chrono::seconds(10));
  const auto took = std::chrono::steady_clock::now() - start;
  client.join();
  EXPECT_EQ(in_flight.status, 200) << in_flight.error;
  EXPECT_EQ(in_flight.body, "answered");
  EXPECT_LT(took, std::chrono::seconds(5));  // not the idle connection's minute, nor the grace
  EXPECT_NE(Request(port, pki, false, "/validate").error, "");  // no longer accepting
}

}  // namespace
}  // namespace podlimits::http
