// Signals that stop a pod, for the processes that run one (`podlimits run`, serve's pod
// monitors): each one of `signals` becomes a PodStop request (the first stops the pod gracefully,
// a second kills). They are blocked in every thread and read from a signalfd on a thread of
// their own, so none of them can kill the process half-way. Children start with the mask
// cleared and default dispositions (the runtime client resets both).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "base/unique_fd.h"
#include "kubelet/podworker/pod_runner.h"

namespace podlimits::kubelet {

class StopSignals {
 public:
  // The grace period a signal asks for (nullopt: the pod's own).
  using GraceOf = std::function<std::optional<std::int64_t>(int signal)>;

  // `signals` must not be empty; its first is also what wakes the reader when this goes.
  StopSignals(PodStop& stop, std::vector<int> signals, GraceOf grace_of = {});
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  bool ok() const { return thread_.joinable(); }

 private:
  int wake_signal_;
  UniqueFd signal_fd_;
  std::jthread thread_;
};

}  // namespace podlimits::kubelet
