// What a serve node observed of its pods, read back from its /metrics text (the families
// nodeagent/usage_sampler.h writes), by pod uid:
//
//   podlimits_pod_pids_peak                             the kernel's pids.peak, where it has one
//   podlimits_pod_pids_sampled_peak                     the highest pids.current sampled
//   podlimits_container_process_file_descriptors_sampled_peak
//                                                       per container, the most open files of
//                                                       one of its processes, sampled
//   podlimits_pod_observed_seconds, podlimits_pod_usage_samples
//
// Only these lines are read; every other family, and # lines, are skipped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace podlimits::recommend {

struct ObservedPod {
  std::optional<std::int64_t> pids_peak_kernel;
  std::int64_t pids_peak_sampled = 0;
  std::map<std::string, std::int64_t> open_files_peak;  // by container name
  double observed_seconds = 0;
  std::int64_t samples = 0;
};

// By uid.
std::map<std::string, ObservedPod> ParseObservedPeaks(std::string_view metrics_text);

}  // namespace podlimits::recommend
