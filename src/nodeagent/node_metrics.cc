// NodeAgent::MetricsText (node_agent.h): the kubelet's registry, then what is read when scraped.
#include <limits>

#include "listwatch/stored_object.h"
#include "base/prometheus_text.h"
#include "codec/node.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/node_agent.h"
#include "nodeagent/process_metrics.h"
#include "nodeagent/usage_sampler.h"

namespace podlimits::nodeagent {

using codec::Node;

std::string NodeAgent::MetricsText() {
  std::string out = options_.metrics != nullptr ? options_.metrics->RenderPrometheusText() : "";
  struct PodLine {
    std::string namespace_, name, uid;
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
      pods.push_back({known.key.namespace_, known.key.name, uid, *pids});
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
      for (const char* list : {"initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"}) {
        const Node* statuses = pod->FindPath({"status", list});
        if (statuses == nullptr || !statuses->IsArray()) continue;
        for (const Node& s : statuses->items) {
          if (s.FindPath({"state", "running"})) ++containers["running"];
        }
      }
    }
  }
  PrometheusText own;
  own.Family("kubelet_running_containers", "[ALPHA] Number of containers currently running",
             MetricType::kGauge);
  for (const auto& [state, n] : containers) own.Sample({{"container_state", state}}, n);
  own.Family("kubelet_running_pods", "[ALPHA] Number of pods that have a running pod sandbox",
             MetricType::kGauge);
  own.Sample(running_pods);
  own.Family("podlimits_node_pid_available",
             "The node's pid.available (min(pid_max, threads-max) minus its tasks) at the "
             "eviction manager's last look; absent when no pid.available threshold is set.",
             MetricType::kGauge);
  if (observed) own.Sample(observed->available);
  own.Family("podlimits_node_pid_pressure", "1 while the node reports PIDPressure, else 0.",
             MetricType::kGauge);
  own.Sample(pressure ? 1 : 0);
  own.Family("podlimits_pod_pids_current",
             "pids.current of each running pod's cgroup: its processes and threads.",
             MetricType::kGauge);
  for (const auto& p : pods) {
    own.Sample({{"namespace", p.namespace_}, {"pod", p.name}, {"uid", p.uid}}, p.pids.current);
  }
  own.Family("podlimits_pod_pids_max", "pids.max of each running pod's cgroup (+Inf for \"max\").",
             MetricType::kGauge);
  for (const auto& p : pods) {
    const SampleValue max =
        p.pids.max ? SampleValue(*p.pids.max) : SampleValue(std::numeric_limits<double>::infinity());
    own.Sample({{"namespace", p.namespace_}, {"pod", p.name}, {"uid", p.uid}}, max);
  }
  out += own.text();
  if (options_.usage != nullptr) out += options_.usage->MetricsText();
  out += ProcessMetricsText();
  return out;
}

}  // namespace podlimits::nodeagent
