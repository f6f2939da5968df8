#include "kubelet/prober/handler_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <thread>

#include "base/unique_fd.h"
#include "field/field.h"
#include "kubelet/prober/grpc_health.h"
#include "kubelet/prober/http_get.h"
#include "kubelet/prober/probe_dial.h"

namespace podlimits::kubelet {
namespace {

using Clock = std::chrono::steady_clock;

ActionOutcome Outcome(ProbeResult result, std::string output, std::string error) {
  ActionOutcome out;
  out.result = result;
  out.output = std::move(output);
  out.error = std::move(error);
  return out;
}

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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

// A URL as the prober's client follows it.
struct ProbeUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets
  int port = 80;
  std::string target = "/";  // path and query

  // Go's url.URL.String() for the URL the kubelet builds (net.JoinHostPort for the host).
  std::string String() const {
    const bool ipv6 = host.find(':') != std::string::npos;
    return ipv6 ? fmt::format("{}://[{}]:{}{}", scheme, host, port, target)
                : fmt::format("{}://{}:{}{}", scheme, host, port, target);
  }
};

// Resolves a Location header against the URL that answered with it (RFC 3986 reference
// resolution for the forms servers send: absolute, scheme-relative, absolute-path and
// relative-path); nullopt for a scheme the prober cannot follow.
std::optional<ProbeUrl> ResolveLocation(const ProbeUrl& base, const std::string& location) {
  ProbeUrl next = base;
  std::string rest = location;
  const std::string lower = Lower(location.substr(0, 8));
  if (lower.starts_with("http://") || lower.starts_with("https://")) {
    next.scheme = lower.starts_with("https://") ? "https" : "http";
    rest = location.substr(next.scheme.size() + 1);  // from the "//"
  } else if (location.find(':') != std::string::npos &&
             location.find(':') < location.find_first_of("/?#")) {
    return std::nullopt;  // another scheme (ftp:, mailto:)
  }
  if (rest.starts_with("//")) {
    rest.erase(0, 2);
    const std::size_t end = rest.find_first_of("/?#");
    std::string authority = rest.substr(0, end);
    rest = end == std::string::npos ? "/" : rest.substr(end);
    if (auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
    next.port = next.scheme == "https" ? 443 : 80;
    std::string host = authority;
    if (authority.starts_with("[")) {
      const std::size_t close = authority.find(']');
      host = authority.substr(1, close == std::string::npos ? std::string::npos : close - 1);
      if (close != std::string::npos && close + 1 < authority.size() && authority[close + 1] == ':') {
        next.port = std::atoi(authority.c_str() + close + 2);
      }
    } else if (auto colon = authority.rfind(':'); colon != std::string::npos) {
      host = authority.substr(0, colon);
      next.port = std::atoi(authority.c_str() + colon + 1);
    }
    next.host = host;
    next.target = rest.empty() || rest.front() != '/' ? "/" + rest : rest;
  } else if (rest.starts_with("/")) {
    next.target = rest;
  } else {
    // Relative to the directory of the current path.
    const std::string path = base.target.substr(0, base.target.find('?'));
    next.target = path.substr(0, path.rfind('/') + 1) + rest;
  }
  if (auto hash = next.target.find('#'); hash != std::string::npos) next.target.erase(hash);
  return next;
}

bool IsFollowedRedirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

bool HasHeader(const api::HandlerAction& action, std::string_view canonical) {
  return std::any_of(action.http_headers.begin(), action.http_headers.end(),
                     [&](const auto& h) { return CanonicalHeaderName(h.first) == canonical; });
}

// The kubelet's HTTP prober (pkg/probe/http): one GET through Go's client, which follows
// redirects as the kubelet's RedirectChecker(false) allows (same hostname, at most 10); 2xx is
// success, a 3xx the client did not follow a warning (a success that says so), anything else a
// failure that never quotes the body.
ActionOutcome Http(const api::HandlerAction& action, const ActionTarget& target,
                   std::chrono::milliseconds timeout) {
  auto port = ResolvePort(action.port, *target.container);
  if (!port) return Outcome(ProbeResult::kUnknown, "", port.error().Message());
  const PodAddress pod = PodAddressOf(target);
  ProbeUrl url;
  url.scheme = Lower(action.scheme.empty() ? "HTTP" : action.scheme);
  url.host = action.host.empty() ? pod.host : action.host;
  url.port = *port;
  url.target = action.path.empty() ? "/" : action.path;
  if (url.target.front() != '/') url.target = "/" + url.target;
  const std::string first_host = url.host;
  const auto deadline = Clock::now() + timeout;

  HttpGetRequest request;
  request.headers = action.http_headers;
  for (int requests = 1;; ++requests) {
    request.scheme = url.scheme;
    request.host = url.host;
    request.port = url.port;
    request.target = url.target;
    // Only the first host is in the pod's network namespace when the action names none.
    request.netns_pid = action.host.empty() && url.host == pod.host ? pod.netns_pid : 0;
    auto res = HttpGet(request, deadline, target.cancelled);
    if (!res) {
      return Outcome(ProbeResult::kFailure,
                     fmt::format("Get \"{}\": {}", url.String(), res.error().Message()), "");
    }
    if (IsFollowedRedirect(res->status) && !res->location.empty()) {
      auto next = ResolveLocation(url, res->location);
      // RedirectChecker: another hostname ends the chain with this response (ErrUseLastResponse).
      if (next && next->host == first_host) {
        if (requests >= 10) {
          return Outcome(ProbeResult::kFailure,
                         fmt::format("Get \"{}\": stopped after 10 redirects", res->location), "");
        }
        // Go's client: the headers go along; a Host set by the action only to a relative
        // location; a Referer unless the action set one or the chain leaves https.
        const bool absolute = res->location.find("//") != std::string::npos &&
                              res->location.find("//") < res->location.find_first_of("/?#") + 2;
        request.headers = action.http_headers;
        if (absolute) {
          std::erase_if(request.headers,
                        [](const auto& h) { return CanonicalHeaderName(h.first) == "Host"; });
        }
        if (!HasHeader(action, "Referer") && !(url.scheme == "https" && next->scheme == "http")) {
          request.headers.emplace_back("Referer", url.String());
        }
        url = *next;
        continue;
      }
    }
    ActionOutcome out;
    out.http_status = res->status;
    if (res->body_error) {
      // DoHTTPProbe: a body that cannot be read is the probe's error, not a verdict.
      out.result = ProbeResult::kUnknown;
      out.error = *res->body_error;
    } else if (res->status >= 300 && res->status < 400) {
      out.result = ProbeResult::kWarning;
      out.output = fmt::format("Probe terminated redirects, Response body: {}", res->body);
    } else if (res->status >= 200 && res->status < 300) {
      out.result = ProbeResult::kSuccess;
      out.output = std::move(res->body);
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
  if (!port) return Outcome(ProbeResult::kUnknown, "", port.error().Message());
  const PodAddress pod = PodAddressOf(target);
  const std::string host = action.host.empty() ? pod.host : action.host;
  auto fd = Dial(host, *port, action.host.empty() ? pod.netns_pid : 0, Clock::now() + timeout,
                 target.cancelled);
  if (!fd) return Outcome(ProbeResult::kFailure, fd.error().Message(), "");
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
  if (!port) return Outcome(ProbeResult::kUnknown, "", port.error().Message());
  const PodAddress pod = PodAddressOf(target);
  const std::string& host = pod.host;
  const std::string addr = fmt::format("{}:{}", host, *port);
  const std::string within =
      GoSeconds(std::chrono::duration_cast<std::chrono::seconds>(timeout).count());
  const auto deadline = Clock::now() + timeout;
  Result<UniqueFd> fd = Failure("not dialled");
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
                                     kProbeUserAgent, deadline, target.cancelled);
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

Result<int> ResolvePort(const std::string& port,
                                            const api::Container& container) {
  if (!port.empty() && std::all_of(port.begin(), port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return std::atoi(port.c_str());
  }
  for (const auto& p : container.ports) {
    if (p.name == port) return p.container_port;
  }
  return Failure(fmt::format("couldn't find port: {} in container \"{}\"", port, container.name));
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
