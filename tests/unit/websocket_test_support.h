// What the tests of the HTTPS server and of the sessions that stream over it share: the node's
// certificates, a server that serves with them, and a WebSocket client that connects as kubectl
// does (TLS with the admin certificate, a subprotocol offered).
#pragma once

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "listwatch/api_errors.h"
#include "http/https_server.h"
#include "serve/pki.h"

namespace podlimits::testing {

// The node's CA, serving and admin certificates under `dir` (the test fails without them).
inline serve::NodePki TestNodePki(const std::filesystem::path& dir) {
  serve::PkiOptions options;
  options.data_dir = dir;
  auto pki = serve::EnsureNodePki(options);
  EXPECT_TRUE(pki) << pki.error();
  return pki ? *pki : serve::NodePki{};
}

// Serving with `pki` on a free loopback port, client certificates from its CA, refusals as the
// API's Status objects (as serve serves).
inline http::HttpsServerOptions TestServerOptions(const serve::NodePki& pki) {
  http::HttpsServerOptions o;
  o.port = 0;
  o.cert_file = pki.serving_cert;
  o.key_file = pki.serving_key;
  o.client_ca_file = pki.ca_cert;
  o.refusal = apiserver::ListenerRefusal;
  return o;
}

using TestWebSocket = boost::beast::websocket::stream<
    boost::beast::ssl_stream<boost::asio::ip::tcp::socket>>;

// A client of the server on `port`: TLS with the admin certificate, the upgrade of `target`
// offering `protocol`, binary messages. The server's chosen protocol goes to `chosen`.
inline std::unique_ptr<TestWebSocket> ConnectTestWebSocket(boost::asio::io_context& io,
                                                           boost::asio::ssl::context& ctx,
                                                           const serve::NodePki& pki, int port,
                                                           const std::string& target,
                                                           const std::string& protocol,
                                                           std::string* chosen = nullptr) {
  namespace beast = boost::beast;
  namespace websocket = beast::websocket;
  ctx.load_verify_file(pki.ca_cert.string());
  ctx.use_certificate_chain_file(pki.admin_cert.string());
  ctx.use_private_key_file(pki.admin_key.string(), boost::asio::ssl::context::pem);
  auto ws = std::make_unique<TestWebSocket>(io, ctx);
  beast::get_lowest_layer(*ws).connect(boost::asio::ip::tcp::endpoint(
      boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
  ws->next_layer().handshake(boost::asio::ssl::stream_base::client);
  ws->set_option(websocket::stream_base::decorator([protocol](websocket::request_type& req) {
    req.set(beast::http::field::sec_websocket_protocol, protocol);
  }));
  websocket::response_type res;
  ws->handshake(res, "localhost", target);
  if (chosen != nullptr) *chosen = std::string(res[beast::http::field::sec_websocket_protocol]);
  ws->binary(true);
  return ws;
}

}  // namespace podlimits::testing
