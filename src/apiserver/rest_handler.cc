// The REST handler's front: the request's verb and resource, content negotiation, impersonation
// refused, the subresources routed, and each verb to its own file (admit, create, get_list, watch,
// update, patch, delete, scale, eviction).
#include "apiserver/rest_handler.h"

#include <fmt/format.h>

#include "apiserver/access_reviews.h"
#include "apiserver/negotiated_response.h"
#include "podstreams/pod_attach_handler.h"
#include "podstreams/pod_exec_handler.h"
#include "podstreams/pod_log_handler.h"
#include "podstreams/pod_portforward_handler.h"
#include "apiserver/resource_metrics.h"
#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "field/field.h"
#include "listwatch/api_errors.h"
#include "printers/human_duration.h"

namespace podlimits::apiserver {
namespace {

constexpr std::string_view kSystemNamespaces[] = {"default", "kube-node-lease", "kube-public",
                                                  "kube-system"};

bool Implemented(std::string_view resource, std::string_view verb) {
  if (verb == "watch") return true;
  if (IsWorkloadResource(resource)) {
    return verb == "create" || verb == "get" || verb == "list" || verb == "delete" ||
           verb == "update" || verb == "patch";
  }
  if (verb == "update" || verb == "patch") {
    return resource == "namespaces" || resource == "configmaps" || resource == "secrets" ||
           resource == "limitranges" || resource == "pods" || resource == "nodes" ||
           resource == "events";
  }
  if (resource == "namespaces") {
    return verb == "create" || verb == "get" || verb == "list" || verb == "delete";
  }
  // The node registers itself and is never deleted; users update it (cordon, label, taint).
  if (resource == "nodes") return verb == "get" || verb == "list";
  if (resource == "leases") return verb == "get" || verb == "list";  // and renews its Lease
  if (resource == "configmaps" || resource == "secrets" || resource == "limitranges" ||
      resource == "pods" || resource == "events") {
    return verb == "create" || verb == "get" || verb == "list" || verb == "delete";
  }
  return false;
}

}  // namespace

RestHandler::RestHandler(storage::ObjectStore& store, admission::ChainOptions options, Clock clock)
    : store_(store), options_(std::move(options)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    };
  }
}

std::string RestHandler::Now() const { return printers::FormatApiTime(clock_()); }

Result<void> RestHandler::EnsureSystemNamespaces() {
  for (std::string_view name : kSystemNamespaces) {
    if (store_.Get({"namespaces", "", std::string(name)})) continue;
    http::HttpRequest create;
    create.method = "POST";
    create.path = "/api/v1/namespaces";
    create.headers["content-type"] = "application/json";
    create.headers["user-agent"] = "kube-apiserver";  // the manager of what it makes
    create.body = fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
                              name);
    http::HttpResponse r = Create(create, RequestInfo{"create", "namespaces", "", "", ""});
    if (r.status != 201) {
      return Failure("create namespace", {}, std::string(name) + ": " + r.body);
    }
  }
  return {};
}

std::optional<http::HttpResponse> RestHandler::Handle(const http::HttpRequest& request) {
  auto info = ParseRequestInfo(request);
  if (!info) return std::nullopt;
  // The streams of their own (log, exec, attach, port-forward) answer in their own types.
  if (info->subresource == "log" || info->subresource == "exec" ||
      info->subresource == "attach" || info->subresource == "portforward") {
    return Dispatch(request, *info, OutputMediaType{});
  }
  // Negotiated before anything is read or written, as every apiserver handler does; JSON where
  // the resource's kind has no protobuf form (metrics.k8s.io here).
  EndpointMediaTypes endpoint;
  endpoint.protobuf = info->group != kMetricsGroup;
  auto accept = request.headers.find("accept");
  const std::string_view header =
      accept == request.headers.end() ? std::string_view() : std::string_view(accept->second);
  auto media = info->verb == "watch" ? NegotiateWatchMediaType(header, endpoint)
                                     : NegotiateOutputMediaType(header, endpoint);
  if (!media) return media.error().Response();
  // Errors are negotiated again as ErrorNegotiated does, with the default restrictions: no
  // conversion (as=...) is acceptable for them, protobuf is (Status has its form everywhere).
  std::optional<OutputMediaType> error_media;
  if (auto plain = NegotiateOutputMediaType(header, EndpointMediaTypes{.transforms = false})) {
    error_media = *plain;
  }
  return EncodeNegotiated(Dispatch(request, *info, *media), *media, error_media);
}

http::HttpResponse RestHandler::Dispatch(const http::HttpRequest& request, const RequestInfo& info,
                                         const OutputMediaType& media) {
  // Impersonation (kubectl --as, --as-group): serve has no user but its admin and no RBAC to
  // judge another by, so acting as someone else is refused rather than done as the admin.
  for (const auto& [name, value] : request.headers) {
    if (!name.starts_with("impersonate-")) continue;
    const std::string_view what = name == "impersonate-user"    ? "users"
                                  : name == "impersonate-group" ? "groups"
                                  : name == "impersonate-uid"   ? "uids"
                                                                : "userextras";
    return Forbidden(what, value,
                     fmt::format("User {} cannot impersonate resource {} in API group \"\" at "
                                 "the cluster scope: podlimits serve has no user but its admin",
                                 field::GoQuote(request.user), field::GoQuote(what)))
        .Response();
  }
  if (info.group == kMetricsGroup) {
    return ServeResourceMetrics(store_, metrics_, request, info, clock_());
  }
  if (info.group == kAuthenticationGroup || info.group == kAuthorizationGroup) {
    return ServeAccessReview(request, info);
  }
  const ServedResource* resource = FindServedResource(info.group, info.resource);
  if (resource == nullptr) return PathNotFound().Response();
  if (info.resource == "pods" && info.subresource == "log" && info.verb == "get" &&
      logs_ != nullptr && !info.namespace_.empty()) {
    return ServePodLog(store_, *logs_, request, {"pods", info.namespace_, info.name});
  }
  if (info.resource == "pods" && info.subresource == "exec" &&
      (info.verb == "get" || info.verb == "create") && executor_ != nullptr &&
      !info.namespace_.empty()) {
    return ServePodExec(store_, *executor_, request, {"pods", info.namespace_, info.name});
  }
  if (info.resource == "pods" && info.subresource == "attach" &&
      (info.verb == "get" || info.verb == "create") && logs_ != nullptr &&
      executor_ != nullptr && !info.namespace_.empty()) {
    return ServePodAttach(store_, *logs_, *executor_, request, {"pods", info.namespace_, info.name});
  }
  if (info.resource == "pods" && info.subresource == "portforward" &&
      (info.verb == "get" || info.verb == "create") && port_dialer_ != nullptr &&
      !info.namespace_.empty()) {
    return ServePodPortForward(store_, *port_dialer_, request, {"pods", info.namespace_, info.name});
  }
  // dryRun=All: the write goes through everything and is not committed.
  std::optional<storage::DryRunScope> dry_run;
  if (auto it = request.query.find("dryRun"); it != request.query.end() &&
                                              info.verb != "get" && info.verb != "list" &&
                                              info.verb != "watch") {
    if (it->second != "All") {
      const char* options = info.verb == "create"   ? "CreateOptions"
                            : info.verb == "patch"  ? "PatchOptions"
                            : info.verb == "update" ? "UpdateOptions"
                                                     : "DeleteOptions";
      field::ErrorList errs;
      errs.push_back(field::NotSupported(field::Path("dryRun"),
                                         field::Json{"[" + field::GoQuote(it->second) + "]"},
                                         {"All"}));
      ApiError e = Invalid(options, "", errs);
      e.message = fmt::format("{}.meta.k8s.io \"\" is invalid: {}", options, errs[0].String());
      return e.Response();
    }
    dry_run.emplace();
  }
  if (info.subresource == "scale" && !info.name.empty() && !info.namespace_.empty() &&
      (info.resource == "deployments" || info.resource == "replicasets")) {
    return Scale(request, info);
  }
  if (info.subresource == "status" && !info.name.empty() &&
      (info.resource == "pods" || info.resource == "nodes" || info.resource == "namespaces" ||
       IsWorkloadResource(info.resource))) {
    if (info.verb == "get") {
      RequestInfo plain = info;
      plain.subresource.clear();
      return Get(request, plain);
    }
    if (info.verb == "update" || info.verb == "patch") return Update(request, info);
  }
  if (info.resource == "pods" && info.subresource == "ephemeralcontainers" &&
      !info.name.empty() && !info.namespace_.empty()) {
    if (info.verb == "get") {
      RequestInfo plain = info;
      plain.subresource.clear();
      return Get(request, plain);
    }
    if (info.verb == "update" || info.verb == "patch") return Update(request, info);
  }
  if (info.resource == "pods" && info.subresource == "eviction" && info.verb == "create" &&
      !info.namespace_.empty()) {
    return Evict(request, info);
  }
  if (!info.subresource.empty() || !Implemented(info.resource, info.verb)) {
    std::string what = info.resource + (info.subresource.empty() ? "" : "/" + info.subresource);
    return MethodNotSupported(what, info.verb).Response();
  }
  // A namespaced resource named through a namespace only; /api/v1/configmaps lists (and
  // watches) them all.
  if (resource->namespaced && info.namespace_.empty() && info.verb != "list" &&
      info.verb != "watch") {
    return PathNotFound().Response();
  }
  if (info.verb == "create") return Create(request, info);
  if (info.verb == "get") return Get(request, info);
  if (info.verb == "list") return List(request, info);
  if (info.verb == "watch") return Watch(request, info, media);
  if (info.verb == "update" || info.verb == "patch") return Update(request, info);
  return Delete(request, info);
}

}  // namespace podlimits::apiserver
