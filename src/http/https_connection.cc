// One connection of the HTTPS server, from accept to close (https_listener.h). Every function
// here but the worker-side ones (Handle, StreamResponse, AcceptWebSocket, WriteFromWorker) runs
// on the connection's strand.
//
//   accept ─▶ wait for bytes ─▶ TLS handshake ─▶ wait for bytes ─▶ header ─▶ body ─▶ handler
//              (read_header_timeout, from accept)  (first: same; then idle_timeout, and
//                                                   read_header_timeout once bytes came)
//   handler ─▶ response written (write_timeout) ─▶ keep-alive: wait for bytes again
//           └▶ streamed body / WebSocket session on the worker ─▶ close
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <cerrno>
#include <future>
#include <limits>
#include <sstream>

#include "http/https_listener.h"
#include "http/plain_response.h"
#include "http/websocket_connection.h"
#include "base/percent_encoding.h"

namespace podlimits::http {
namespace {

namespace bhttp = beast::http;
namespace websocket = beast::websocket;
using error_code = boost::system::error_code;

// A body announced beyond the limit is read and dropped up to this size before the 413, so the
// client reads the answer instead of a reset connection.
constexpr std::uint64_t kMaxDrainedBytes = 64ull << 20;
// After a response that ends the connection, what the client still sends is read and dropped
// for this long before the socket closes: closing with unread bytes sends a reset, which can
// destroy the response in the client's receive buffer (Go's rstAvoidanceDelay, 500 ms).
constexpr auto kLingerAfterClose = std::chrono::milliseconds(500);
// A draining server keeps a connection that waits for a request this long, for the request its
// client may be sending at this moment (answered with `Connection: close`): closing it at once
// would lose a request already on the wire.
constexpr auto kDrainWait = std::chrono::milliseconds(1000);
// kube-apiserver's answer when its requests in flight are at their limit (max-in-flight's
// tooManyRequests: Go's http.Error, plain text), here when bodies being read and handled would
// pass max_buffered_body_bytes.
constexpr std::string_view kTooManyRequests =
    "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: "
    "1\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: 43\r\n\r\n"
    "Too many requests, please try again later.\n";
// A WebSocket session's peer that neither sends nor answers a ping for this long is gone.
constexpr auto kWebSocketIdle = std::chrono::seconds(60);

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
    std::string value =
        eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
    out[std::move(key)] = std::move(value);
  }
  return out;
}

// Go's net/http answers a request it cannot read with these exact bytes, then closes.
std::string GoRefusal(std::string_view status) {
  return fmt::format(
      "HTTP/1.1 {}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n{}",
      status, status);
}

// A malformed request (Go answers 400), as opposed to a peer that went away or timed out
// (Go answers nothing).
bool IsMalformed(const error_code& ec) {
  if (ec.category() != bhttp::make_error_code(bhttp::error::bad_method).category()) return false;
  return ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message &&
         ec != bhttp::error::short_read && ec != bhttp::error::need_more;
}

HttpRequest BuildRequest(bhttp::request<bhttp::string_body>& req) {
  HttpRequest request;
  request.method = std::string(req.method_string());
  request.target = std::string(req.target());
  const std::size_t q = request.target.find('?');
  request.path = PercentDecode(std::string_view(request.target).substr(0, q), false);
  if (q != std::string::npos) {
    request.query = ParseQuery(std::string_view(request.target).substr(q + 1));
  }
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request.headers[name] = std::string(field.value());
  }
  request.body = std::move(req.body());
  return request;
}

}  // namespace

HttpResponse HttpsConnection::Refusal(int status, std::string_view message) const {
  if (shared_.options.refusal) return shared_.options.refusal(status, message);
  // Go's http.Error.
  return {status,
          "text/plain; charset=utf-8",
          std::string(message) + "\n",
          {{"X-Content-Type-Options", "nosniff"}}};
}

HttpResponse HttpsConnection::TooLarge() const {
  shared_.too_large_total++;
  return Refusal(413, fmt::format("Request entity too large: limit is {}", kMaxRequestBodyBytes));
}

HttpsConnection::HttpsConnection(ListenerShared& shared, ConnectionTable::Id id,
                                 ConnectionSocket socket)
    : shared_(shared),
      id_(id),
      executor_(socket.get_executor()),
      socket_(std::move(socket)),
      fd_(socket_.native_handle()),
      timer_(executor_) {}

HttpsConnection::~HttpsConnection() {
  ReleaseBody();
  shared_.table.Remove(id_);
  shared_.Unregister(id_);
}

ConnectionSocket& HttpsConnection::Socket() {
  return stream_ ? stream_->next_layer() : socket_;
}

void HttpsConnection::Start() {
  error_code ignored;
  // No Nagle: a response goes out in several TLS records, and waiting for the client's delayed
  // ACK between them costs 40 ms (Go's net/http sets TCP_NODELAY too).
  socket_.set_option(tcp::no_delay(true), ignored);
  // TCP keep-alive every 3 minutes, as kube-apiserver's listener sets it: a peer that vanished
  // (a laptop closed mid-watch) is found out.
  socket_.set_option(asio::socket_base::keep_alive(true), ignored);
  const int period = 180;
  setsockopt(fd_, IPPROTO_TCP, TCP_KEEPIDLE, &period, sizeof period);
  setsockopt(fd_, IPPROTO_TCP, TCP_KEEPINTVL, &period, sizeof period);
  phase_ = Phase::kHandshake;
  Arm(shared_.options.read_header_timeout);
  // The TLS state (tens of kilobytes) is made once the client has sent something: a connection
  // that never sends a byte costs a socket and this object only.
  WaitForBytes(&HttpsConnection::Handshake);
}

namespace {

// The shortest of the listener's deadlines: a wait never expires later than this from when it
// starts, so a deadline set after it (at least this far off) finds it expiring in time.
std::chrono::milliseconds ShortestTimeout(const HttpsServerOptions& o) {
  return std::min({o.read_header_timeout, o.idle_timeout, o.body_timeout, o.write_timeout});
}

}  // namespace

void HttpsConnection::Arm(std::chrono::milliseconds deadline) {
  const auto now = std::chrono::steady_clock::now();
  deadline_ = now + deadline;
  if (timer_out_ && timer_expiry_ <= deadline_) return;  // fires in time, then waits on
  WaitUntil(std::min(deadline_, now + ShortestTimeout(shared_.options)));
}

void HttpsConnection::Disarm() {
  deadline_ = std::chrono::steady_clock::time_point::max();
}

void HttpsConnection::WaitUntil(std::chrono::steady_clock::time_point at) {
  const std::uint64_t generation = ++timer_generation_;
  timer_out_ = true;
  timer_expiry_ = at;
  timer_.expires_at(at);  // a wait still out ends, and its handler sees another generation
  timer_.async_wait([self = shared_from_this(), generation](error_code ec) {
    // A wait replaced by an earlier one, or one that completed just before it was replaced.
    if (generation != self->timer_generation_) return;
    self->timer_out_ = false;
    if (ec || self->closed_) return;
    self->OnTimer();
  });
}

void HttpsConnection::OnTimer() {
  if (deadline_ == std::chrono::steady_clock::time_point::max()) return;  // none: rest
  const auto now = std::chrono::steady_clock::now();
  if (now < deadline_) {
    return WaitUntil(std::min(deadline_, now + ShortestTimeout(shared_.options)));
  }
  Disarm();
  // Draining, a waiting connection takes what has arrived and closes otherwise.
  if (shared_.draining && phase_ == Phase::kWaiting) return CancelWait();
  shared_.timed_out_total++;
  DoClose();
}

void HttpsConnection::StopTimer() {
  Disarm();
  ++timer_generation_;
  timer_out_ = false;
  timer_.cancel();
}

void HttpsConnection::WaitForBytes(void (HttpsConnection::*next)()) {
  Socket().async_wait(tcp::socket::wait_read, [self = shared_from_this(), next](error_code ec) {
    if (self->closed_) return;
    if (ec) return self->End();
    ((*self).*next)();
  });
}

void HttpsConnection::Handshake() {
  context_ = shared_.serving.Current();
  stream_.emplace(std::move(socket_), *context_);
  stream_->async_handshake(asio::ssl::stream_base::server,
                           [self = shared_from_this()](error_code ec) {
                             if (self->closed_) return;
                             if (ec) return self->End();
                             self->NextRequest();
                           });
}

void HttpsConnection::NextRequest() {
  phase_ = Phase::kWaiting;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(shared_.options.max_header_bytes));
  // The body's limit is checked after the header (Beast would refuse an announced length over
  // it while reading the header, without a way to answer).
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  if (shared_.draining) {
    Arm(kDrainWait);
  } else if (!first_request_) {
    Arm(shared_.options.idle_timeout);
  }
  // The first request's header is due within read_header_timeout of the accept (armed then).
  if (buffer_.size() > 0) return ReadHeader();  // the client sent it with the last one
  // The wait is a read of the TLS stream, not a wait on the socket: the request's records may
  // already sit in the stream's buffer (they often arrive with the client's Finished), where
  // the socket shows nothing. (A wait on the socket first would spare the read's first try,
  // which finds the socket empty, but Boost 1.74's reactor pays an epoll_ctl for the wait.)
  stream_->async_read_some(buffer_.prepare(4096),
                           [self = shared_from_this()](error_code ec, std::size_t n) {
                             if (self->closed_) return;
                             self->buffer_.commit(n);
                             if (ec && n == 0)
                               return self->End();  // gone, timed out, or cancelled by a drain
                             self->ReadHeader();
                           });
  if (shared_.stopping) CancelWait();
}

// Takes what has arrived and closes the connection otherwise: cancelling the socket's read
// leaves a read that the stream's buffer can satisfy alone complete.
void HttpsConnection::CancelWait() {
  error_code ignored;
  Socket().cancel(ignored);
}

void HttpsConnection::ReadHeader() {
  if (!first_request_) Arm(shared_.options.read_header_timeout);
  phase_ = Phase::kReading;
  bhttp::async_read_header(
      *stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, std::size_t) {
        if (self->closed_) return;
        if (ec == bhttp::error::header_limit) {
          self->shared_.header_too_large_total++;
          return self->WriteRaw(GoRefusal("431 Request Header Fields Too Large"));
        }
        if (ec) return IsMalformed(ec) ? self->RefuseMalformed() : self->End();
        self->first_request_ = false;
        const auto length = self->parser_->content_length();
        if (length && *length > kMaxRequestBodyBytes) return self->RefuseBody();
        // No length and not chunked: no body at all.
        const std::uint64_t body = length                     ? *length
                                   : self->parser_->chunked() ? kMaxRequestBodyBytes
                                                              : 0;
        if (!self->ReserveBody(body)) return self->WriteRaw(std::string(kTooManyRequests));
        const auto expect = self->parser_->get()[bhttp::field::expect];
        if (beast::iequals(expect, "100-continue")) {
          // curl asks before sending a large body; Go's server answers when the handler reads it.
          self->raw_ = "HTTP/1.1 100 Continue\r\n\r\n";
          return asio::async_write(*self->stream_, asio::buffer(self->raw_),
                                   [self](error_code ec, std::size_t) {
                                     if (self->closed_) return;
                                     if (ec) return self->End();
                                     self->ReadBody();
                                   });
        }
        self->ReadBody();
      });
}

bool HttpsConnection::ReserveBody(std::uint64_t bytes) {
  if (bytes == 0) return true;
  std::uint64_t held = shared_.buffered_body_bytes.load();
  do {
    if (held + bytes > shared_.options.max_buffered_body_bytes) {
      shared_.too_many_total++;
      return false;
    }
  } while (!shared_.buffered_body_bytes.compare_exchange_weak(held, held + bytes));
  reserved_body_ = bytes;
  return true;
}

void HttpsConnection::ReleaseBody() {
  shared_.buffered_body_bytes -= reserved_body_.exchange(0);
}

void HttpsConnection::ReadBody() {
  Arm(shared_.options.body_timeout);
  parser_->body_limit(kMaxRequestBodyBytes);  // a chunked body has no length to check first
  bhttp::async_read(
      *stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, std::size_t) {
        if (self->closed_) return;
        if (ec == bhttp::error::body_limit) {
          return self->WriteResponse(self->TooLarge(), false);
        }
        if (ec) return IsMalformed(ec) ? self->RefuseMalformed() : self->End();
        self->Dispatch();
      });
}

void HttpsConnection::RefuseMalformed() {
  shared_.malformed_total++;
  WriteRaw(GoRefusal("400 Bad Request"));
}

void HttpsConnection::RefuseBody() {
  const std::uint64_t length = *parser_->content_length();
  if (length > kMaxDrainedBytes) {
    return WriteResponse(TooLarge(), false);
  }
  refused_left_ = length - std::min<std::uint64_t>(length, buffer_.size());
  buffer_.consume(buffer_.size());
  scratch_.resize(16384);
  Arm(shared_.options.body_timeout);
  DropBody();
}

void HttpsConnection::DropBody() {
  if (refused_left_ == 0) {
    return WriteResponse(TooLarge(), false);
  }
  const std::size_t n =
      static_cast<std::size_t>(std::min<std::uint64_t>(refused_left_, scratch_.size()));
  stream_->async_read_some(asio::buffer(scratch_.data(), n),
                           [self = shared_from_this()](error_code ec, std::size_t got) {
                             if (self->closed_) return;
                             if (ec) return self->End();
                             self->refused_left_ -= got;
                             self->DropBody();
                           });
}

void HttpsConnection::Dispatch() {
  Disarm();
  if (!shared_.table.Busy(id_)) return End();  // displaced while its request arrived
  phase_ = Phase::kBusy;
  auto& req = parser_->get();
  const bool keep_alive = req.keep_alive();
  const bool upgrade = websocket::is_upgrade(req);
  if (!shared_.options.handler_blocks) return Handle(BuildRequest(req), keep_alive, upgrade);
  shared_.workers.Run(
      [self = shared_from_this(), request = BuildRequest(req), keep_alive, upgrade]() mutable {
        self->Handle(std::move(request), keep_alive, upgrade);
      });
}

void HttpsConnection::Handle(HttpRequest request, bool keep_alive, bool upgrade) {
  HttpResponse response;
  bool authenticated = !shared_.options.authenticate;
  if (!authenticated) {
    authenticated = PeerIdentity(stream_->native_handle(), request.user, request.groups);
    auto auth = request.headers.find("authorization");
    if (!authenticated && auth != request.headers.end() &&
        TokenMatches(auth->second, shared_.options.bearer_token)) {
      request.user = "token-user";
      request.groups = {"system:masters"};
      authenticated = true;
    }
    if (!authenticated) response = Refusal(401, "Unauthorized");
  }
  if (authenticated) response = shared_.handler(request);
  std::string().swap(request.body);
  ReleaseBody();
  if (!shared_.options.handler_blocks && (response.websocket || response.stream)) {
    // A handler declared not to block answered with a stream: refused, not a hung io thread.
    response = Refusal(500, "the handler streams, but was declared not to block");
  }
  if (response.websocket && upgrade) return AcceptWebSocket(response);
  if (response.websocket) response = Refusal(400, "Upgrade request required");
  if (response.stream) return StreamResponse(response);
  if (!shared_.options.handler_blocks) return WriteResponse(std::move(response), keep_alive);
  asio::post(executor_,
             [self = shared_from_this(), response = std::move(response), keep_alive]() mutable {
               self->WriteResponse(std::move(response), keep_alive);
             });
}

void HttpsConnection::WriteResponse(HttpResponse response, bool keep_alive) {
  if (closed_ || closing_) return End();
  keep_alive = keep_alive && !shared_.draining && !shared_.stopping;
  phase_ = Phase::kBusy;
  Arm(shared_.options.write_timeout);
  if (auto bytes = PlainResponseBytes(response, keep_alive)) {
    raw_ = std::move(*bytes);
    return asio::async_write(*stream_, asio::buffer(raw_),
                             [self = shared_from_this(), keep_alive](error_code ec, std::size_t) {
                               self->ResponseWritten(ec, keep_alive);
                             });
  }
  auto res = std::make_shared<bhttp::response<bhttp::string_body>>(
      BeastResponse(std::move(response), keep_alive));
  bhttp::async_write(*stream_, *res,
                     [self = shared_from_this(), res, keep_alive](error_code ec, std::size_t) {
                       self->ResponseWritten(ec, keep_alive);
                     });
}

void HttpsConnection::ResponseWritten(error_code ec, bool keep_alive) {
  if (closed_) return;
  Disarm();
  if (ec) return End();
  if (!keep_alive) return EndAfterWrite();
  shared_.table.Waiting(id_);
  NextRequest();
}

void HttpsConnection::WriteRaw(std::string bytes) {
  raw_ = std::move(bytes);
  phase_ = Phase::kBusy;
  Arm(shared_.options.write_timeout);
  asio::async_write(*stream_, asio::buffer(raw_),
                    [self = shared_from_this()](error_code ec, std::size_t) {
                      if (self->closed_) return;
                      self->Disarm();
                      if (ec) return self->End();
                      self->EndAfterWrite();
                    });
}

void HttpsConnection::EndAfterWrite() {
  phase_ = Phase::kClosed;
  error_code ignored;
  Socket().shutdown(tcp::socket::shutdown_send, ignored);
  scratch_.resize(16384);
  Arm(kLingerAfterClose);
  Linger();
}

void HttpsConnection::Linger() {
  Socket().async_read_some(asio::buffer(scratch_),
                           [self = shared_from_this()](error_code ec, std::size_t) {
                             if (self->closed_) return;
                             if (ec) return self->End();
                             self->Linger();
                           });
}

void HttpsConnection::End() {
  phase_ = Phase::kClosed;
  DoClose();
}

void HttpsConnection::DoClose() {
  if (closed_) return;
  error_code ignored;
  if (phase_ == Phase::kBusy) {
    // A worker is using the connection: its operations end now, and the worker closes it
    // when it returns.
    closing_ = true;
    Socket().shutdown(tcp::socket::shutdown_both, ignored);
    return;
  }
  closed_ = true;
  StopTimer();
  Socket().shutdown(tcp::socket::shutdown_both, ignored);
  Socket().close(ignored);
}

void HttpsConnection::Close() {
  asio::post(executor_, [self = shared_from_this()] { self->DoClose(); });
}

void HttpsConnection::Drain() {
  asio::post(executor_, [self = shared_from_this()] {
    if (self->closed_) return;
    // A connection that has not sent a whole request (its handshake, or its next request, under
    // way) gets kDrainWait for it; anything else is answered (with `Connection: close`) first.
    if (self->phase_ == Phase::kHandshake || self->phase_ == Phase::kWaiting) {
      self->Arm(kDrainWait);
    }
  });
}

void HttpsConnection::FinishFromWorker(std::shared_ptr<void> keep) {
  asio::post(executor_, [self = shared_from_this(), keep = std::move(keep)]() mutable {
    keep.reset();
    self->End();
  });
}

bool HttpsConnection::WriteFromWorker(std::string_view bytes) {
  if (shared_.stopping) return false;
  std::promise<bool> written;
  auto done = written.get_future();
  asio::post(executor_, [this, bytes, &written] {
    if (closed_ || closing_) return written.set_value(false);
    Arm(shared_.options.write_timeout);
    asio::async_write(*stream_, asio::buffer(bytes.data(), bytes.size()),
                      [self = shared_from_this(), &written](error_code ec, std::size_t) {
                        self->Disarm();
                        written.set_value(!ec);
                      });
  });
  return done.get();
}

// A streamed response body (a watch, `kubectl logs -f`): chunked, one chunk per Write, each
// written at once.
class HttpsConnection::ChunkedBody : public ResponseStream {
 public:
  explicit ChunkedBody(HttpsConnection& connection) : connection_(connection) {}
  bool Write(std::string_view chunk) override {
    if (failed_ || connection_.shared_.stopping) return false;
    if (chunk.empty()) return true;  // an empty chunk would end the body
    std::string framed = fmt::format("{:x}\r\n", chunk.size());
    framed.append(chunk);
    framed += "\r\n";
    failed_ = !connection_.WriteFromWorker(framed);
    return !failed_;
  }
  bool Closed() override {
    if (failed_ || connection_.shared_.stopping) return true;
    // The client sends nothing while it reads a streamed body: anything readable on the socket
    // (its close_notify, or end of stream) means it is gone.
    char byte;
    const ssize_t n = ::recv(connection_.fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    const bool quiet = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    failed_ = !quiet;
    return failed_;
  }
  void Finish() {
    if (!failed_) connection_.WriteFromWorker("0\r\n\r\n");
  }

 private:
  HttpsConnection& connection_;
  bool failed_ = false;
};

void HttpsConnection::StreamResponse(HttpResponse& response) {
  bhttp::response<bhttp::empty_body> res{static_cast<bhttp::status>(response.status), 11};
  res.set(bhttp::field::content_type, response.content_type);
  res.set("Cache-Control", "no-cache, private");
  for (const auto& [k, v] : response.headers) res.insert(k, v);  // Warning repeats
  res.keep_alive(false);
  res.chunked(true);
  std::ostringstream header;
  header << res.base();
  if (WriteFromWorker(header.str())) {
    ChunkedBody body(*this);
    response.stream(body);
    body.Finish();
  }
  FinishFromWorker();
}

void HttpsConnection::AcceptWebSocket(const HttpResponse& response) {
  // Made and destroyed on the strand's side of the worker: its timer's handlers run there.
  auto owned = std::make_shared<WebSocketStream>(*stream_);
  WebSocketStream& ws = *owned;
  const std::string protocol = response.websocket_protocol;
  ws.set_option(websocket::stream_base::decorator([protocol](websocket::response_type& res) {
    if (!protocol.empty()) res.set(bhttp::field::sec_websocket_protocol, protocol);
  }));
  // A peer that stops reading, or vanishes, is found out by the pings it does not answer
  // (kubectl answers them while it reads); an interactive session may otherwise be silent.
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = shared_.options.write_timeout;
  timeouts.idle_timeout = kWebSocketIdle;
  timeouts.keep_alive_pings = true;
  ws.set_option(timeouts);
  std::promise<error_code> accepted;
  auto done = accepted.get_future();
  asio::post(executor_, [this, &ws, &accepted] {
    if (closed_ || closing_) return accepted.set_value(asio::error::operation_aborted);
    ws.async_accept(parser_->get(), [self = shared_from_this(), &accepted](error_code ec) {
      accepted.set_value(ec);
    });
  });
  if (!done.get()) {
    WebSocketConnection connection{executor_, ws, shared_.stopping};
    response.websocket(connection);
  }
  FinishFromWorker(std::move(owned));
}

}  // namespace podlimits::http
