#include "kubelet/plan/pod_plan.h"
#include "kubelet/cm/node_resources.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

#include "base/uuid.h"
#include "kubelet/cm/pid_capacity.h"
#include "kubelet/cm/resource_config.h"

namespace podlimits::kubelet {

ContainerPlan PlanContainer(const api::Container& c, const AdmitResult& admit) {
  ContainerPlan plan;
  plan.container = c;
  plan.id = NewContainerId();
  plan.writable_cgroup = c.HasWritableCgroup();
  if (auto it = admit.ulimits.find(c.name); it != admit.ulimits.end()) {
    for (const auto& u : it->second) plan.rlimits.push_back({RlimitType(u.name), u.soft, u.hard});
  }
  return plan;
}

std::string PodPlan::PodDescription() const {
  // format.Pod: NAME_NAMESPACE(UID)
  return pod.metadata.name + "_" + pod.metadata.namespace_ + "(" + uid + ")";
}

std::string RlimitType(std::string_view ulimit_name) {
  std::string out = "RLIMIT_";
  for (char ch : ulimit_name) out.push_back(static_cast<char>(std::toupper(ch)));
  return out;
}

PodPlan PlanPod(const api::Pod& pod, const NodeConfig& config, const AdmitResult& admit,
                const validation::FeatureGates& gates, std::optional<std::int64_t> pid_capacity,
                bool enforce_cpu_memory) {
  PodPlan plan;
  plan.pod = pod;
  plan.uid = pod.metadata.uid.empty() ? NewUuid() : pod.metadata.uid;
  plan.pod.metadata.uid = plan.uid;  // what the pod's containers see as metadata.uid
  plan.qos = cgroups::ComputePodQos(pod, gates.pod_level_resources);
  plan.pid_limit = EffectivePodPidsLimit(pod, config, gates);
  plan.restart_policy = pod.spec.restart_policy.empty() ? "Always" : pod.spec.restart_policy;
  if (pod.spec.termination_grace_period_seconds) {
    plan.grace_period_seconds = *pod.spec.termination_grace_period_seconds;
  }
  plan.grace_period_seconds = std::max(plan.grace_period_seconds, kMinimumGracePeriodSeconds);

  for (const auto& c : pod.spec.init_containers)
    plan.init_containers.push_back(PlanContainer(c, admit));
  for (const auto& c : pod.spec.containers) plan.containers.push_back(PlanContainer(c, admit));

  cgroups::PodCgroupPlan& cg = plan.cgroup;
  cg.pod_uid = plan.uid;
  cg.qos = plan.qos;
  cg.cgroup_root = config.cgroup_root;
  cg.pod_pids_max = plan.pid_limit.limit;
  cg.kubepods_pids_max = KubepodsPidsMax(pid_capacity, config);
  bool writable = false;
  for (const auto* list : {&plan.init_containers, &plan.containers}) {
    for (const auto& c : *list) writable = writable || c.writable_cgroup;
  }
  if (writable) {
    cg.writable = cgroups::DescendantBounds{config.writable_cgroups.max_descendants,
                                            config.writable_cgroups.max_depth};
  }
  if (enforce_cpu_memory) {
    cg.pod_files = PodResourceFiles(pod);
    // Burstable's total is the sandbox's to add up, over the node's pods (pod_sandbox.cc).
    cg.qos_files = QosResourceFiles(plan.qos, PodCpuRequestMilli(pod));
    if (config.EnforcesPodsAllocatable()) {
      const api::ResourceList capacity = NodeCapacity(config);
      auto amount = [](const api::ResourceList& list, const char* name, bool milli) {
        auto it = list.find(name);
        if (it == list.end()) return std::int64_t{0};
        return milli ? it->second.MilliValue() : it->second.Value();
      };
      const std::int64_t cpu = amount(capacity, "cpu", true) -
                               amount(config.kube_reserved, "cpu", true) -
                               amount(config.system_reserved, "cpu", true);
      const std::int64_t memory = amount(capacity, "memory", false) -
                                  amount(config.kube_reserved, "memory", false) -
                                  amount(config.system_reserved, "memory", false);
      cg.kubepods_files = KubepodsResourceFiles(std::max<std::int64_t>(cpu, 0),
                                                std::max<std::int64_t>(memory, 0));
    }
    for (auto* list : {&plan.init_containers, &plan.containers}) {
      for (auto& c : *list) c.resource_files = ContainerResourceFiles(c.container);
    }
  }
  plan.pod_dir = std::filesystem::path(config.state_directory) / "pods" / plan.uid;
  plan.sandbox_id = NewContainerId();
  return plan;
}

}  // namespace podlimits::kubelet
