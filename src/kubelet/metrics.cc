#include "kubelet/metrics.h"

#include <fmt/format.h>

namespace podlimits::kubelet {

MetricsRegistry::MetricsRegistry() {
  // component-base prefixes the help text of ALPHA metrics with "[ALPHA] "; the KEP introduces
  // this counter at alpha.
  families_.emplace(
      std::string(kPodPIDLimitAppliedTotal),
      Family{"[ALPHA] Cumulative number of pods whose pod cgroup got a per-pod PID limit from "
             "spec.resources.limits.pid.",
             std::make_unique<Counter>()});
}

Counter* MetricsRegistry::Find(std::string_view name) {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.counter.get();
}

std::string MetricsRegistry::RenderPrometheusText() const {
  std::string out;
  for (const auto& [name, family] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} counter\n{} {}\n", name, family.help, name, name,
                       family.counter->Value());
  }
  return out;
}

}  // namespace podlimits::kubelet
