#include "apiserver/resource_metrics.h"

#include <fmt/format.h>

#include "listwatch/api_errors.h"
#include "apiserver/rest_response.h"
#include "listwatch/selectors.h"
#include "listwatch/stored_object.h"
#include "codec/go_duration.h"
#include "codec/json_codec.h"
#include "field/field.h"
#include "printers/human_duration.h"
#include "printers/table.h"
#include "resource/quantity.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

constexpr std::string_view kApiVersion = "metrics.k8s.io/v1beta1";

struct Selectors {
  Selector labels;
  Selector fields;
};

std::expected<Selectors, ApiError> SelectorsOf(const http::HttpRequest& request,
                                               std::string_view resource) {
  Selectors s;
  if (auto it = request.query.find("labelSelector"); it != request.query.end()) {
    auto parsed = ParseLabelSelector(it->second);
    if (!parsed) return std::unexpected(BadRequest(parsed.error().Message()));
    s.labels = std::move(*parsed);
  }
  if (auto it = request.query.find("fieldSelector"); it != request.query.end()) {
    auto parsed = ParseFieldSelector(it->second, resource);
    if (!parsed) return std::unexpected(BadRequest(parsed.error().Message()));
    s.fields = std::move(*parsed);
  }
  return s;
}

// metrics.k8s.io registers no field label conversion, so its field selectors get the scheme's
// default (metadata.name and metadata.namespace; anything else is "field label not supported"),
// matched against the object's metadata as metrics-server's filters do, never the pod's or the
// node's own selectable fields.
constexpr std::string_view kPodMetricsResource = "pods.metrics.k8s.io";
constexpr std::string_view kNodeMetricsResource = "nodes.metrics.k8s.io";

bool Selected(const Selectors& s, std::string_view resource, const Node& object) {
  const Node empty = Node::Object();
  const Node* labels = object.FindPath({"metadata", "labels"});
  if (!s.labels.Matches(labels != nullptr ? labels : &empty)) return false;
  const Node fields = SelectableFields(resource, object);
  return s.fields.Matches(&fields);
}

std::string Time(std::chrono::system_clock::time_point t) {
  return printers::FormatApiTime(std::chrono::floor<std::chrono::seconds>(t));
}

Node Usage(const ResourceUsage& usage) {
  Node u = Node::Object();
  u.Set("cpu", Node::String(CpuQuantity(usage.nanocores)));
  u.Set("memory", Node::String(MemoryQuantity(usage.memory_bytes)));
  return u;
}

// metadata as metrics-server fills it: name, namespace, creationTimestamp (now), labels.
Node Metadata(const Node& object, std::chrono::sys_seconds now) {
  Node m = Node::Object();
  m.Set("name", Node::String(codec::StringOf(object.FindPath({"metadata", "name"}))));
  if (auto ns = codec::StringOf(object.FindPath({"metadata", "namespace"})); !ns.empty()) {
    m.Set("namespace", Node::String(ns));
  }
  m.Set("creationTimestamp", Node::String(printers::FormatApiTime(now)));
  // Go leaves an empty map out (omitempty).
  if (const Node* labels = object.FindPath({"metadata", "labels"});
      labels && labels->IsObject() && !labels->members.empty()) {
    m.Set("labels", *labels);
  }
  return m;
}

Node WithWindow(Node item, const MetricsWindow& w) {
  item.Set("timestamp", Node::String(Time(w.timestamp)));
  item.Set("window", Node::String(codec::FormatGoDuration(w.window)));
  return item;
}

ResourceUsage Total(const PodMetrics& metrics) {
  ResourceUsage total;
  for (const ContainerMetrics& c : metrics.containers) {
    total.nanocores += c.usage.nanocores;
    total.memory_bytes += c.usage.memory_bytes;
  }
  return total;
}

Node PodItem(const Node& pod, const PodMetrics& metrics, std::chrono::sys_seconds now) {
  Node item = Node::Object();
  item.Set("kind", Node::String("PodMetrics"));
  item.Set("apiVersion", Node::String(std::string(kApiVersion)));
  item.Set("metadata", Metadata(pod, now));
  item = WithWindow(std::move(item), metrics.window);
  Node containers = Node::Array();
  for (const ContainerMetrics& c : metrics.containers) {
    Node n = Node::Object();
    n.Set("name", Node::String(c.name));
    n.Set("usage", Usage(c.usage));
    containers.items.push_back(std::move(n));
  }
  item.Set("containers", std::move(containers));
  return item;
}

Node NodeItem(const Node& node, const NodeMetrics& metrics, std::chrono::sys_seconds now) {
  Node item = Node::Object();
  item.Set("kind", Node::String("NodeMetrics"));
  item.Set("apiVersion", Node::String(std::string(kApiVersion)));
  item.Set("metadata", Metadata(node, now));
  item = WithWindow(std::move(item), metrics.window);
  item.Set("usage", Usage(metrics.usage));
  return item;
}

http::HttpResponse ListOf(std::string_view kind, Node items) {
  Node list = Node::Object();
  list.Set("kind", Node::String(std::string(kind)));
  list.Set("apiVersion", Node::String(std::string(kApiVersion)));
  list.Set("metadata", Node::Object());
  list.Set("items", std::move(items));
  return JsonResponse(200, codec::EncodeJson(list, 0));
}

// metrics-server's ConvertToTable: Name, then the usage's resources in name order (cpu,
// memory) summed over the containers, then Window; no columns at all for no rows, as there.
// The rows' objects are what includeObject asks for, as the apiserver's table handling does.
// An item and its usage summed over its containers (a NodeMetrics' own), for a Table row.
struct Item {
  Node object;
  ResourceUsage total;
};

Node MetricsTable(const std::vector<Item>& items, printers::RowObject row_object) {
  Node table = Node::Object();
  table.Set("kind", Node::String("Table"));
  table.Set("apiVersion", Node::String("meta.k8s.io/v1"));
  table.Set("metadata", Node::Object());
  if (items.empty()) {
    table.Set("columnDefinitions", Node::Null());
    table.Set("rows", Node::Null());
    return table;
  }
  Node columns = Node::Array();
  auto column = [&](std::string name, std::string format, std::string description) {
    Node c = Node::Object();
    c.Set("name", Node::String(std::move(name)));
    c.Set("type", Node::String("string"));
    c.Set("format", Node::String(std::move(format)));
    c.Set("description", Node::String(std::move(description)));
    c.Set("priority", Node::Int(0));
    columns.items.push_back(std::move(c));
  };
  column("Name", "name", "Name of the resource");
  column("cpu", "quantity", "");
  column("memory", "quantity", "");
  column("Window", "duration", "");
  table.Set("columnDefinitions", std::move(columns));
  Node rows = Node::Array();
  for (const auto& [item, total] : items) {
    Node cells = Node::Array();
    cells.items.push_back(Node::String(codec::StringOf(item.FindPath({"metadata", "name"}))));
    cells.items.push_back(Node::String(CpuQuantity(total.nanocores)));
    cells.items.push_back(Node::String(MemoryQuantity(total.memory_bytes)));
    cells.items.push_back(Node::String(codec::StringOf(item.Find("window"))));
    Node row = Node::Object();
    row.Set("cells", std::move(cells));
    switch (row_object) {
      case printers::RowObject::kMetadata: {
        Node partial = Node::Object();
        partial.Set("kind", Node::String("PartialObjectMetadata"));
        partial.Set("apiVersion", Node::String("meta.k8s.io/v1"));
        partial.Set("metadata", *item.Find("metadata"));
        row.Set("object", std::move(partial));
        break;
      }
      case printers::RowObject::kObject:
        row.Set("object", item);
        break;
      case printers::RowObject::kNone:
        row.Set("object", Node::Null());
        break;
    }
    rows.items.push_back(std::move(row));
  }
  table.Set("rows", std::move(rows));
  return table;
}

// The answer: the item(s) as JSON, or as a Table when the client asks for one.
http::HttpResponse Answer(const http::HttpRequest& request, std::string_view list_kind,
                          std::vector<Item> items, bool single) {
  if (WantsTable(request)) {
    auto include = request.query.find("includeObject");
    auto row_object = printers::ParseIncludeObject(
        include == request.query.end() ? std::string() : include->second);
    if (!row_object) {
      field::ErrorList errors;
      errors.push_back(field::Invalid(field::Path("includeObject"), include->second,
                                      "must be 'Metadata', 'Object', 'None', or empty"));
      return BadRequest("Unable to convert to Table as requested: " + field::Aggregate(errors))
          .Response();
    }
    return JsonResponse(200, codec::EncodeJson(MetricsTable(items, *row_object), 0));
  }
  if (single) return JsonResponse(200, codec::EncodeJson(items.front().object, 0));
  Node list = Node::Array();
  for (auto& item : items) list.items.push_back(std::move(item.object));
  return ListOf(list_kind, std::move(list));
}


// The metrics of a pod object, when it is Running and the source has a rate for it.
std::optional<PodMetrics> MetricsOfPod(const ResourceMetricsSource* source, const Node& pod) {
  if (source == nullptr) return std::nullopt;
  if (codec::StringOf(pod.FindPath({"status", "phase"})) != "Running") return std::nullopt;
  return source->PodMetricsOf(codec::StringOf(pod.FindPath({"metadata", "uid"})));
}

std::optional<NodeMetrics> MetricsOfNode(const ResourceMetricsSource* source, const Node& node) {
  if (source == nullptr) return std::nullopt;
  return source->NodeMetricsOf(codec::StringOf(node.FindPath({"metadata", "name"})));
}

http::HttpResponse Pods(storage::ObjectStore& store, const ResourceMetricsSource* source,
                        const http::HttpRequest& request, const RequestInfo& info,
                        std::chrono::sys_seconds now) {
  if (info.verb == "get") {
    auto stored = store.Get({"pods", info.namespace_, info.name});
    if (!stored) {
      if (stored.error().Is(storage::kNotFound)) {
        return NotFound("pods", info.name).Response();
      }
      return InternalResponse(stored.error());
    }
    auto pod = ParseStoredObject(stored->data);
    if (!pod) return CorruptStoredObject(*stored).Response();
    auto metrics = MetricsOfPod(source, *pod);
    if (!metrics) {
      return NotFound("podmetrics", info.namespace_ + "/" + info.name, kMetricsGroup).Response();
    }
    std::vector<Item> one;
    one.push_back({PodItem(*pod, *metrics, now), Total(*metrics)});
    return Answer(request, "PodMetricsList", std::move(one), true);
  }
  auto selectors = SelectorsOf(request, kPodMetricsResource);
  if (!selectors) return selectors.error().Response();
  auto listed = store.List("pods", info.namespace_, info.namespace_.empty());
  if (!listed) return InternalResponse(listed.error());
  std::vector<Item> items;
  for (const auto& stored : listed->items) {
    auto pod = ParseStoredObject(stored.data);
    if (!pod) return CorruptStoredObject(stored).Response();
    if (!Selected(*selectors, kPodMetricsResource, *pod)) continue;
    if (auto metrics = MetricsOfPod(source, *pod)) {
      items.push_back({PodItem(*pod, *metrics, now), Total(*metrics)});
    }
  }
  return Answer(request, "PodMetricsList", std::move(items), false);
}

http::HttpResponse Nodes(storage::ObjectStore& store, const ResourceMetricsSource* source,
                         const http::HttpRequest& request, const RequestInfo& info,
                         std::chrono::sys_seconds now) {
  if (info.verb == "get") {
    auto stored = store.Get({"nodes", "", info.name});
    if (!stored) {
      if (stored.error().Is(storage::kNotFound)) {
        return NotFound("nodes", info.name).Response();
      }
      return InternalResponse(stored.error());
    }
    auto node = ParseStoredObject(stored->data);
    if (!node) return CorruptStoredObject(*stored).Response();
    auto metrics = MetricsOfNode(source, *node);
    if (!metrics) return NotFound("nodemetrics", info.name, kMetricsGroup).Response();
    std::vector<Item> one;
    one.push_back({NodeItem(*node, *metrics, now), metrics->usage});
    return Answer(request, "NodeMetricsList", std::move(one), true);
  }
  auto selectors = SelectorsOf(request, kNodeMetricsResource);
  if (!selectors) return selectors.error().Response();
  auto listed = store.List("nodes", "", true);
  if (!listed) return InternalResponse(listed.error());
  std::vector<Item> items;
  for (const auto& stored : listed->items) {
    auto node = ParseStoredObject(stored.data);
    if (!node) return CorruptStoredObject(stored).Response();
    if (!Selected(*selectors, kNodeMetricsResource, *node)) continue;
    if (auto metrics = MetricsOfNode(source, *node)) {
      items.push_back({NodeItem(*node, *metrics, now), metrics->usage});
    }
  }
  return Answer(request, "NodeMetricsList", std::move(items), false);
}

}  // namespace

std::string CpuQuantity(std::int64_t nanocores) {
  auto q = resource::Quantity::Parse(std::to_string(nanocores) + "n");
  return q ? q->String() : std::to_string(nanocores) + "n";
}

std::string MemoryQuantity(std::int64_t bytes) {
  return resource::Quantity::NewQuantity(bytes, resource::QuantityFormat::kBinarySI).String();
}

http::HttpResponse ServeResourceMetrics(storage::ObjectStore& store,
                                        const ResourceMetricsSource* source,
                                        const http::HttpRequest& request, const RequestInfo& info,
                                        std::chrono::sys_seconds now) {
  const bool pods = info.resource == "pods";
  if ((!pods && info.resource != "nodes") || info.version != "v1beta1") {
    return PathNotFound().Response();
  }
  if (!info.subresource.empty() || (info.verb != "get" && info.verb != "list")) {
    // The apiserver names the resource with its group: "pods.metrics.k8s.io".
    std::string what = info.resource + (info.subresource.empty() ? "" : "/" + info.subresource) +
                       "." + std::string(kMetricsGroup);
    return MethodNotSupported(what, info.verb).Response();
  }
  if (pods) {
    if (info.verb == "get" && info.namespace_.empty()) return PathNotFound().Response();
    return Pods(store, source, request, info, now);
  }
  return Nodes(store, source, request, info, now);
}

}  // namespace podlimits::apiserver
