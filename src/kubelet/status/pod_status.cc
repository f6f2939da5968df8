#include "kubelet/status/pod_status.h"

#include <cstdint>

#include "cgroups/qos.h"
#include "kubelet/status/rlimit_json.h"

namespace podlimits::kubelet {
namespace {

using codec::Node;

Node MaxValueNode(const std::optional<std::int64_t>& v) {
  return v ? Node::Int(*v) : Node::String("max");
}

// The KEP-5758 ulimit names and the rows of /proc/<pid>/limits they are, and nproc, which a
// container gets by default (default_rlimits.h).
constexpr std::pair<const char*, const char*> kUlimitRows[] = {
    {"core", "RLIMIT_CORE"},     {"memlock", "RLIMIT_MEMLOCK"}, {"nice", "RLIMIT_NICE"},
    {"nofile", "RLIMIT_NOFILE"}, {"nproc", "RLIMIT_NPROC"},     {"rtprio", "RLIMIT_RTPRIO"},
    {"stack", "RLIMIT_STACK"},
};

Node RlimitsNode(const std::vector<cri::ProcessLimit>& limits) {
  Node out = Node::Object();
  for (const auto& [name, type] : kUlimitRows) {
    for (const auto& l : limits) {
      if (l.type != type) continue;
      Node row = Node::Object();
      row.Set("soft", RlimitJson(l.soft));
      row.Set("hard", RlimitJson(l.hard));
      out.Set(name, std::move(row));
    }
  }
  return out;
}

Node CgroupNode(const PodPlan& plan, const PodRunResult& result) {
  Node cg = Node::Object();
  cg.Set("path", Node::String(cgroups::PodCgroupPath(plan.cgroup.cgroup_root, plan.qos, plan.uid)));
  if (!result.cgroup) return cg;
  Node hierarchies = Node::Array();
  for (const auto& h : result.cgroup->hierarchies) {
    if (h.pod_pids_max && !cg.Find("pidsMax"))
      cg.Set("pidsMax", MaxValueNode(h.pod_pids_max->value));
    if (h.kubepods_pids_max && !cg.Find("kubepodsPidsMax")) {
      cg.Set("kubepodsPidsMax", MaxValueNode(h.kubepods_pids_max->value));
    }
    if (h.max_descendants) cg.Set("maxDescendants", MaxValueNode(h.max_descendants->value));
    if (h.max_depth) cg.Set("maxDepth", MaxValueNode(h.max_depth->value));
    Node item = Node::Object();
    item.Set("version", Node::String(h.version == cgroups::CgroupVersion::kV1 ? "v1" : "v2"));
    item.Set("dir", Node::String(h.pod_cgroup_dir.string()));
    if (h.pod_pids_max) item.Set("pidsMax", MaxValueNode(h.pod_pids_max->value));
    hierarchies.items.push_back(std::move(item));
  }
  cg.Set("hierarchies", std::move(hierarchies));
  return cg;
}

Node EventsNode(const std::vector<Event>& events) {
  Node list = Node::Array();
  for (const auto& e : events) {
    Node item = Node::Object();
    item.Set("type", Node::String(std::string(EventTypeName(e.type))));
    item.Set("reason", Node::String(e.reason));
    item.Set("message", Node::String(e.message));
    list.items.push_back(std::move(item));
  }
  return list;
}

Node MetricsNode(MetricsRegistry& metrics) {
  Node m = Node::Object();
  m.Set(kPodPIDLimitAppliedTotal,
        Node::Int(static_cast<std::int64_t>(metrics.PodPIDLimitApplied().Value())));
  return m;
}

Node Header(const std::string& name, const std::string& ns, const std::string& uid) {
  Node root = Node::Object();
  root.Set("apiVersion", Node::String("podlimits.dev/v1alpha1"));
  root.Set("kind", Node::String("PodRunStatus"));
  Node pod = Node::Object();
  pod.Set("name", Node::String(name));
  pod.Set("namespace", Node::String(ns));
  pod.Set("uid", Node::String(uid));
  root.Set("pod", std::move(pod));
  return root;
}

}  // namespace

Node RejectedPodStatusTree(const RejectedPod& pod, const std::vector<Event>& events,
                           MetricsRegistry& metrics) {
  Node root = Header(pod.name, pod.namespace_, pod.uid);
  root.Set("qosClass", pod.qos_class.empty() ? Node() : Node::String(pod.qos_class));
  root.Set("phase", Node::String("Failed"));
  root.Set("reason", Node::String(pod.reason));
  root.Set("message", Node::String(pod.message));
  root.Set("interrupted", Node::Bool(false));
  root.Set("cgroup", Node());
  root.Set("containers", Node::Array());
  root.Set("events", EventsNode(events));
  root.Set("metrics", MetricsNode(metrics));
  return root;
}

Node PodRunStatusTree(const PodPlan& plan, const PodRunResult& result,
                      const std::vector<Event>& events, MetricsRegistry& metrics) {
  Node root = Header(plan.pod.metadata.name, plan.pod.metadata.namespace_, plan.uid);
  root.Set("qosClass", Node::String(std::string(cgroups::Name(plan.qos))));
  root.Set("phase", Node::String(result.phase));
  if (!result.failure_reason.empty()) {
    root.Set("reason", Node::String(result.failure_reason));
    root.Set("message", Node::String(result.failure));
    root.Set("failure", Node::String(result.failure));
  }
  root.Set("interrupted", Node::Bool(result.interrupted));
  root.Set("cgroup", CgroupNode(plan, result));

  Node containers = Node::Array();
  for (const auto& c : result.containers) {
    Node item = Node::Object();
    item.Set("name", Node::String(c.name));
    item.Set("init", Node::Bool(c.init));
    item.Set("sidecar", Node::Bool(c.sidecar));
    item.Set("started", Node::Bool(c.started));
    item.Set("exitCode", c.exit_code ? Node::Int(*c.exit_code) : Node());
    if (!c.reason.empty()) item.Set("reason", Node::String(c.reason));
    if (!c.message.empty()) item.Set("message", Node::String(c.message));
    item.Set("restarts", Node::Int(c.restarts));
    item.Set("rlimits", RlimitsNode(c.limits));
    // /proc/<pid>/status Seccomp of its process, read back before or right after start.
    if (c.started) {
      static constexpr std::string_view kModes[] = {"disabled", "strict", "filter"};
      item.Set("seccomp", Node::String(std::string(kModes[std::clamp(c.seccomp_mode, 0, 2)])));
    }
    containers.items.push_back(std::move(item));
  }
  root.Set("containers", std::move(containers));

  root.Set("events", EventsNode(events));
  if (!result.teardown_errors.empty()) {
    Node errors = Node::Array();
    for (const auto& e : result.teardown_errors) errors.items.push_back(Node::String(e));
    root.Set("teardownErrors", std::move(errors));
  }
  root.Set("metrics", MetricsNode(metrics));
  return root;
}

}  // namespace podlimits::kubelet
