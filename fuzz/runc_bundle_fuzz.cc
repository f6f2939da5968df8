// podlimits-runc's reading of a bundle: any config.json (its annotations are what pods' authors
// write) goes through ReadBundleRequest, PlanCreate on a cgroup v2 node with nsdelegate and
// EditSpec. Never a crash; the edited spec is JSON again, a second EditSpec changes nothing
// (the edits are idempotent, so a retried create writes the same file), and every rlimit the
// plan grants is in process.rlimits as granted.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "codec/json_codec.h"
#include "runcwrap/bundle_request.h"
#include "runcwrap/create_plan.h"
#include "runcwrap/spec_edit.h"

namespace {

using podlimits::codec::Node;
namespace rw = podlimits::runcwrap;

rw::NodeFacts Node2() {
  rw::NodeFacts n;
  n.cgroup_mode = podlimits::cgroups::CgroupMode::kV2;
  n.unified_root = "/sys/fs/cgroup";
  n.nsdelegate = true;
  n.rlimits.cap_sys_resource = false;
  n.rlimits.hard_limits = {{"nofile", 20000}, {"core", podlimits::kubelet::kRlimInfinity},
                           {"memlock", 8u << 20}, {"stack", podlimits::kubelet::kRlimInfinity},
                           {"nproc", podlimits::kubelet::kRlimInfinity},
                           {"data", podlimits::kubelet::kRlimInfinity}};
  n.rlimits.nr_open = 1048576;
  n.rlimits.rlimit_holder = podlimits::kubelet::RlimitHolder::kRuncWrapper;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = podlimits::codec::ParseJsonStream(text);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return 0;
  Node spec = std::move((*parsed)[0]);
  auto request = rw::ReadBundleRequest(spec.Find("annotations"));
  if (!request || !request->Any()) return 0;
  static const rw::NodeFacts node = Node2();
  auto plan = rw::PlanCreate(*request, spec, node, rw::WrapperConfig{});
  if (!plan) return 0;
  auto changed = rw::EditSpec(spec, plan->edits);
  if (!changed) return 0;  // a spec whose shape cannot take the edits is refused, not crashed on
  auto again = podlimits::codec::ParseJsonStream(podlimits::codec::EncodeJson(spec, 0));
  if (!again || again->size() != 1) std::abort();
  auto second = rw::EditSpec((*again)[0], plan->edits);
  if (!second || *second) std::abort();
  const Node* rlimits = (*again)[0].FindPath({"process", "rlimits"});
  for (const auto& g : plan->edits.rlimits) {
    bool found = false;
    for (const Node& r : rlimits ? rlimits->items : std::vector<Node>{}) {
      const Node* type = r.Find("type");
      const Node* soft = r.Find("soft");
      const Node* hard = r.Find("hard");
      if (type && type->scalar == rw::RlimitType(g.name) && soft && hard &&
          soft->scalar == std::to_string(g.soft) && hard->scalar == std::to_string(g.hard)) {
        found = true;
      }
    }
    if (!found) std::abort();
  }
  return 0;
}
