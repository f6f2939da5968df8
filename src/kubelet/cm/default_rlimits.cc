#include "kubelet/cm/default_rlimits.h"

#include <algorithm>

namespace podlimits::kubelet {

std::vector<GrantedUlimit> ContainerdDefaultRlimits(const NodeCapabilities& caps) {
  std::vector<GrantedUlimit> out;
  for (const char* name : {"nofile", "nproc", "core"}) {
    const RlimValue value = CeilingFor(name, caps).value;  // "infinity", as far as this node can
    out.push_back({name, value, value});
  }
  return out;
}

std::vector<GrantedUlimit> WithDefaultRlimits(std::vector<GrantedUlimit> granted,
                                              const NodeCapabilities& caps) {
  for (auto& d : ContainerdDefaultRlimits(caps)) {
    const bool set = std::any_of(granted.begin(), granted.end(),
                                 [&](const GrantedUlimit& g) { return g.name == d.name; });
    if (!set) granted.push_back(std::move(d));
  }
  return granted;
}

}  // namespace podlimits::kubelet
