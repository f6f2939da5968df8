#include "kubelet/podworker/pod_runner.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include "kubelet/podworker/pod_run.h"

namespace podlimits::kubelet {

TerminatedState LostContainerState() {
  TerminatedState t;
  t.exit_code = 137;
  t.reason = "ContainerStatusUnknown";
  t.message =
      "The container could not be located when the pod was deleted.  The container used to be "
      "Running";
  return t;
}

PodStop::PodStop() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void PodStop::Request() {
  std::uint64_t one = 1;
  (void)!write(fd_.get(), &one, sizeof one);
}

void PodStop::Request(std::int64_t grace_seconds) {
  grace_seconds = std::max<std::int64_t>(0, grace_seconds);
  std::int64_t current = grace_.load();
  while ((current < 0 || grace_seconds < current) &&
         !grace_.compare_exchange_weak(current, grace_seconds)) {
  }
  Request();
}

int PodStop::Take() {
  std::uint64_t count = 0;
  if (read(fd_.get(), &count, sizeof count) != sizeof count) return 0;
  return static_cast<int>(count);
}

PodRunResult RunPod(const PodPlan& plan, PodRunEnvironment& env) {
  pod_run::PodRun run(plan, env);
  return run.Run();
}

}  // namespace podlimits::kubelet
