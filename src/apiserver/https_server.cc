#include "apiserver/https_server.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <condition_variable>
#include <limits>
#include <set>

#include "apiserver/api_errors.h"
#include "apiserver/websocket_connection.h"
#include "base/percent_encoding.h"

namespace podlimits::apiserver {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {

// A body announced beyond the limit is read and dropped up to this size before the 413.
constexpr std::uint64_t kMaxDrainedBytes = 64ull << 20;

// Go's url.ParseQuery, keeping the last value of a repeated key.
std::map<std::string, std::string> ParseQuery(std::string_view q) {
  std::map<std::string, std::string> out;
  while (!q.empty()) {
    std::size_t amp = q.find('&');
    std::string_view pair = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view() : q.substr(amp + 1);
    if (pair.empty()) continue;
    std::size_t eq = pair.find('=');
    std::string key = PercentDecode(pair.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
    out[std::move(key)] = std::move(value);
  }
  return out;
}

// The CN and the O entries of the peer's verified certificate, or nothing.
bool PeerIdentity(SSL* ssl, std::string& user, std::vector<std::string>& groups) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return false;
  const bool verified = SSL_get_verify_result(ssl) == X509_V_OK;
  if (verified) {
    X509_NAME* name = X509_get_subject_name(peer);
    for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
      X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
      const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
      const ASN1_STRING* data = X509_NAME_ENTRY_get_data(e);
      std::string text(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                       static_cast<std::size_t>(ASN1_STRING_length(data)));
      if (nid == NID_commonName) user = text;
      if (nid == NID_organizationName) groups.push_back(text);
    }
  }
  X509_free(peer);
  return verified && !user.empty();
}

bool TokenMatches(std::string_view header, const std::string& token) {
  constexpr std::string_view kBearer = "Bearer ";
  if (token.empty() || !header.starts_with(kBearer)) return false;
  std::string_view given = header.substr(kBearer.size());
  return given.size() == token.size() && CRYPTO_memcmp(given.data(), token.data(), token.size()) == 0;
}

// A chunked response body over the connection's TLS stream.
class ChunkedStream : public ResponseStream {
 public:
  ChunkedStream(beast::ssl_stream<tcp::socket>& stream, const std::atomic<bool>& stopping)
      : stream_(stream), stopping_(stopping) {}
  bool Write(std::string_view chunk) override {
    if (failed_ || stopping_) return false;
    if (chunk.empty()) return true;  // an empty chunk would end the body
    beast::error_code ec;
    asio::write(stream_, http::make_chunk(asio::const_buffer(chunk.data(), chunk.size())), ec);
    failed_ = static_cast<bool>(ec);
    return !failed_;
  }
  bool Closed() override {
    if (failed_ || stopping_) return true;
    // The client sends nothing while it reads a streamed body: anything readable on the socket
    // (its close_notify, or end of stream) means it is gone.
    char byte;
    const ssize_t n = ::recv(stream_.next_layer().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    const bool quiet = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    failed_ = !quiet;
    return failed_;
  }
  void Finish() {
    if (failed_) return;
    beast::error_code ec;
    asio::write(stream_, http::make_chunk_last(), ec);
  }

 private:
  beast::ssl_stream<tcp::socket>& stream_;
  const std::atomic<bool>& stopping_;
  bool failed_ = false;
};

// The identity, modification time and size of the serving certificate's files: when they
// change, the certificate is read again.
std::string FileStamp(const std::filesystem::path& cert, const std::filesystem::path& key) {
  std::string out;
  for (const auto* p : {&cert, &key}) {
    struct stat st{};
    if (::stat(p->c_str(), &st) != 0) return "";
    // The inode too: a replaced file written in the same clock tick, at the same size (a
    // renewed certificate is), still has another.
    out += fmt::format("{}:{}.{}:{};", st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                       st.st_size);
  }
  return out;
}

Result<std::shared_ptr<asio::ssl::context>> BuildContext(const HttpsServerOptions& options) {
  auto ssl = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  beast::error_code ec;
  ssl->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1);
  ssl->use_certificate_chain_file(options.cert_file.string(), ec);
  if (ec) return Failure("load serving certificate", options.cert_file, ec.message());
  ssl->use_private_key_file(options.key_file.string(), asio::ssl::context::pem, ec);
  if (ec) return Failure("load serving key", options.key_file, ec.message());
  if (!options.authenticate) return ssl;
  ssl->load_verify_file(options.client_ca_file.string(), ec);
  if (ec) return Failure("load client CA", options.client_ca_file, ec.message());
  // Ask for a certificate, but let clients without one through to the token check.
  ssl->set_verify_mode(asio::ssl::verify_peer);
  SSL_CTX_set_client_CA_list(ssl->native_handle(),
                             SSL_load_client_CA_file(options.client_ca_file.c_str()));
  return ssl;
}

}  // namespace

// One accepted connection and the io_context it belongs to (a WebSocket handler runs it; the
// socket goes before its context).
struct Connection {
  asio::io_context io{1};
  tcp::socket socket{io};
};

struct HttpsServer::Impl {
  asio::io_context io;
  HttpsServerOptions options;
  tcp::acceptor acceptor{io};
  HttpHandler handler;
  std::string token;
  int max_connections = 1024;
  std::thread accept_thread;
  std::atomic<bool> stopping{false};
  std::atomic<bool> draining{false};

  // The TLS context new connections get; a connection keeps the one it started with.
  std::mutex ssl_mu;
  std::shared_ptr<asio::ssl::context> ssl;
  std::string ssl_stamp;  // the files' stamp when last read (loaded or not)

  std::mutex mu;
  std::condition_variable idle;
  std::map<int, bool> open_fds;  // connections being served (busy: answering a request)
  int active = 0;

  std::shared_ptr<asio::ssl::context> CurrentContext();
  void SetBusy(int fd, bool busy);

  void Accept();
  void Serve(std::unique_ptr<Connection> connection);
  void Converse(Connection& connection);
  HttpResponse Authenticate(HttpRequest& request, SSL* ssl, bool& ok) const;
  void StreamResponse(beast::ssl_stream<tcp::socket>& stream, HttpResponse& response);
};

std::shared_ptr<asio::ssl::context> HttpsServer::Impl::CurrentContext() {
  std::lock_guard lock(ssl_mu);
  if (options.reload_certificate) {
    const std::string stamp = FileStamp(options.cert_file, options.key_file);
    if (!stamp.empty() && stamp != ssl_stamp) {
      ssl_stamp = stamp;
      if (auto fresh = BuildContext(options)) ssl = std::move(*fresh);
    }
  }
  return ssl;
}

void HttpsServer::Impl::SetBusy(int fd, bool busy) {
  std::lock_guard lock(mu);
  if (auto it = open_fds.find(fd); it != open_fds.end()) it->second = busy;
}

void HttpsServer::Impl::StreamResponse(beast::ssl_stream<tcp::socket>& stream,
                                       HttpResponse& response) {
  http::response<http::empty_body> res{static_cast<http::status>(response.status), 11};
  res.set(http::field::content_type, response.content_type);
  res.set("Cache-Control", "no-cache, private");
  for (const auto& [k, v] : response.headers) res.insert(k, v);  // Warning repeats
  res.keep_alive(false);
  res.chunked(true);
  http::response_serializer<http::empty_body> header(res);
  beast::error_code ec;
  http::write_header(stream, header, ec);
  if (ec) return;
  ChunkedStream body(stream, stopping);
  response.stream(body);
  body.Finish();
}

HttpResponse HttpsServer::Impl::Authenticate(HttpRequest& request, SSL* ssl, bool& ok) const {
  ok = PeerIdentity(ssl, request.user, request.groups);
  if (!ok) {
    auto auth = request.headers.find("authorization");
    if (auth != request.headers.end() && TokenMatches(auth->second, token)) {
      request.user = "token-user";
      request.groups = {"system:masters"};
      ok = true;
    }
  }
  if (ok) return {};
  return Unauthorized().Response();
}

void HttpsServer::Impl::Serve(std::unique_ptr<Connection> connection) {
  const int fd = connection->socket.native_handle();
  Converse(*connection);
  connection.reset();
  // Last: once `active` drops to zero Stop() may destroy this Impl, so the connection (its
  // socket belongs to `io`) must be gone by then.
  std::lock_guard lock(mu);
  open_fds.erase(fd);
  if (--active == 0) idle.notify_all();
}

void HttpsServer::Impl::Converse(Connection& connection) {
  tcp::socket& socket = connection.socket;
  // A client that stalls (no handshake, half a request, an idle keep-alive) is dropped after a
  // minute instead of holding a connection slot and a thread for ever.
  timeval limit{60, 0};
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  // No Nagle: a response goes out in several TLS records, and waiting for the client's delayed
  // ACK between them costs 40 ms (Go's net/http sets TCP_NODELAY too).
  beast::error_code nodelay_error;
  socket.set_option(tcp::no_delay(true), nodelay_error);
  const int fd = socket.native_handle();
  const std::shared_ptr<asio::ssl::context> ssl = CurrentContext();
  beast::ssl_stream<tcp::socket> stream(std::move(socket), *ssl);
  beast::error_code ec;
  stream.handshake(asio::ssl::stream_base::server, ec);
  beast::flat_buffer buffer;
  while (!ec && !stopping && !draining) {
    http::request_parser<http::string_body> parser;
    // The limit is checked here, after the header (Beast would refuse an announced length over
    // it while reading the header, without a way to answer).
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser.header_limit(64 * 1024);
    http::read_header(stream, buffer, parser, ec);
    if (ec) break;  // closed, or not HTTP
    SetBusy(fd, true);
    const auto length = parser.content_length();
    if (length && *length > kMaxRequestBodyBytes) {
      // Read and drop what the client sends (up to a bound) so that it sees the 413 instead of a
      // reset connection, then close.
      std::uint64_t left = *length - std::min<std::uint64_t>(*length, buffer.size());
      buffer.consume(buffer.size());
      char scratch[16384];
      while (left > 0 && *length <= kMaxDrainedBytes) {
        const std::size_t n = stream.read_some(
            asio::buffer(scratch, static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof scratch))),
            ec);
        if (ec) break;
        left -= n;
      }
      ec = http::error::body_limit;
    } else {
      parser.body_limit(kMaxRequestBodyBytes);  // a chunked body has no length to check first
      http::read(stream, buffer, parser, ec);
    }
    HttpResponse response;
    bool keep_alive = true;
    bool upgrade = false;
    if (ec == http::error::body_limit) {
      response = RequestEntityTooLarge(kMaxRequestBodyBytes).Response();
      keep_alive = false;
    } else if (ec) {
      break;  // closed, or not HTTP
    } else {
      auto& req = parser.get();
      HttpRequest request;
      request.method = std::string(req.method_string());
      request.target = std::string(req.target());
      const std::size_t q = request.target.find('?');
      request.path = PercentDecode(std::string_view(request.target).substr(0, q), false);
      if (q != std::string::npos) request.query = ParseQuery(std::string_view(request.target).substr(q + 1));
      for (const auto& field : req) {
        std::string name(field.name_string());
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        request.headers[name] = std::string(field.value());
      }
      request.body = std::move(req.body());
      keep_alive = req.keep_alive();
      upgrade = websocket::is_upgrade(req);
      bool authenticated = !options.authenticate;
      if (!authenticated) response = Authenticate(request, stream.native_handle(), authenticated);
      if (authenticated) response = handler(request);
    }
    if (response.websocket && upgrade) {
      WebSocketStream ws(stream);
      const std::string protocol = response.websocket_protocol;
      ws.set_option(websocket::stream_base::decorator([protocol](websocket::response_type& res) {
        if (!protocol.empty()) res.set(http::field::sec_websocket_protocol, protocol);
      }));
      ws.accept(parser.get(), ec);
      if (!ec) {
        WebSocketConnection accepted{connection.io, ws, stopping};
        response.websocket(accepted);
      }
      break;
    }
    if (response.websocket) response = BadRequest("Upgrade request required").Response();
    if (response.stream) {
      StreamResponse(stream, response);
      break;
    }
    http::response<http::string_body> res{static_cast<http::status>(response.status), 11};
    res.set(http::field::content_type, response.content_type);
    res.set("Cache-Control", "no-cache, private");
    for (const auto& [k, v] : response.headers) res.insert(k, v);  // Warning repeats
    if (draining) keep_alive = false;  // the last response of a draining server's connection
    res.keep_alive(keep_alive);
    res.body() = std::move(response.body);
    res.prepare_payload();
    http::write(stream, res, ec);
    SetBusy(fd, false);
    if (!keep_alive) break;
  }
  // close_notify, without waiting for the peer's: the connection closes right after.
  SSL_shutdown(stream.native_handle());
}

void HttpsServer::Impl::Accept() {
  while (!stopping) {
    auto connection = std::make_unique<Connection>();
    beast::error_code ec;
    acceptor.accept(connection->socket, ec);
    if (ec) {
      // A draining server shut its listener down: accept fails at once from then on.
      if (stopping || draining) break;
      continue;
    }
    std::lock_guard lock(mu);
    if (stopping || draining) break;
    if (active >= max_connections) continue;  // the socket closes as it goes out of scope
    open_fds[connection->socket.native_handle()] = false;
    ++active;
    std::thread([this, c = std::move(connection)]() mutable { Serve(std::move(c)); }).detach();
  }
}

HttpsServer::HttpsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpsServer::~HttpsServer() { Stop(); }

Result<std::unique_ptr<HttpsServer>> HttpsServer::Start(const HttpsServerOptions& options,
                                                        HttpHandler handler) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->handler = std::move(handler);
  impl->token = options.bearer_token;
  impl->max_connections = options.max_connections;
  impl->ssl_stamp = FileStamp(options.cert_file, options.key_file);
  auto ssl = BuildContext(options);
  if (!ssl) return std::unexpected(ssl.error());
  impl->ssl = std::move(*ssl);
  beast::error_code ec;

  auto address = asio::ip::make_address(options.address, ec);
  if (ec) return Failure("listen", {}, fmt::format("{}: {}", options.address, ec.message()));
  tcp::endpoint endpoint(address, options.port);
  const std::string where = fmt::format("{}:{}", options.address, options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Failure("listen", {}, fmt::format("{}: {}", where, ec.message()));
  const std::uint16_t port = impl->acceptor.local_endpoint().port();
  Impl* raw = impl.get();
  impl->accept_thread = std::thread([raw] { raw->Accept(); });
  std::unique_ptr<HttpsServer> server(new HttpsServer(std::move(impl)));
  server->port_ = port;
  return server;
}

void HttpsServer::Stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  // A blocked accept(2) returns once its socket is shut down; so does a blocked read.
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  std::unique_lock lock(impl_->mu);
  for (const auto& [fd, busy] : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
  impl_->idle.wait(lock, [&] { return impl_->active == 0; });
  lock.unlock();
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
}

void HttpsServer::Drain(std::chrono::milliseconds grace) {
  if (!impl_ || impl_->stopping) return;
  impl_->draining = true;
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);  // no new connections
  const auto deadline = std::chrono::steady_clock::now() + grace;
  std::unique_lock lock(impl_->mu);
  while (impl_->active > 0 && std::chrono::steady_clock::now() < deadline) {
    // An idle connection waits for a request that no longer comes: its read ends now. A busy
    // one ends after its response (keep-alive off).
    for (const auto& [fd, busy] : impl_->open_fds) {
      if (!busy) ::shutdown(fd, SHUT_RD);
    }
    impl_->idle.wait_for(lock, std::chrono::milliseconds(50));
  }
  lock.unlock();
  Stop();
}

}  // namespace podlimits::apiserver
