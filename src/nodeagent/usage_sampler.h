// The node's resource sampler: every `resolution` (metrics-server's --metric-resolution, 15 s by
// default) it reads what each of the node's pods uses, container by container, from the pod's
// cgroups in the managed hierarchy (kubelet/stats/cgroup_usage.h: the unified tree's cpu.stat
// and memory.current where the controllers are enabled, otherwise /proc summed over the
// processes of the pids hierarchy's cgroups), and what the node uses (/proc/stat, /proc/meminfo),
// and keeps them (kubelet/stats/usage_history.h).
//
//   metrics.k8s.io   the cpu rate between the last two samples and the latest memory
//                    (apiserver/resource_metrics.h): a pod sampled once has none yet
//   /metrics         per container cAdvisor's container_processes, container_threads,
//                    container_file_descriptors and container_ulimits_soft (with its labels:
//                    container, id = the cgroup, image, name = the runtime id, namespace, pod);
//                    per pod the kernel's pids.peak where the file exists, and what was
//                    sampled since the pod was first seen: the highest pids.current, the most
//                    open files of one process of each container, how long and how often
//                    (MetricsText):
//
//                      podlimits_pod_pids_peak{namespace,pod,uid}
//                      podlimits_pod_pids_sampled_peak{namespace,pod,uid}
//                      podlimits_container_process_file_descriptors_sampled_peak{container,namespace,pod,uid}
//                      podlimits_pod_observed_seconds{namespace,pod,uid}
//                      podlimits_pod_usage_samples{namespace,pod,uid}
//
// A container's cgroup is <pod cgroup>/<runtime id>, the id of its containerStatuses[].containerID
// ("podlimits://ID"). What was observed of a pod is kept while its object is in the store (also
// between two runs of its containers, and after it ended), and forgotten when it is deleted.
// Nothing is written anywhere: the sampler only reads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/resource_metrics.h"
#include "cgroups/hierarchies.h"
#include "kubelet/config/node_config.h"
#include "kubelet/stats/usage_history.h"
#include "storage/object_store.h"

namespace podlimits::nodeagent {

struct UsageSamplerOptions {
  std::string node_name;
  std::filesystem::path cgroup_root = "/";  // KubeletConfiguration cgroupRoot
  bool pod_level_resources = false;         // the feature gate (the pod's QoS class depends on it)
  std::chrono::milliseconds resolution{15000};
  std::filesystem::path proc_root = "/proc";
  std::function<std::chrono::system_clock::time_point()> clock;  // default: system_clock::now
};

class UsageSampler : public apiserver::ResourceMetricsSource {
 public:
  // `hierarchies`: the managed hierarchies (cgroups/hierarchies.h); the unified tree when one of
  // them is, else the v1 pids hierarchy. With neither, pods are not sampled (the node still is).
  UsageSampler(storage::ObjectStore& store, UsageSamplerOptions options,
               std::vector<cgroups::ManagedHierarchy> hierarchies);
  // The managed hierarchies of `config` on this machine.
  static std::vector<cgroups::ManagedHierarchy> DetectHierarchies(const kubelet::NodeConfig& config);
  ~UsageSampler() override;

  void Start();  // samples now, then every resolution
  void Stop();
  void SampleOnce();

  std::optional<apiserver::PodMetrics> PodMetricsOf(const std::string& pod_uid) const override;
  std::optional<apiserver::NodeMetrics> NodeMetricsOf(const std::string& node_name) const override;

  // The pods' observed peaks (for `podlimits recommend`, through /metrics).
  std::vector<std::pair<std::string, kubelet::PodObservation>> Observations() const {
    return history_.Observations();
  }

  // The /metrics families described above.
  std::string MetricsText() const;

 private:
  struct PodInfo {
    std::string namespace_, name, uid;
    std::filesystem::path cgroup;                // the pod cgroup, relative to the hierarchy
    std::map<std::string, std::string> images;   // by container name
    bool sampled = true;  // by the latest SampleOnce (else only its peaks are shown)
  };
  storage::ObjectStore& store_;
  UsageSamplerOptions options_;
  std::optional<cgroups::ManagedHierarchy> hierarchy_;
  kubelet::UsageHistory history_;
  mutable std::mutex mu_;
  std::map<std::string, PodInfo> pods_;  // by uid, as of the last sample
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace podlimits::nodeagent
