#include "kubelet/prober/http_get.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>

#include "field/field.h"
#include "kubelet/prober/probe_dial.h"

namespace podlimits::kubelet {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kAwaitingHeaders =
    "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
constexpr std::string_view kReadingBody =
    "context deadline exceeded (Client.Timeout or context cancellation while reading body)";
// Go's http.Transport MaxResponseHeaderBytes default.
constexpr std::uint32_t kMaxHeaderBytes = 1 << 20;

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// The request's header lines as newProbeRequest and Go's transport make them.
http::request<http::empty_body> ProbeRequest(const HttpGetRequest& in) {
  http::request<http::empty_body> req{http::verb::get, in.target.empty() ? "/" : in.target, 11};
  const bool ipv6 = in.host.find(':') != std::string::npos;
  std::string host = ipv6 ? fmt::format("[{}]:{}", in.host, in.port)
                          : fmt::format("{}:{}", in.host, in.port);
  std::optional<std::string> user_agent = std::string(kProbeUserAgent);
  std::optional<std::string> accept = std::string("*/*");
  std::vector<std::pair<std::string, std::string>> rest;
  for (const auto& [name, value] : in.headers) {
    const std::string canonical = CanonicalHeaderName(name);
    if (canonical == "Host") {
      if (!value.empty()) host = value;
    } else if (canonical == "User-Agent") {
      user_agent = value.empty() ? std::nullopt : std::optional<std::string>(value);
    } else if (canonical == "Accept") {
      accept = value.empty() ? std::nullopt : std::optional<std::string>(value);
    } else {
      rest.emplace_back(canonical, value);
    }
  }
  req.set(http::field::host, host);
  if (user_agent) req.set(http::field::user_agent, *user_agent);
  if (accept) req.set(http::field::accept, *accept);
  for (const auto& [name, value] : rest) req.insert(name, value);
  req.set(http::field::connection, "close");
  return req;
}

// One connection: a socket from Dial, optionally TLS over it, and a loop that runs one
// asynchronous operation at a time until it ends, the deadline passes or the run is cancelled.
class ProbeConnection {
 public:
  ProbeConnection(Clock::time_point deadline, const std::atomic<bool>* cancelled)
      : tcp_(ioc_), deadline_(deadline), cancelled_(cancelled) {}

  Result<void> Open(const HttpGetRequest& in) {
    auto fd = Dial(in.host, in.port, in.netns_pid, deadline_, cancelled_);
    if (!fd) return std::unexpected(std::move(fd.error()));
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    getsockname(fd->get(), reinterpret_cast<sockaddr*>(&local), &len);
    const auto protocol = local.ss_family == AF_INET6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4();
    beast::error_code ec;
    tcp_.socket().assign(protocol, fd->get(), ec);
    if (ec) return Failure(ec.message());
    (void)fd->Release();
    if (in.scheme != "https") return {};
    // The kubelet's prober trusts any certificate (InsecureSkipVerify).
    tls_context_.emplace(asio::ssl::context::tls_client);
    tls_context_->set_verify_mode(asio::ssl::verify_none);
    tls_.emplace(tcp_, *tls_context_);
    if (!IsIpLiteral(in.host)) SSL_set_tlsext_host_name(tls_->native_handle(), in.host.c_str());
    ec = Run([&](auto done) {
      tls_->async_handshake(asio::ssl::stream_base::client,
                            [done](beast::error_code e) { done(e, 0); });
    });
    if (IsTimeout(ec)) return Failure(std::string(kAwaitingHeaders));
    if (ec) return Failure(fmt::format("tls: handshake failed: {}", ec.message()));
    return {};
  }

  beast::error_code Write(const http::request<http::empty_body>& req) {
    return Run([&](auto done) {
      if (tls_) {
        http::async_write(*tls_, req, done);
      } else {
        http::async_write(tcp_, req, done);
      }
    });
  }

  template <typename Parser>
  beast::error_code ReadHeader(beast::flat_buffer& buffer, Parser& parser) {
    return Run([&](auto done) {
      if (tls_) {
        http::async_read_header(*tls_, buffer, parser, done);
      } else {
        http::async_read_header(tcp_, buffer, parser, done);
      }
    });
  }

  template <typename Parser>
  beast::error_code ReadSome(beast::flat_buffer& buffer, Parser& parser) {
    return Run([&](auto done) {
      if (tls_) {
        http::async_read_some(*tls_, buffer, parser, done);
      } else {
        http::async_read_some(tcp_, buffer, parser, done);
      }
    });
  }

  bool IsTimeout(const beast::error_code& ec) const {
    return ec == beast::error::timeout || ec == asio::error::operation_aborted;
  }

 private:
  // Starts one operation through `initiate(done)` and runs the io_context until `done` is
  // called. The stream's timer closes the socket at the deadline (beast::error::timeout); a
  // cancelled run cancels the operation (operation_aborted).
  template <typename Initiate>
  beast::error_code Run(Initiate initiate) {
    std::optional<beast::error_code> result;
    tcp_.expires_at(deadline_);
    initiate([&result](beast::error_code ec, std::size_t) { result = ec; });
    bool cancel_sent = false;
    while (!result) {
      if (ioc_.stopped()) ioc_.restart();
      ioc_.run_for(std::chrono::milliseconds(100));
      if (!result && !cancel_sent && cancelled_ != nullptr && cancelled_->load()) {
        tcp_.cancel();
        cancel_sent = true;
      }
    }
    return *result;
  }

  asio::io_context ioc_;
  beast::tcp_stream tcp_;
  std::optional<asio::ssl::context> tls_context_;
  std::optional<asio::ssl::stream<beast::tcp_stream&>> tls_;
  Clock::time_point deadline_;
  const std::atomic<bool>* cancelled_;
};

// Go's words for an error that ended the response before its headers were read.
std::string HeaderError(const beast::error_code& ec, const beast::flat_buffer& buffer,
                        const ProbeConnection& conn) {
  if (conn.IsTimeout(ec)) return std::string(kAwaitingHeaders);
  if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
      ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
    return "EOF";
  }
  if (ec == http::error::header_limit) return "net/http: response headers too large";
  if (ec.category() == http::make_error_code(http::error::bad_version).category()) {
    std::string_view head(static_cast<const char*>(buffer.data().data()), buffer.size());
    head = head.substr(0, head.find("\r\n\r\n"));
    return fmt::format("malformed HTTP response {}",
                       field::GoQuote(std::string(head.substr(0, 40))));
  }
  return ec.message();
}

// Go's words for an error while reading the body.
std::string BodyError(const beast::error_code& ec, const ProbeConnection& conn) {
  if (conn.IsTimeout(ec)) return std::string(kReadingBody);
  if (ec == http::error::partial_message || ec == http::error::end_of_stream ||
      ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
    return "unexpected EOF";
  }
  if (ec == http::error::bad_chunk || ec == http::error::bad_chunk_extension) {
    return "invalid byte in chunk length";
  }
  return ec.message();
}

}  // namespace

std::string CanonicalHeaderName(std::string_view name) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), IsTokenChar)) {
    return std::string(name);
  }
  std::string out(name);
  bool upper = true;
  for (char& c : out) {
    c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
    upper = c == '-';
  }
  return out;
}

Result<HttpGetResponse> HttpGet(const HttpGetRequest& request, Clock::time_point deadline,
                                const std::atomic<bool>* cancelled) {
  ProbeConnection conn(deadline, cancelled);
  if (auto opened = conn.Open(request); !opened) return std::unexpected(opened.error());
  if (auto ec = conn.Write(ProbeRequest(request)); ec) {
    return Failure(std::string(kAwaitingHeaders));
  }

  beast::flat_buffer buffer;
  // Interim answers (100 Continue, 103 Early Hints) come before the real one; Go's transport
  // reads past them. 101 is final.
  std::optional<http::response_parser<http::string_body>> parser;
  while (true) {
    parser.emplace();
    parser->header_limit(kMaxHeaderBytes);
    // No limit: the loop below stops reading at kMaxProbeBodyBytes.
    parser->body_limit(std::numeric_limits<std::uint64_t>::max());
    if (auto ec = conn.ReadHeader(buffer, *parser); ec) {
      return Failure(HeaderError(ec, buffer, conn));
    }
    const unsigned status = parser->get().result_int();
    if (status < 100 || status >= 200 || status == 101) break;
  }

  HttpGetResponse out;
  out.status = static_cast<int>(parser->get().result_int());
  if (auto it = parser->get().find(http::field::location); it != parser->get().end()) {
    out.location = std::string(it->value());
  }
  while (!parser->is_done() && parser->get().body().size() < kMaxProbeBodyBytes) {
    auto ec = conn.ReadSome(buffer, *parser);
    // A TLS peer that closes without close_notify ends a body that runs to the end of the
    // connection, as a plain close does.
    if (ec == asio::ssl::error::stream_truncated && parser->need_eof()) parser->put_eof(ec);
    if (ec) {
      out.body_error = BodyError(ec, conn);
      break;
    }
  }
  out.body = std::move(parser->get().body());
  if (out.body.size() > kMaxProbeBodyBytes) out.body.resize(kMaxProbeBodyBytes);
  return out;
}

}  // namespace podlimits::kubelet
