#include "api/pod_strategy.h"

#include "api/apparmor.h"
#include "api/pod_level_defaults.h"
#include "api/qos.h"

namespace podlimits::api {
namespace {

codec::Node& ContainerNode(codec::Node& spec, ContainerKind kind, std::size_t index) {
  return spec.Find(ContainerListName(kind))->items[index];
}

codec::Node ProfileNode(const AppArmorProfile& profile) {
  codec::Node n = codec::Node::Object();
  n.Set("type", codec::Node::String(profile.type));
  if (profile.localhost_profile)
    n.Set("localhostProfile", codec::Node::String(*profile.localhost_profile));
  return n;
}

codec::Node CreateStatus(const Pod& pod, bool pod_level_resources, bool scheduling_gated) {
  codec::Node status = codec::Node::Object();
  status.Set("phase", codec::Node::String("Pending"));
  if (scheduling_gated) {
    codec::Node condition = codec::Node::Object();
    condition.Set("type", codec::Node::String("PodScheduled"));
    condition.Set("status", codec::Node::String("False"));
    // metav1.Time marshals its zero value as null; omitempty does not apply to structs.
    condition.Set("lastProbeTime", codec::Node::Null());
    condition.Set("reason", codec::Node::String("SchedulingGated"));
    condition.Set("message",
                  codec::Node::String("Scheduling is blocked due to non-empty scheduling gates"));
    codec::Node conditions = codec::Node::Array();
    conditions.items.push_back(std::move(condition));
    status.Set("conditions", std::move(conditions));
  }
  status.Set("qosClass", codec::Node::String(std::string(Name(ComputePodQos(pod, pod_level_resources)))));
  return status;
}

}  // namespace

PreparedPod PrepareForCreate(codec::Node& tree, const PrepareForCreateOptions& options) {
  PreparedPod out;
  codec::Node& spec = tree.Ensure("spec");
  if (options.pod_level_resources) DefaultPodLevelResources(spec);
  tree.Ensure("metadata").Set("generation", codec::Node::Int(1));
  out.pod = ReadPod(tree);

  std::vector<AppArmorSkew> skew = AppArmorVersionSkew(out.pod);
  for (const AppArmorSkew& s : skew) {
    if (s.warn) out.warnings.push_back(AppArmorDeprecationWarning(s.annotation_key));
    if (!s.copy) continue;
    codec::Node& container = ContainerNode(tree.Ensure("spec"), s.kind, s.index);
    container.Ensure("securityContext").Set("appArmorProfile", ProfileNode(*s.copy));
  }
  ApplyAppArmorSkew(out.pod.spec, skew);

  const codec::Node* gates = tree.FindPath({"spec", "schedulingGates"});
  bool gated = gates && gates->IsArray() && !gates->items.empty();
  tree.Set("status", CreateStatus(out.pod, options.pod_level_resources, gated));
  return out;
}

}  // namespace podlimits::api
