#include "kubelet/prober/handler_runner.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <future>
#include <memory>
#include <thread>

#include "api/field.h"
#include "base/unique_fd.h"
#include "kubelet/prober/grpc_health.h"
#include "kubelet/prober/probe_dial.h"

namespace podlimits::kubelet {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::string_view kUserAgent = "kube-probe/1.32";
constexpr std::size_t kMaxBody = 10 * 1024;  // the kubelet reads at most 10 KiB of a body
constexpr int kMaxRedirects = 10;

ActionOutcome Outcome(ProbeResult result, std::string output, std::string error) {
  ActionOutcome out;
  out.result = result;
  out.output = std::move(output);
  out.error = std::move(error);
  return out;
}

// One connection's bytes, plain or TLS.
class Stream {
 public:
  Stream(UniqueFd fd, const std::atomic<bool>* cancelled)
      : fd_(std::move(fd)), cancelled_(cancelled) {}
  ~Stream() {
    if (ssl_) SSL_free(ssl_);
    if (ctx_) SSL_CTX_free(ctx_);
  }

  // The kubelet's prober trusts any certificate (InsecureSkipVerify).
  std::expected<void, std::string> StartTls(const std::string& server_name,
                                            Clock::time_point deadline) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (!ctx_) return std::unexpected(std::string("tls: cannot create a context"));
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
    ssl_ = SSL_new(ctx_);
    if (!ssl_) return std::unexpected(std::string("tls: cannot create a session"));
    SSL_set_fd(ssl_, fd_.get());
    if (!server_name.empty()) SSL_set_tlsext_host_name(ssl_, server_name.c_str());
    while (true) {
      int rc = SSL_connect(ssl_);
      if (rc == 1) return {};
      int err = SSL_get_error(ssl_, rc);
      if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) {
        char buf[256] = {};
        ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
        return std::unexpected(fmt::format("tls: handshake failed: {}", buf));
      }
      if (!Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) {
        return std::unexpected(std::string("timeout"));
      }
    }
  }

  bool Wait(short events, Clock::time_point deadline) {
    pollfd p{fd_.get(), events, 0};
    return PollUntil(p, deadline, cancelled_) > 0;
  }

  // false on timeout or error.
  bool WriteAll(std::string_view data, Clock::time_point deadline) {
    while (!data.empty()) {
      ssize_t n;
      if (ssl_) {
        int rc = SSL_write(ssl_, data.data(), static_cast<int>(data.size()));
        if (rc <= 0) {
          int err = SSL_get_error(ssl_, rc);
          if ((err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) &&
              Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) {
            continue;
          }
          return false;
        }
        n = rc;
      } else {
        n = send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EAGAIN && Wait(POLLOUT, deadline)) continue;
        if (n < 0) return false;
      }
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Appends what arrives; 0 at the end, -1 on timeout or error.
  int Read(std::string& out, Clock::time_point deadline) {
    char buf[4096];
    while (true) {
      ssize_t n;
      if (ssl_) {
        int rc = SSL_read(ssl_, buf, sizeof buf);
        if (rc <= 0) {
          int err = SSL_get_error(ssl_, rc);
          if (err == SSL_ERROR_ZERO_RETURN) return 0;
          if ((err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) &&
              Wait(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) {
            continue;
          }
          return err == SSL_ERROR_SYSCALL ? 0 : -1;
        }
        n = rc;
      } else {
        n = recv(fd_.get(), buf, sizeof buf, 0);
        if (n < 0 && errno == EAGAIN) {
          if (!Wait(POLLIN, deadline)) return -1;
          continue;
        }
        if (n < 0) return -1;
      }
      out.append(buf, static_cast<std::size_t>(n));
      return n == 0 ? 0 : 1;
    }
  }

 private:
  UniqueFd fd_;
  const std::atomic<bool>* cancelled_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

struct HttpResponse {
  int status = 0;
  std::string location;
  std::string body;
};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One GET; the error is what Go's client.Do would return after `Get "URL": `.
std::expected<HttpResponse, std::string> HttpGet(const std::string& scheme, const std::string& host,
                                                 int port, const std::string& path,
                                                 const api::HandlerAction& action, pid_t netns_pid,
                                                 Clock::time_point deadline,
                                                 const std::atomic<bool>* cancelled) {
  auto fd = Dial(host, port, netns_pid, deadline, cancelled);
  if (!fd) return std::unexpected(fd.error());
  Stream stream(std::move(*fd), cancelled);
  const std::string timeout_text =
      "context deadline exceeded (Client.Timeout exceeded while awaiting headers)";
  if (scheme == "https") {
    if (auto tls = stream.StartTls(host, deadline); !tls) {
      return std::unexpected(tls.error() == "timeout" ? timeout_text : tls.error());
    }
  }
  const std::string host_port = host.find(':') != std::string::npos
                                    ? fmt::format("[{}]:{}", host, port)
                                    : fmt::format("{}:{}", host, port);
  std::string host_header = host_port;
  std::string user_agent(kUserAgent);
  std::string accept = "*/*";
  std::string extra;
  for (const auto& [name, value] : action.http_headers) {
    const std::string lower = Lower(name);
    if (lower == "host") {
      host_header = value;
    } else if (lower == "user-agent") {
      user_agent = value;
    } else if (lower == "accept") {
      accept = value;
    } else {
      extra += fmt::format("{}: {}\r\n", name, value);
    }
  }
  const std::string request = fmt::format(
      "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: {}\r\nAccept: {}\r\n{}Connection: close\r\n\r\n",
      path.empty() ? "/" : path, host_header, user_agent, accept, extra);
  if (!stream.WriteAll(request, deadline)) return std::unexpected(timeout_text);
  std::string data;
  std::size_t header_end = std::string::npos;
  while (header_end == std::string::npos) {
    int r = stream.Read(data, deadline);
    if (r < 0) return std::unexpected(timeout_text);
    header_end = data.find("\r\n\r\n");
    if (r == 0 && header_end == std::string::npos) {
      return std::unexpected(std::string("EOF"));
    }
    if (data.size() > 1 << 20) return std::unexpected(std::string("net/http: response headers too large"));
  }
  HttpResponse res;
  const std::string head = data.substr(0, header_end);
  if (head.compare(0, 5, "HTTP/") != 0 || head.find(' ') == std::string::npos) {
    return std::unexpected(fmt::format("malformed HTTP response {}", field::GoQuote(head.substr(0, 40))));
  }
  res.status = std::atoi(head.c_str() + head.find(' ') + 1);
  std::size_t line = head.find("\r\n");
  while (line != std::string::npos) {
    std::size_t next = head.find("\r\n", line + 2);
    std::string h = head.substr(line + 2, next == std::string::npos ? std::string::npos : next - line - 2);
    if (auto colon = h.find(':'); colon != std::string::npos && Lower(h.substr(0, colon)) == "location") {
      std::size_t v = colon + 1;
      while (v < h.size() && h[v] == ' ') ++v;
      res.location = h.substr(v);
    }
    line = next;
  }
  res.body = data.substr(header_end + 4);
  while (res.body.size() < kMaxBody) {
    int r = stream.Read(res.body, deadline);
    if (r <= 0) break;
  }
  if (res.body.size() > kMaxBody) res.body.resize(kMaxBody);
  return res;
}

// Where an action without a host connects: see ActionTarget::pod_ip.
struct PodAddress {
  std::string host;
  pid_t netns_pid;
};
PodAddress PodAddressOf(const ActionTarget& target) {
  if (!target.pod_ip.empty()) return {target.pod_ip, 0};
  return {"127.0.0.1", target.netns_pid};
}

ActionOutcome Http(const api::HandlerAction& action, const ActionTarget& target,
                   std::chrono::milliseconds timeout) {
  auto port = ResolvePort(action.port, *target.container);
  if (!port) return Outcome(ProbeResult::kUnknown, "", port.error());
  const std::string scheme = Lower(action.scheme.empty() ? "HTTP" : action.scheme);
  const PodAddress pod = PodAddressOf(target);
  const std::string host = action.host.empty() ? pod.host : action.host;
  const pid_t netns = action.host.empty() ? pod.netns_pid : 0;
  const auto deadline = Clock::now() + timeout;
  std::string path = action.path.empty() ? "/" : action.path;
  if (path.front() != '/') path = "/" + path;
  for (int redirects = 0;; ++redirects) {
    const std::string url = fmt::format("{}://{}:{}{}", scheme, host, *port, path);
    auto res = HttpGet(scheme, host, *port, path, action, netns, deadline, target.cancelled);
    if (!res) return Outcome(ProbeResult::kFailure, fmt::format("Get \"{}\": {}", url, res.error()), "");
    ActionOutcome out;
    out.http_status = res->status;
    if (res->status >= 300 && res->status < 400 && !res->location.empty()) {
      // Go's client follows a redirect on its own; the kubelet stops one that leaves the host.
      if (res->location.front() == '/' && redirects < kMaxRedirects) {
        path = res->location;
        continue;
      }
      out.result = ProbeResult::kWarning;
      out.output = fmt::format("Probe terminated redirects, Response body: {}", res->body);
    } else if (res->status >= 200 && res->status < 400) {
      out.result = ProbeResult::kSuccess;
      out.output = res->body;
    } else {
      out.result = ProbeResult::kFailure;
      out.output = fmt::format("HTTP probe failed with statuscode: {}", res->status);
    }
    return out;
  }
}

ActionOutcome Tcp(const api::HandlerAction& action, const ActionTarget& target,
                  std::chrono::milliseconds timeout) {
  auto port = ResolvePort(action.port, *target.container);
  if (!port) return Outcome(ProbeResult::kUnknown, "", port.error());
  const PodAddress pod = PodAddressOf(target);
  const std::string host = action.host.empty() ? pod.host : action.host;
  auto fd = Dial(host, *port, action.host.empty() ? pod.netns_pid : 0, Clock::now() + timeout,
                 target.cancelled);
  if (!fd) return Outcome(ProbeResult::kFailure, fd.error(), "");
  return Outcome(ProbeResult::kSuccess, "", "");
}

// Go's time.Duration text for whole seconds: "1s", "1m30s", "1h0m0s".
std::string GoSeconds(std::int64_t s) {
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{}s", s / 60, s % 60);
  return fmt::format("{}h{}m{}s", s / 3600, (s % 3600) / 60, s % 60);
}

// The kubelet's grpc prober (pkg/probe/grpc): dial until connected or the timeout passes (grpc-go
// WithBlock), one health Check call, its answer in the prober's words.
ActionOutcome Grpc(const api::HandlerAction& action, const ActionTarget& target,
                   std::chrono::milliseconds timeout) {
  auto port = ResolvePort(action.port, *target.container);
  if (!port) return Outcome(ProbeResult::kUnknown, "", port.error());
  const PodAddress pod = PodAddressOf(target);
  const std::string& host = pod.host;
  const std::string addr = fmt::format("{}:{}", host, *port);
  const std::string within =
      GoSeconds(std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
  const auto deadline = Clock::now() + timeout;
  std::expected<UniqueFd, std::string> fd = std::unexpected(std::string());
  while (true) {
    fd = Dial(host, *port, pod.netns_pid, deadline, target.cancelled);
    if (fd) break;
    if (Clock::now() + std::chrono::milliseconds(100) >= deadline ||
        (target.cancelled && target.cancelled->load())) {
      return Outcome(ProbeResult::kFailure,
                     fmt::format("timeout: failed to connect service {} within {}: context "
                                 "deadline exceeded",
                                 field::GoQuote(addr), within),
                     "");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  GrpcCallResult r = GrpcHealthCheck(fd->get(), addr, action.grpc_service.value_or(""),
                                     kUserAgent, deadline, target.cancelled);
  using Kind = GrpcCallResult::Kind;
  switch (r.kind) {
    case Kind::kResponse:
      if (r.serving_status != 1) {
        return Outcome(ProbeResult::kFailure,
                       fmt::format("service unhealthy (responded with {})",
                                   field::GoQuote(HealthServingStatusName(r.serving_status))),
                       "");
      }
      return Outcome(ProbeResult::kSuccess, "service healthy", "");
    case Kind::kTimeout:
      return Outcome(ProbeResult::kFailure,
                     fmt::format("timeout: health rpc did not complete within {}", within), "");
    case Kind::kStatus:
      if (r.code == 12) {  // Unimplemented
        return Outcome(ProbeResult::kFailure,
                       "error: this server does not implement the grpc health protocol "
                       "(grpc.health.v1.Health): " +
                           r.message,
                       "");
      }
      return Outcome(ProbeResult::kFailure,
                     fmt::format("error: health rpc probe failed: rpc error: code = {} desc = {}",
                                 GrpcCodeName(r.code), r.message),
                     "");
    case Kind::kTransport:
      break;
  }
  return Outcome(ProbeResult::kFailure,
                 fmt::format("error: health rpc probe failed: rpc error: code = Unavailable desc = "
                             "{}",
                             r.message),
                 "");
}

ActionOutcome Exec(const api::HandlerAction& action, const ActionTarget& target,
                   std::chrono::milliseconds timeout) {
  auto r = target.runtime->Exec(target.container_id, action.command, timeout);
  if (!r) return Outcome(ProbeResult::kUnknown, "", r.error().Message());
  if (r->timed_out) {
    return Outcome(ProbeResult::kFailure,
            fmt::format("command {} timed out", field::GoQuote(fmt::format("{}", fmt::join(action.command, " ")))),
            "");
  }
  ActionOutcome out =
      Outcome(r->exit_code == 0 ? ProbeResult::kSuccess : ProbeResult::kFailure, r->output, "");
  out.exit_code = r->exit_code;
  out.error_output = r->error_output;
  return out;
}

ActionOutcome Sleep(const api::HandlerAction& action, const ActionTarget& target) {
  const auto until = Clock::now() + std::chrono::seconds(action.sleep_seconds);
  while (Clock::now() < until) {
    if (target.cancelled && target.cancelled->load()) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50),
                                                          until - Clock::now()));
  }
  return Outcome(ProbeResult::kSuccess, "", "");
}

}  // namespace

std::expected<int, std::string> ResolvePort(const std::string& port,
                                            const api::Container& container) {
  if (!port.empty() && std::all_of(port.begin(), port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return std::atoi(port.c_str());
  }
  for (const auto& p : container.ports) {
    if (p.name == port) return p.container_port;
  }
  return std::unexpected(
      fmt::format("couldn't find port: {} in container \"{}\"", port, container.name));
}

ActionOutcome RunAction(const api::HandlerAction& action, const ActionTarget& target,
                        std::chrono::milliseconds timeout) {
  if (action.kind == "exec") return Exec(action, target, timeout);
  if (action.kind == "httpGet") return Http(action, target, timeout);
  if (action.kind == "tcpSocket") return Tcp(action, target, timeout);
  if (action.kind == "grpc") return Grpc(action, target, timeout);
  if (action.kind == "sleep") return Sleep(action, target);
  return Outcome(ProbeResult::kUnknown, "", fmt::format("unsupported action {}", action.kind));
}

}  // namespace podlimits::kubelet
