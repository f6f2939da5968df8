#include "nodeagent/api_event.h"

#include <fmt/format.h>

namespace podlimits::nodeagent {

using codec::Node;

std::string ApiEventName(const EventSubject& pod, const MonitorEvent& event) {
  return fmt::format("{}.{:x}", pod.name, static_cast<std::uint64_t>(event.nanos));
}

Node ApiEvent(const EventSubject& pod, const MonitorEvent& event) {
  Node e = Node::Object();
  e.Set("kind", Node::String("Event"));
  e.Set("apiVersion", Node::String("v1"));
  Node meta = Node::Object();
  meta.Set("name", Node::String(ApiEventName(pod, event)));
  const bool node = pod.kind == "Node";
  meta.Set("namespace", Node::String(node ? "default" : pod.namespace_));
  e.Set("metadata", std::move(meta));
  Node involved = Node::Object();
  involved.Set("kind", Node::String(pod.kind));
  if (!node) involved.Set("namespace", Node::String(pod.namespace_));
  involved.Set("name", Node::String(pod.name));
  involved.Set("uid", Node::String(pod.uid));
  if (!node) involved.Set("apiVersion", Node::String("v1"));
  e.Set("involvedObject", std::move(involved));
  e.Set("reason", Node::String(event.event.reason));
  e.Set("message", Node::String(event.event.message));
  Node source = Node::Object();
  const bool kubelet = pod.component == "kubelet";
  source.Set("component", Node::String(pod.component));
  if (kubelet) source.Set("host", Node::String(pod.node_name));
  e.Set("source", std::move(source));
  e.Set("firstTimestamp", Node::String(event.time));
  e.Set("lastTimestamp", Node::String(event.time));
  e.Set("count", Node::Int(1));
  e.Set("type", Node::String(std::string(kubelet::EventTypeName(event.event.type))));
  e.Set("eventTime", Node::Null());
  e.Set("reportingComponent", Node::String(pod.component));
  e.Set("reportingInstance", Node::String(kubelet ? pod.node_name : pod.component));
  return e;
}

}  // namespace podlimits::nodeagent
