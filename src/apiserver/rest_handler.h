// The REST side of `podlimits serve`: objects created through the admission chain (exactly what
// `podlimits admit` does), kept in the object store, read back as JSON or as kubectl's Table.
//
// Served so far (issue 12 goes on from here):
//   namespaces                          create, get, list
//   configmaps, secrets, limitranges    create, get, list, delete
//   every served resource               watch (watch_handler.h)
// Lists take label and field selectors (selectors.h) and are paged as the apiserver pages them
// (limit, continue: paged_list.h).
// Responses are in the encoding the Accept header negotiates (output_media_type.h): JSON, YAML,
// or protobuf for the kinds that have a protobuf form (negotiated_response.h); 406 otherwise.
// Every other verb or resource answers the apiserver's 405 MethodNotAllowed (a served resource)
// or 404 (an unknown one). Creating in a namespace that does not exist is the apiserver's
// NamespaceLifecycle 404 (`namespaces "x" not found`); the stored object gets a uid, a
// creationTimestamp and its resourceVersion, as kube-apiserver's create does.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "admission/chain.h"
#include "apiserver/output_media_type.h"
#include "apiserver/pod_deletion.h"
#include "listwatch/request_info.h"
#include "http/https_server.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

class PodLogSource;  // pod_log_handler.h
class PodExecutor;   // pod_exec_handler.h
class PodPortDialer;  // pod_portforward_handler.h
class ResourceMetricsSource;  // resource_metrics.h

class RestHandler {
 public:
  using Clock = std::function<std::chrono::sys_seconds()>;
  RestHandler(storage::ObjectStore& store, admission::ChainOptions options, Clock clock = {});

  // The namespaces kube-apiserver makes at start (default, kube-system, kube-public,
  // kube-node-lease), when missing.
  Result<void> EnsureSystemNamespaces();

  // Serves pods/log from the node's logs.
  void set_pod_logs(const PodLogSource* logs) { logs_ = logs; }
  void set_pod_executor(PodExecutor* executor) { executor_ = executor; }
  void set_pod_port_dialer(PodPortDialer* dialer) { port_dialer_ = dialer; }
  // Serves metrics.k8s.io (resource_metrics.h) from the node's samples.
  void set_resource_metrics(const ResourceMetricsSource* metrics) { metrics_ = metrics; }

  // nullopt when `request` is not a resource request (its path is not /api/v1/...).
  std::optional<http::HttpResponse> Handle(const http::HttpRequest& request);

 private:
  // The request served, its response in JSON (Handle encodes it as negotiated) or a stream
  // already in `media`'s encoding.
  http::HttpResponse Dispatch(const http::HttpRequest& request, const RequestInfo& info,
                              const OutputMediaType& media);
  // The object of `body` through the admission chain, in the context of its namespace; a
  // response when it is refused.
  struct Admitted {
    codec::Node object;
    std::vector<std::string> warnings;
  };
  // `update_errors`: what the update strategy's own ValidateUpdate found (a workload's immutable
  // selector), reported after the object's validation errors in the same 422.
  std::variant<http::HttpResponse, Admitted> Admit(const http::HttpRequest& request, const RequestInfo& info,
                                             std::string_view body,
                                             const field::ErrorList& update_errors = {});
  // The stored object at `key` and its tree; the apiserver's NotFound (or 500) when there is none.
  struct Loaded {
    storage::StoredObject stored;
    codec::Node tree;
  };
  std::variant<http::HttpResponse, Loaded> Load(const storage::ObjectKey& key);
  // `applied_managed_fields`: the managedFields of an apply that creates (apply.h), kept as
  // they are instead of recording the create as an Update.
  http::HttpResponse Create(const http::HttpRequest& request, const RequestInfo& info,
                            const codec::Node* applied_managed_fields = nullptr);
  // PUT (a whole object) and PATCH (patch.h): the stored object changed through admission, as
  // the apiserver's update strategies allow (update.cc).
  http::HttpResponse Update(const http::HttpRequest& request, const RequestInfo& info);
  // An apply to an object that does not exist: its configuration created (apply.h).
  http::HttpResponse ApplyCreate(const http::HttpRequest& request, const RequestInfo& info,
                                 const codec::Node& config);
  http::HttpResponse Get(const http::HttpRequest& request, const RequestInfo& info);
  http::HttpResponse List(const http::HttpRequest& request, const RequestInfo& info);
  http::HttpResponse Watch(const http::HttpRequest& request, const RequestInfo& info,
                           const OutputMediaType& media);
  http::HttpResponse Delete(const http::HttpRequest& request, const RequestInfo& info);
  // The delete itself, with its options (from a DELETE, or carried by an Eviction).
  http::HttpResponse DeleteObject(const RequestInfo& info, const DeleteOptions& options);
  // POST pods/NAME/eviction: the policy/v1 Eviction's delete, after the pod is marked as a
  // disruption target (eviction.cc).
  http::HttpResponse Evict(const http::HttpRequest& request, const RequestInfo& info);
  // GET, PUT and PATCH of deployments/scale and replicasets/scale: the autoscaling/v1 Scale of
  // the object's spec.replicas and status (scale.cc).
  http::HttpResponse Scale(const http::HttpRequest& request, const RequestInfo& info);
  std::string Now() const;

  storage::ObjectStore& store_;
  const PodLogSource* logs_ = nullptr;
  PodExecutor* executor_ = nullptr;
  PodPortDialer* port_dialer_ = nullptr;
  const ResourceMetricsSource* metrics_ = nullptr;
  admission::ChainOptions options_;
  Clock clock_;
};

}  // namespace podlimits::apiserver
