// NodeAgent::MetricsText (node_agent.h): the kubelet's registry, then what is read when scraped.
#include <fmt/format.h>

#include <limits>

#include "apiserver/stored_object.h"
#include "codec/node.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/node_agent.h"
#include "nodeagent/process_metrics.h"

namespace podlimits::nodeagent {

using codec::Node;

namespace {

// A label value as the exposition format escapes it.
std::string LabelValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string Header(std::string_view name, std::string_view help, std::string_view type) {
  return fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string NodeAgent::MetricsText() {
  std::string out = options_.metrics != nullptr ? options_.metrics->RenderPrometheusText() : "";
  struct PodLine {
    std::string labels;
    kubelet::PodPids pids;
  };
  std::vector<PodLine> pods;
  std::int64_t running_pods = 0;
  std::optional<kubelet::PidObservation> observed;
  bool pressure = false;
  {
    std::lock_guard lock(mu_);
    for (auto& [uid, known] : pods_) {
      if (known.removed || known.finished || known.key.name.empty()) continue;
      if (known.child == 0 && !LiveMonitorPid(MonitorDirectory(options_.data_dir, uid))) continue;
      ++running_pods;
      const Node* pod = Admitted(uid, known);
      if (pod == nullptr || !options_.pod_pids) continue;
      auto pids = options_.pod_pids(*pod);
      if (!pids) continue;
      pods.push_back({fmt::format("namespace=\"{}\",pod=\"{}\",uid=\"{}\"",
                                  LabelValue(known.key.namespace_), LabelValue(known.key.name),
                                  LabelValue(uid)),
                      *pids});
    }
    observed = eviction_.last_observation();
    pressure = pid_pressure_;
  }
  // Containers by state, from the pods' published statuses.
  std::map<std::string, std::int64_t> containers = {{"running", 0}};
  if (auto listed = store_.List("pods", "", true)) {
    for (const auto& item : listed->items) {
      auto pod = apiserver::ParseStoredObject(item.data);
      if (!pod || codec::StringOf(pod->FindPath({"spec", "nodeName"})) != options_.node_name) {
        continue;
      }
      for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
        const Node* statuses = pod->FindPath({"status", list});
        if (statuses == nullptr || !statuses->IsArray()) continue;
        for (const Node& s : statuses->items) {
          if (s.FindPath({"state", "running"})) ++containers["running"];
        }
      }
    }
  }
  out += Header("kubelet_running_containers", "[ALPHA] Number of containers currently running",
                "gauge");
  for (const auto& [state, n] : containers) {
    out += fmt::format("kubelet_running_containers{{container_state=\"{}\"}} {}\n", state, n);
  }
  out += Header("kubelet_running_pods", "[ALPHA] Number of pods that have a running pod sandbox",
                "gauge");
  out += fmt::format("kubelet_running_pods {}\n", running_pods);
  out += Header("podlimits_node_pid_available",
                "The node's pid.available (min(pid_max, threads-max) minus its tasks) at the "
                "eviction manager's last look; absent when no pid.available threshold is set.",
                "gauge");
  if (observed) out += fmt::format("podlimits_node_pid_available {}\n", observed->available);
  out += Header("podlimits_node_pid_pressure",
                "1 while the node reports PIDPressure, else 0.", "gauge");
  out += fmt::format("podlimits_node_pid_pressure {}\n", pressure ? 1 : 0);
  out += Header("podlimits_pod_pids_current",
                "pids.current of each running pod's cgroup: its processes and threads.", "gauge");
  for (const auto& p : pods) {
    out += fmt::format("podlimits_pod_pids_current{{{}}} {}\n", p.labels, p.pids.current);
  }
  out += Header("podlimits_pod_pids_max",
                "pids.max of each running pod's cgroup (+Inf for \"max\").", "gauge");
  for (const auto& p : pods) {
    out += fmt::format("podlimits_pod_pids_max{{{}}} {}\n", p.labels,
                       p.pids.max ? std::to_string(*p.pids.max) : std::string("+Inf"));
  }
  out += ProcessMetricsText();
  return out;
}

}  // namespace podlimits::nodeagent
