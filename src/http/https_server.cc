#include "http/https_server.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <future>
#include <thread>

#include "http/https_listener.h"

namespace podlimits::http {

void ListenerShared::Register(ConnectionTable::Id id, std::weak_ptr<HttpsConnection> connection) {
  std::lock_guard lock(mu);
  live[id] = std::move(connection);
}

void ListenerShared::Unregister(ConnectionTable::Id id) {
  std::lock_guard lock(mu);
  live.erase(id);
  if (live.empty()) gone.notify_all();
}

void ListenerShared::CloseConnections(const std::vector<ConnectionTable::Id>& ids) {
  for (const auto id : ids) {
    std::shared_ptr<HttpsConnection> connection;
    {
      std::lock_guard lock(mu);
      auto it = live.find(id);
      if (it != live.end()) connection = it->second.lock();
    }
    if (connection) connection->Close();
  }
}

namespace {

// The address a connection's cap is counted against: IPv4 clients of a dual-stack listener
// count as their IPv4 address.
std::string SourceOf(const ConnectionSocket& socket) {
  boost::system::error_code ec;
  auto address = socket.remote_endpoint(ec).address();
  if (ec) return "";
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return address.to_v6().to_v4().to_string();
  }
  return address.to_string();
}

// The global cap, lowered to what the open-file limit leaves for everything else the process
// keeps open (its store, its pods' pipes, exec sessions): an eighth, and at least 256.
std::size_t FitToOpenFileLimit(std::size_t cap) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return cap;
  const auto files = static_cast<std::size_t>(limit.rlim_cur);
  const std::size_t reserve = std::max<std::size_t>(256, files / 8);
  return std::clamp<std::size_t>(files > reserve ? files - reserve : 1, 1, cap);
}

bool OutOfDescriptors(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE ||
         ec == asio::error::no_buffer_space || ec == asio::error::no_memory;
}

}  // namespace

struct HttpsServer::Impl {
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work{io.get_executor()};
  std::unique_ptr<ListenerShared> shared;
  tcp::acceptor acceptor{asio::make_strand(io)};
  asio::steady_timer backoff{acceptor.get_executor()};
  std::vector<std::thread> threads;
  ConnectionTable::Id next_id = 1;  // the acceptor's strand only

  void Accept();
  void Admit(ConnectionSocket socket);
  // Stops accepting: the acceptor closes on its strand (draining, after taking in what its
  // backlog holds).
  void CloseAcceptor(bool drain);
  void CloseAll(bool drain);
  // Waits until no connection is left, or `deadline` passes; true when none is left.
  bool WaitForNone(std::chrono::steady_clock::time_point deadline);
};

void HttpsServer::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(io),
                        [this](boost::system::error_code ec, ConnectionSocket socket) {
                          if (ec == asio::error::operation_aborted || shared->stopping) return;
                          // A connection the kernel accepted before a drain began is served, not
                          // reset.
                          if (shared->draining) {
                            if (!ec) Admit(std::move(socket));
                            return;
                          }
                          if (ec) {
                            // Out of descriptors (or kernel memory) the accept fails at once, again
                            // and again: make room by closing a waiting connection, and wait a
                            // little before the next try, so the accept loop never spins.
                            auto delay = std::chrono::milliseconds(0);
                            if (OutOfDescriptors(ec)) {
                              auto displaced = shared->table.DisplaceOne();
                              shared->displaced_total += displaced.size();
                              shared->CloseConnections(displaced);
                              delay = std::chrono::milliseconds(displaced.empty() ? 100 : 10);
                            }
                            backoff.expires_after(delay);
                            backoff.async_wait([this](boost::system::error_code waited) {
                              if (!waited) Accept();
                            });
                            return;
                          }
                          Admit(std::move(socket));
                          Accept();
                        });
}

void HttpsServer::Impl::Admit(ConnectionSocket socket) {
  const ConnectionTable::Id id = next_id++;
  auto admission = shared->table.Admit(id, SourceOf(socket));
  shared->displaced_total += admission.displaced.size();
  shared->CloseConnections(admission.displaced);
  if (!admission.admitted) {
    shared->refused_total++;
    return;  // the socket closes as it goes: every slot it could take is busy
  }
  auto connection = std::make_shared<HttpsConnection>(*shared, id, std::move(socket));
  shared->Register(id, connection);
  asio::post(connection->executor(), [connection] { connection->Start(); });
}

void HttpsServer::Impl::CloseAcceptor(bool drain) {
  std::promise<void> closed;
  asio::post(acceptor.get_executor(), [this, drain, &closed] {
    boost::system::error_code ignored;
    if (drain) {
      // Closing a listening socket resets the connections waiting in its backlog, whose clients
      // have sent their requests already: they are taken in first, and answered.
      acceptor.non_blocking(true, ignored);
      while (acceptor.is_open()) {
        boost::system::error_code ec;
        ConnectionSocket socket = acceptor.accept(asio::make_strand(io), ec);
        if (ec) break;
        Admit(std::move(socket));
      }
    }
    acceptor.close(ignored);
    backoff.cancel();
    closed.set_value();
  });
  closed.get_future().wait();
}

void HttpsServer::Impl::CloseAll(bool drain) {
  std::vector<std::shared_ptr<HttpsConnection>> all;
  {
    std::lock_guard lock(shared->mu);
    for (auto& [id, weak] : shared->live) {
      if (auto c = weak.lock()) all.push_back(std::move(c));
    }
  }
  for (auto& c : all) drain ? c->Drain() : c->Close();
}

bool HttpsServer::Impl::WaitForNone(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(shared->mu);
  return shared->gone.wait_until(lock, deadline, [this] { return shared->live.empty(); });
}

HttpsServer::HttpsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpsServer::~HttpsServer() {
  Stop();
}

Result<std::unique_ptr<HttpsServer>> HttpsServer::Start(const HttpsServerOptions& options,
                                                        HttpHandler handler) {
  TlsFiles files{options.cert_file, options.key_file,
                 options.authenticate ? options.client_ca_file : std::filesystem::path()};
  auto context = BuildServerContext(files);
  if (!context) return std::unexpected(context.error());
  HttpsServerOptions effective = options;
  effective.caps.global = FitToOpenFileLimit(options.caps.global);
  effective.caps.per_source = std::min(effective.caps.per_source, effective.caps.global);
  auto impl = std::make_unique<Impl>();
  impl->shared = std::make_unique<ListenerShared>(effective, std::move(handler), std::move(files),
                                                  std::move(*context));

  boost::system::error_code ec;
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

  const int threads = options.io_threads > 0
                          ? options.io_threads
                          : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
  Impl* raw = impl.get();
  asio::post(impl->acceptor.get_executor(), [raw] { raw->Accept(); });
  for (int i = 0; i < threads; ++i) impl->threads.emplace_back([raw] { raw->io.run(); });
  std::unique_ptr<HttpsServer> server(new HttpsServer(std::move(impl)));
  server->port_ = port;
  return server;
}

void HttpsServer::Stop() {
  if (!impl_ || impl_->shared->stopping.exchange(true)) return;
  impl_->CloseAcceptor(/*drain=*/false);
  // Every connection closes on its strand; a worker in a handler returns once its writes fail
  // or, in a stream, once it sees the server stopping.
  impl_->CloseAll(/*drain=*/false);
  impl_->WaitForNone(std::chrono::steady_clock::time_point::max());
  impl_->work.reset();
  impl_->io.stop();
  for (auto& t : impl_->threads) t.join();
  impl_->threads.clear();
  impl_->shared->workers.Join();
}

void HttpsServer::Drain(std::chrono::milliseconds grace) {
  if (!impl_ || impl_->shared->stopping) return;
  impl_->shared->draining = true;
  impl_->CloseAcceptor(/*drain=*/true);
  // Connections with nothing received close now; the rest answer what they received (with
  // `Connection: close`) and close.
  impl_->CloseAll(/*drain=*/true);
  impl_->WaitForNone(std::chrono::steady_clock::now() + grace);
  Stop();
}

HttpsServer::Stats HttpsServer::stats() const {
  Stats out;
  if (!impl_) return out;
  const ListenerShared& s = *impl_->shared;
  out.open = s.table.size();
  out.waiting = s.table.waiting();
  out.worker_threads = s.workers.threads();
  out.displaced_total = s.displaced_total;
  out.refused_total = s.refused_total;
  out.timed_out_total = s.timed_out_total;
  out.too_many_total = s.too_many_total;
  out.header_too_large_total = s.header_too_large_total;
  out.malformed_total = s.malformed_total;
  out.too_large_total = s.too_large_total;
  out.buffered_body_bytes = s.buffered_body_bytes;
  return out;
}

}  // namespace podlimits::http
