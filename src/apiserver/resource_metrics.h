// metrics.k8s.io/v1beta1 as metrics-server serves it (what `kubectl top` and the
// HorizontalPodAutoscaler read):
//
//   GET /apis/metrics.k8s.io/v1beta1/nodes[/NAME]                        NodeMetrics(List)
//   GET /apis/metrics.k8s.io/v1beta1/[namespaces/NS/]pods[/NAME]         PodMetrics(List)
//
// get and list only, with labelSelector and fieldSelector (metadata.name, metadata.namespace)
// over the Node and Pod objects; items sorted by namespace and name. A PodMetrics has the pod's
// name, namespace and labels, creationTimestamp now, the later sample's `timestamp`, the
// `window` between the two samples (a Go duration, "15.004s") and each container's usage, cpu in
// nanocores and memory in bytes as resource.Quantity prints them ("123456n", "2048Ki"). A pod
// that is not Running, or that has been sampled once only (cpu is a rate), is left out of a
// list; its get is metrics-server's 404 `podmetrics.metrics.k8s.io "NS/NAME" not found`, and a
// pod that does not exist `pods "NAME" not found`. Nodes alike: `nodemetrics.metrics.k8s.io
// "NAME" not found`, `nodes "NAME" not found`. Other verbs are the apiserver's 405. Asked for a
// Table (kubectl get podmetrics), metrics-server's: Name, cpu and memory summed over the
// containers, Window.
//
// The usage comes from a ResourceMetricsSource (the node's sampler, nodeagent/usage_sampler.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listwatch/request_info.h"
#include "http/https_server.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

inline constexpr std::string_view kMetricsGroup = "metrics.k8s.io";

struct ResourceUsage {
  std::int64_t nanocores = 0;
  std::int64_t memory_bytes = 0;
};

struct ContainerMetrics {
  std::string name;
  ResourceUsage usage;
};

struct MetricsWindow {
  std::chrono::system_clock::time_point timestamp;
  std::chrono::nanoseconds window{0};
};

struct PodMetrics {
  MetricsWindow window;
  std::vector<ContainerMetrics> containers;
};

struct NodeMetrics {
  MetricsWindow window;
  ResourceUsage usage;
};

class ResourceMetricsSource {
 public:
  virtual ~ResourceMetricsSource() = default;
  // nullopt: no rate yet (or not on this node).
  virtual std::optional<PodMetrics> PodMetricsOf(const std::string& pod_uid) const = 0;
  virtual std::optional<NodeMetrics> NodeMetricsOf(const std::string& node_name) const = 0;
};

// "123456n" / "2048Ki": usage as metrics-server's Quantities print.
std::string CpuQuantity(std::int64_t nanocores);
std::string MemoryQuantity(std::int64_t bytes);

// The answer to a metrics.k8s.io request (`info.group` is kMetricsGroup); `source` may be null
// (nothing has metrics).
http::HttpResponse ServeResourceMetrics(storage::ObjectStore& store,
                                        const ResourceMetricsSource* source,
                                        const http::HttpRequest& request, const RequestInfo& info,
                                        std::chrono::sys_seconds now);

}  // namespace podlimits::apiserver
