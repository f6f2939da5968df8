// The HTTPS server's insides (https_server.h is the interface): what every connection shares
// with the listener, and one connection's life. Private to https_server.cc and
// https_connection.cc.
//
// Threads: `io_threads` run the sockets, every connection on a strand of its own (its handlers
// run one at a time, on whichever io thread is free); nothing on them blocks. A request, once
// read whole, is handled on the worker pool; a plain response goes back to the strand to be
// written; a streamed response or a WebSocket session keeps its worker thread, which hands each
// write to the strand and waits for it (so every write still has its deadline).
#pragma once

#include <atomic>
#include <chrono>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "http/connection_socket.h"
#include "http/connection_table.h"
#include "http/https_server.h"
#include "http/tls_context.h"
#include "http/worker_pool.h"

namespace podlimits::http {

namespace beast = boost::beast;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class HttpsConnection;

struct ListenerShared {
  ListenerShared(HttpsServerOptions options, HttpHandler handler, TlsFiles files,
                 std::shared_ptr<asio::ssl::context> context)
      : options(std::move(options)),
        handler(std::move(handler)),
        serving(std::move(files), this->options.reload_certificate, std::move(context)),
        table(this->options.caps) {}

  const HttpsServerOptions options;
  const HttpHandler handler;
  ServingContext serving;
  ConnectionTable table;
  WorkerPool workers;
  std::atomic<bool> stopping{false};
  std::atomic<bool> draining{false};
  std::atomic<std::uint64_t> displaced_total{0}, refused_total{0}, timed_out_total{0},
      too_many_total{0}, header_too_large_total{0}, malformed_total{0}, too_large_total{0};
  // Bytes of request bodies being read or handled, each counted at its announced length.
  std::atomic<std::uint64_t> buffered_body_bytes{0};

  // Every connection object alive, by id; Stop waits for it to empty.
  std::mutex mu;
  std::condition_variable gone;
  std::unordered_map<ConnectionTable::Id, std::weak_ptr<HttpsConnection>> live;

  void Register(ConnectionTable::Id id, std::weak_ptr<HttpsConnection> connection);
  void Unregister(ConnectionTable::Id id);
  // Closes each of `ids` that is still alive (on its own strand).
  void CloseConnections(const std::vector<ConnectionTable::Id>& ids);
};

class HttpsConnection : public std::enable_shared_from_this<HttpsConnection> {
 public:
  HttpsConnection(ListenerShared& shared, ConnectionTable::Id id, ConnectionSocket socket);
  ~HttpsConnection();

  const ConnectionStrand& executor() const { return executor_; }
  // Runs on the connection's strand from here on.
  void Start();
  // Closes the connection now (any thread): its pending operations end.
  void Close();
  // The server drains: a connection with no request under way closes now; one whose request's
  // bytes have arrived answers it (with `Connection: close`) first.
  void Drain();

 private:
  enum class Phase { kHandshake, kWaiting, kReading, kBusy, kClosed };
  using TlsStream = beast::ssl_stream<ConnectionSocket>;
  using RequestParser = beast::http::request_parser<beast::http::string_body>;
  class ChunkedBody;

  ConnectionSocket& Socket();
  HttpResponse Refusal(int status, std::string_view message) const;
  HttpResponse TooLarge() const;  // 413 (and counted)
  void RefuseMalformed();         // Go's 400 (counted), then the end
  // One deadline at a time: the connection closes when it passes. Arm and Disarm only move the
  // deadline; the timer's one wait out never expires after it (WaitUntil), and when it fires
  // before the deadline it waits again for what is left (OnTimer). Re-arming the timer itself for
  // every phase of every request cost a cancel, a new wait and a cancelled handler's run apiece,
  // five times a review (docs/benchmarks.md, issue 32).
  void Arm(std::chrono::milliseconds deadline);
  void Disarm();
  void WaitUntil(std::chrono::steady_clock::time_point at);
  void OnTimer();
  void StopTimer();  // closed: the wait out ends now, and with it the handler's hold
  // Before the handshake: until the client sends its hello (no TLS state exists yet).
  void WaitForBytes(void (HttpsConnection::*next)());
  void Handshake();
  // Waits (kWaiting) for the next request's first bytes, then reads it.
  void NextRequest();
  void CancelWait();
  void ReadHeader();
  // Counts the body (its announced length; a chunked one at the 3 MiB it may reach) against
  // max_buffered_body_bytes; false when it would pass it.
  bool ReserveBody(std::uint64_t bytes);
  void ReleaseBody();  // any thread; once the body is no longer held
  void ReadBody();
  void RefuseBody();
  void DropBody();
  void Dispatch();
  void WriteResponse(HttpResponse response, bool keep_alive);
  void ResponseWritten(boost::system::error_code ec, bool keep_alive);
  void WriteRaw(std::string bytes);  // a refusal in Go's own words, then the end
  void EndAfterWrite();
  void Linger();
  void End();
  void DoClose();

  // On a worker thread.
  void Handle(HttpRequest request, bool keep_alive, bool upgrade);
  // One write on the strand, with the write deadline, waited for; false when it failed or the
  // server stops.
  bool WriteFromWorker(std::string_view bytes);
  void StreamResponse(HttpResponse& response);
  void AcceptWebSocket(const HttpResponse& response);
  // The worker is done with the connection: it closes (on the strand), and `keep` (what the
  // worker used on it) goes there too.
  void FinishFromWorker(std::shared_ptr<void> keep = nullptr);

  ListenerShared& shared_;
  const ConnectionTable::Id id_;
  const ConnectionStrand executor_;  // the connection's strand
  ConnectionSocket socket_;          // until the first bytes arrive; then inside stream_
  std::optional<TlsStream> stream_;
  std::shared_ptr<asio::ssl::context> context_;
  const int fd_;
  ConnectionTimer timer_;
  std::uint64_t timer_generation_ = 0;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point timer_expiry_{};  // of the wait out, when timer_out_
  bool timer_out_ = false;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::string raw_;
  std::vector<char> scratch_;
  std::uint64_t refused_left_ = 0;
  std::atomic<std::uint64_t> reserved_body_{0};
  Phase phase_ = Phase::kHandshake;
  bool first_request_ = true;
  bool closing_ = false;  // closed while busy: the worker's operations fail, then it closes
  bool closed_ = false;
  friend struct ListenerShared;
};

}  // namespace podlimits::http
