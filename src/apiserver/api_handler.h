// What `podlimits serve` answers, request by request. This is the API's skeleton so far: the
// version (kube-apiserver's version.Info, so `kubectl version` shows the server), the health
// endpoints (`/healthz`, `/livez`, `/readyz` and their `?verbose`), discovery (discovery.h), and
// the resources (rest_handler.h), and the apiserver's 404 Status for everything else.
#pragma once

#include "http/https_server.h"
#include "apiserver/rest_handler.h"

namespace podlimits::apiserver {

// The Kubernetes version the API speaks (the kubectl on these machines is v1.32).
inline constexpr std::string_view kServedGitVersion = "v1.32.0+podlimits";

// `rest` serves the resources; nullptr answers them with 404 (tests of the rest).
http::HttpResponse HandleApiRequest(const http::HttpRequest& request, RestHandler* rest = nullptr);

}  // namespace podlimits::apiserver
