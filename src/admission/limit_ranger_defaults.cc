// The mutating half of LimitRanger: PodMutateLimitFunc, applied to the pod's tree, plus the
// podlimits pid default.
#include <optional>

#include "admission/limit_ranger.h"
#include "validation/resource_names.h"

namespace podlimits::admission {
namespace {

using codec::Node;
using resource::Quantity;
using api::ResourceList;

constexpr std::string_view kAnnotationPrefix = "LimitRanger plugin set: ";

// defaultContainerResourceRequirements: the Container items' defaultRequest and default maps,
// later items overwriting earlier ones key by key.
struct ContainerDefaults {
  ResourceList requests;
  ResourceList limits;
};

ContainerDefaults DefaultsOf(const api::LimitRange& limit_range) {
  ContainerDefaults defaults;
  for (const api::LimitRangeItem& item : limit_range.limits) {
    if (item.type != "Container") continue;
    for (const auto& [name, q] : item.default_request) defaults.requests.insert_or_assign(name, q);
    for (const auto& [name, q] : item.default_limit) defaults.limits.insert_or_assign(name, q);
  }
  return defaults;
}

// The pid extension: a Pod item's default.pid (the last Pod item's, like the maps above).
std::optional<Quantity> PidDefaultOf(const api::LimitRange& limit_range) {
  std::optional<Quantity> pid;
  for (const api::LimitRangeItem& item : limit_range.limits) {
    if (item.type != "Pod") continue;
    auto it = item.default_limit.find(std::string(validation::kResourcePid));
    if (it != item.default_limit.end()) pid = it->second;
  }
  return pid;
}

// `holder` is a container, or the pod spec for pod-level resources: both keep their
// requirements under "resources". "Present" means the key exists, whatever its value.
bool HasResource(const Node& holder, std::string_view list, std::string_view name) {
  const Node* l = holder.FindPath({"resources", list});
  return l && l->IsObject() && l->Find(name);
}

void SetResource(Node& holder, std::string_view list, std::string_view name, const Quantity& q) {
  holder.Ensure("resources").Ensure(list).Set(name, Node::String(q.String()));
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// mergeContainerResources: fills each missing key independently (a request may end up above
// its defaulted limit; pod validation reports that, LimitRanger does not reconcile), and
// describes what it set: the request entry first, then the limit entry, names sorted.
void MergeContainer(Node& container, const ContainerDefaults& defaults, std::string_view kind,
                    std::vector<std::string>& annotations) {
  std::vector<std::string> set_requests;
  std::vector<std::string> set_limits;
  for (const auto& [name, q] : defaults.limits) {
    if (HasResource(container, "limits", name)) continue;
    SetResource(container, "limits", name, q);
    set_limits.push_back(name);
  }
  for (const auto& [name, q] : defaults.requests) {
    if (HasResource(container, "requests", name)) continue;
    SetResource(container, "requests", name, q);
    set_requests.push_back(name);
  }
  const Node* name_node = container.Find("name");
  std::string container_name = name_node ? name_node->scalar : std::string();
  if (!set_requests.empty()) {
    annotations.push_back(Join(set_requests) + " request for " + std::string(kind) + " " +
                          container_name);
  }
  if (!set_limits.empty()) {
    annotations.push_back(Join(set_limits) + " limit for " + std::string(kind) + " " +
                          container_name);
  }
}

void MergeContainers(Node& spec, std::string_view list_key, const ContainerDefaults& defaults,
                     std::string_view kind, std::vector<std::string>& annotations) {
  Node* list = spec.Find(list_key);
  if (!list || !list->IsArray()) return;
  for (Node& container : list->items) {
    if (container.IsObject()) MergeContainer(container, defaults, kind, annotations);
  }
}

void Annotate(Node& pod, const std::vector<std::string>& annotations) {
  std::string value(kAnnotationPrefix);
  for (std::size_t i = 0; i < annotations.size(); ++i) {
    if (i > 0) value += "; ";
    value += annotations[i];
  }
  pod.Ensure("metadata").Ensure("annotations").Set(kLimitRangerAnnotation, Node::String(value));
}

}  // namespace

void LimitRanger::Admit(Node& pod_tree) const {
  Node* spec = pod_tree.Find("spec");
  if (!spec || !spec->IsObject()) return;
  for (const api::LimitRange& limit_range : limit_ranges_) {
    ContainerDefaults defaults = DefaultsOf(limit_range);
    std::vector<std::string> annotations;
    MergeContainers(*spec, "containers", defaults, "container", annotations);
    MergeContainers(*spec, "initContainers", defaults, "init container", annotations);
    if (PidEnabled()) {
      std::optional<Quantity> pid = PidDefaultOf(limit_range);
      if (pid && !HasResource(*spec, "limits", validation::kResourcePid)) {
        SetResource(*spec, "limits", validation::kResourcePid, *pid);
        // Same sentence shape as the container entries; the pod needs no name after "pod".
        annotations.push_back(std::string(validation::kResourcePid) + " limit for pod");
      }
    }
    // Each LimitRange that sets something replaces the whole annotation.
    if (!annotations.empty()) Annotate(pod_tree, annotations);
  }
}

}  // namespace podlimits::admission
