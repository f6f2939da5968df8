#include "kubelet/status/node_object.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <algorithm>
#include <string_view>

#include "base/fs.h"
#include "kubelet/status/condition_time.h"

namespace podlimits::kubelet {

using codec::Node;

namespace {

Node Str(std::string_view s) { return Node::String(std::string(s)); }

// The first line of a host identity file; empty where the host has none (a container without
// /sys/class/dmi, a machine without /etc/machine-id), as the kubelet reports it.
std::string FirstLine(const std::filesystem::path& file) {
  std::string text = ReadWholeFile(file).value_or("");
  text.resize(std::min(text.size(), text.find('\n')));
  return text;
}

Node Resources(const api::ResourceList& base, std::optional<std::int64_t> pid,
               std::int64_t pods) {
  Node out = Node::Object();
  for (const auto& [name, q] : base) out.Set(name, Str(q.String()));
  out.Set("hugepages-1Gi", Str("0"));
  out.Set("hugepages-2Mi", Str("0"));
  out.Set("pods", Str(std::to_string(pods)));
  if (pid) out.Set("pid", Str(std::to_string(*pid)));
  return out;
}


Node Condition(const Node* previous, std::string_view type, bool status, std::string_view reason,
               std::string_view message, std::string_view now) {
  const std::string_view value = status ? "True" : "False";
  Node c = Node::Object();
  c.Set("type", Str(type));
  c.Set("status", Str(value));
  c.Set("lastHeartbeatTime", Str(now));
  c.Set("lastTransitionTime",
        Str(ConditionTransitionTime(previous ? previous->FindPath({"status", "conditions"}) : nullptr,
                                    type, value, now)));
  c.Set("reason", Str(reason));
  c.Set("message", Str(message));
  return c;
}

}  // namespace

HostIdentity ReadHostIdentity() {
  HostIdentity h;
  h.machine_id = FirstLine("/etc/machine-id");
  h.boot_id = FirstLine("/proc/sys/kernel/random/boot_id");
  h.system_uuid = FirstLine("/sys/class/dmi/id/product_uuid");
  utsname u{};
  if (uname(&u) == 0) h.kernel_version = u.release;
  const std::string os_release = ReadWholeFile("/etc/os-release").value_or("");
  for (std::size_t begin = 0; begin < os_release.size();) {
    std::size_t end = std::min(os_release.size(), os_release.find('\n', begin));
    const std::string_view line(os_release.data() + begin, end - begin);
    begin = end + 1;
    if (!line.starts_with("PRETTY_NAME=")) continue;
    std::string v(line.substr(12));
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    h.os_image = v;
  }
  return h;
}

Node NodeObject(const NodeObjectInput& input, const HostIdentity& host, const Node* previous,
                std::string_view now) {
  const NodeInfo& info = input.info;
  Node node = Node::Object();
  node.Set("kind", Str("Node"));
  node.Set("apiVersion", Str("v1"));
  Node meta = Node::Object();
  meta.Set("name", Str(info.node_name));
  Node labels = Node::Object();
  labels.Set("beta.kubernetes.io/arch", Str("amd64"));
  labels.Set("beta.kubernetes.io/os", Str("linux"));
  labels.Set("kubernetes.io/arch", Str("amd64"));
  labels.Set("kubernetes.io/hostname", Str(info.node_name));
  labels.Set("kubernetes.io/os", Str("linux"));
  meta.Set("labels", std::move(labels));
  Node annotations = Node::Object();
  // kubectl 1.32's describe does not print status.declaredFeatures: the same list as an
  // annotation, so that `kubectl describe node` shows what the node declares.
  std::string declared;
  for (const auto& f : info.features.Names()) declared += (declared.empty() ? "" : ",") + f;
  annotations.Set("podlimits.dev/declared-features", Str(declared));
  // And each feature it does not declare, with why (the scheduler keeps pods that need it
  // Pending): one annotation each, short enough for describe to print whole.
  for (const auto* f : info.features.All()) {
    if (!f->Declared()) annotations.Set(fmt::format("undeclared.podlimits.dev/{}", f->name), Str(f->reason));
  }
  annotations.Set("volumes.kubernetes.io/controller-managed-attach-detach", Str("true"));
  meta.Set("annotations", std::move(annotations));
  node.Set("metadata", std::move(meta));
  node.Set("spec", Node::Object());

  Node status = Node::Object();
  status.Set("capacity", Resources(input.capacity, info.capacity, input.max_pods));
  status.Set("allocatable", Resources(input.allocatable, info.allocatable, input.max_pods));
  Node conditions = Node::Array();
  conditions.items.push_back(Condition(previous, "MemoryPressure", false,
                                       "KubeletHasSufficientMemory",
                                       "kubelet has sufficient memory available", now));
  conditions.items.push_back(Condition(previous, "DiskPressure", false, "KubeletHasNoDiskPressure",
                                       "kubelet has no disk pressure", now));
  conditions.items.push_back(
      input.pid_pressure
          ? Condition(previous, "PIDPressure", true, "KubeletHasInsufficientPID",
                      "kubelet has insufficient PID available", now)
          : Condition(previous, "PIDPressure", false, "KubeletHasSufficientPID",
                      "kubelet has sufficient PID available", now));
  const bool ready = info.runtime.name.empty() ? false : info.cgroup_error.empty();
  std::string not_ready = "container runtime is down";
  if (!info.cgroup_error.empty()) not_ready = "cgroups: " + info.cgroup_error;
  conditions.items.push_back(Condition(previous, "Ready", ready,
                                       ready ? "KubeletReady" : "KubeletNotReady",
                                       ready ? "kubelet is posting ready status" : not_ready, now));
  status.Set("conditions", std::move(conditions));
  Node addresses = Node::Array();
  Node ip = Node::Object();
  ip.Set("type", Str("InternalIP"));
  ip.Set("address", Str(input.internal_ip));
  addresses.items.push_back(std::move(ip));
  Node name = Node::Object();
  name.Set("type", Str("Hostname"));
  name.Set("address", Str(info.node_name));
  addresses.items.push_back(std::move(name));
  status.Set("addresses", std::move(addresses));
  Node endpoints = Node::Object();
  Node kubelet_endpoint = Node::Object();
  kubelet_endpoint.Set("Port", Node::Int(0));  // no kubelet port: the node agent is in-process
  endpoints.Set("kubeletEndpoint", std::move(kubelet_endpoint));
  status.Set("daemonEndpoints", std::move(endpoints));
  Node system = Node::Object();
  system.Set("machineID", Str(host.machine_id));
  system.Set("systemUUID", Str(host.system_uuid));
  system.Set("bootID", Str(host.boot_id));
  system.Set("kernelVersion", Str(host.kernel_version));
  system.Set("osImage", Str(host.os_image));
  system.Set("containerRuntimeVersion",
             Str(info.runtime.name.empty()
                     ? ""
                     : fmt::format("{}://{}", info.runtime.name, info.runtime.version)));
  system.Set("kubeletVersion", Str(input.kubelet_version));
  system.Set("kubeProxyVersion", Str(""));
  system.Set("operatingSystem", Str("linux"));
  system.Set("architecture", Str("amd64"));
  status.Set("nodeInfo", std::move(system));
  Node features = Node::Array();
  for (const auto& f : info.features.Names()) features.items.push_back(Str(f));
  status.Set("declaredFeatures", std::move(features));
  node.Set("status", std::move(status));
  return node;
}

}  // namespace podlimits::kubelet
