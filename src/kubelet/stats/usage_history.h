// What the node's sampler saw of its pods over time, kept in memory:
//
//   rates   the last two samples of each container and of the node, and the cpu rate between
//           them (metrics-server's window: a pod seen once has no rate yet, and
//           metrics.k8s.io leaves it out)
//   peaks   since the pod was first sampled: its highest pids.current (and the kernel's
//           pids.peak where the file exists), and per container the highest number of open
//           files (in all and in one process), processes and threads: what `podlimits
//           recommend` sizes limits from
//
// A sample is what cgroup_usage.h read; the history does no I/O, so its arithmetic is tested on
// written-out samples.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kubelet/stats/cgroup_usage.h"
#include "kubelet/stats/node_usage.h"

namespace podlimits::kubelet {

using TimePoint = std::chrono::system_clock::time_point;

struct ContainerSample {
  std::string name;
  std::string id;  // the runtime's: a restarted container is another one, and has no rate yet
  CgroupUsage usage;
};

struct PodSample {
  TimePoint time;
  std::optional<std::int64_t> pids_current;  // of the pod cgroup
  std::optional<std::int64_t> pids_peak;     // the kernel's, of the pod cgroup
  std::vector<ContainerSample> containers;
};

struct UsageRate {
  TimePoint timestamp;              // the later sample's time
  std::chrono::nanoseconds window;  // between the two samples
  std::int64_t nanocores = 0;       // cpu time per second, in billionths of a cpu
  std::int64_t memory_bytes = 0;    // the later sample's
};

// The cpu rate between two samples of one cgroup; nullopt when the window is empty or the
// cgroup's cumulative cpu time went down (it was made anew). Samples summed over /proc count,
// per process, only the time since the earlier sample (a process new in the later one counts
// whole).
std::optional<UsageRate> RateBetween(const CgroupUsage& earlier, const CgroupUsage& later);
std::optional<UsageRate> RateBetween(const NodeUsage& earlier, const NodeUsage& later);

struct ContainerRate {
  std::string name;
  UsageRate rate;
};

struct PodRate {
  TimePoint timestamp;
  std::chrono::nanoseconds window;
  std::vector<ContainerRate> containers;  // in the pod's order; only those with a rate
};

struct ContainerPeaks {
  std::int64_t open_files = 0;          // summed over the container's processes
  std::int64_t process_open_files = 0;  // of its one process holding the most
  std::int64_t processes = 0;
  std::int64_t threads = 0;
};

struct PodObservation {
  TimePoint since;  // the first sample
  TimePoint last;
  std::int64_t samples = 0;
  std::int64_t pids_peak_sampled = 0;         // the highest pids.current sampled
  std::optional<std::int64_t> pids_peak_kernel;  // pids.peak as last read
  std::map<std::string, ContainerPeaks> containers;  // by container name
  PodSample latest;
};

class UsageHistory {
 public:
  void RecordPod(const std::string& uid, PodSample sample);
  void RecordNode(const NodeUsage& usage);
  // Forgets the pods not in `uids` (gone from the node).
  void Retain(const std::set<std::string>& uids);

  std::optional<PodRate> PodRateOf(const std::string& uid) const;
  std::optional<UsageRate> NodeRate() const;
  std::optional<PodObservation> ObservationOf(const std::string& uid) const;
  std::vector<std::pair<std::string, PodObservation>> Observations() const;

 private:
  struct PodState {
    std::optional<PodSample> previous;
    PodObservation observed;
  };
  mutable std::mutex mu_;
  std::map<std::string, PodState> pods_;
  std::optional<NodeUsage> node_previous_, node_latest_;
};

}  // namespace podlimits::kubelet
