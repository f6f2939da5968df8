// One HTTP GET as the kubelet's prober sends it (pkg/probe/http), on Boost.Beast over the
// connection probe_dial.h makes in the pod's network namespace:
//
//   request    GET with the action's httpHeaders (names canonical, as Go's http.Header keeps
//              them), `User-Agent: kube-probe/<major.minor>` and `Accept: */*` unless the action
//              sets them (an empty value removes the header), `Host` from the headers when given,
//              `Connection: close` (DisableKeepAlives), no Accept-Encoding (DisableCompression)
//   TLS        https without verifying the certificate (InsecureSkipVerify)
//   response   interim 1xx answers skipped as Go's transport skips them; the body decoded
//              (Content-Length, chunked, or to the end of the connection) and read up to
//              maxRespBodyLength (10 KiB), the rest left unread
//   deadline   one for the whole exchange (the probe's timeout), as http.Client.Timeout; a
//              cancelled run (the pod is being torn down) stops at once
//
// Redirects are the caller's (handler_runner.cc): Go's client follows them inside Do, with the
// kubelet's redirect checker deciding.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace podlimits::kubelet {

// The prober's User-Agent: kube-probe/<the Kubernetes minor release podlimits follows>.
inline constexpr std::string_view kProbeUserAgent = "kube-probe/1.32";
// maxRespBodyLength: the prober reads at most this much of a body.
inline constexpr std::size_t kMaxProbeBodyBytes = 10 * 1024;

struct HttpGetRequest {
  std::string scheme = "http";  // "http" or "https"
  std::string host;             // where to connect: an IP address or a name
  int port = 80;
  std::string target = "/";     // path and query
  // As the action gives them (httpHeaders), plus what a redirect adds (Referer).
  std::vector<std::pair<std::string, std::string>> headers;
  pid_t netns_pid = 0;  // the network namespace to connect from (0: this process's)
};

struct HttpGetResponse {
  int status = 0;
  std::string location;  // the Location header, when there is one
  std::string body;      // at most kMaxProbeBodyBytes
  // Reading the body failed after the headers arrived (Go's words: "unexpected EOF", ...).
  std::optional<std::string> body_error;
};

// Sends one GET and reads its answer by `deadline`. The error is what Go's client.Do returns
// after `Get "URL": ` (`dial tcp 10.0.0.1:80: connect: connection refused`, `context deadline
// exceeded (Client.Timeout exceeded while awaiting headers)`, `EOF`, `malformed HTTP response
// "..."`).
Result<HttpGetResponse> HttpGet(const HttpGetRequest& request,
                                std::chrono::steady_clock::time_point deadline,
                                const std::atomic<bool>* cancelled);

// Go's textproto.CanonicalMIMEHeaderKey: "x-probe" -> "X-Probe", "user-agent" -> "User-Agent".
std::string CanonicalHeaderName(std::string_view name);

}  // namespace podlimits::kubelet
