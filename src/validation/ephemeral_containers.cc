// The ephemeral containers' rules: validateEphemeralContainers' own checks (the common container
// checks are ValidateContainer's, pod.cc) and ValidatePodEphemeralContainersUpdate, the
// pods/ephemeralcontainers subresource's validation, with upstream's paths and messages:
//
//   spec.ephemeralContainers[i].targetContainerName: Not found: "NAME"   (not a container or
//                                                                         init container)
//   spec.ephemeralContainers[i].ports: Forbidden: cannot be set for an Ephemeral Container
//                                         (also resizePolicy, restartPolicy, restartPolicyRules,
//                                         the probes and lifecycle; resources in pod_resources.cc)
//   spec.ephemeralContainers[i].volumeMounts[j].subPath: Forbidden: cannot be set for an ...
//   spec.ephemeralContainers: Forbidden: existing ephemeral containers "NAME" may not be removed\n
//   spec.ephemeralContainers: Forbidden: existing ephemeral containers "NAME" may not be changed\n...
//   : Forbidden: static pods do not support ephemeral containers
//
// Upstream follows "may not be changed\n" with go-cmp's diff of the two Go structs; podlimits
// writes the members that differ instead, one `- member: old` / `+ member: new` pair per line,
// as JSON (the structs do not exist here).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "codec/json_codec.h"
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

constexpr std::string_view kNotForEphemeral = "cannot be set for an Ephemeral Container";
constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";

const codec::Node* ByName(const codec::Node* list, std::string_view name) {
  if (list == nullptr || !list->IsArray()) return nullptr;
  for (const codec::Node& c : list->items) {
    if (codec::StringOf(c.Find("name")) == name) return &c;
  }
  return nullptr;
}

// The members of two containers that differ, in the old one's order then the new one's.
std::string MemberDiff(const codec::Node& before, const codec::Node& after) {
  std::string out;
  std::set<std::string> seen;
  auto line = [&](const std::string& key) {
    if (!seen.insert(key).second) return;
    const codec::Node* a = before.Find(key);
    const codec::Node* b = after.Find(key);
    const std::string old_text = a ? codec::EncodeJsonSorted(*a) : "null";
    const std::string new_text = b ? codec::EncodeJsonSorted(*b) : "null";
    if (old_text == new_text) return;
    out += fmt::format("- {}: {}\n+ {}: {}\n", key, old_text, key, new_text);
  };
  for (const auto& m : before.members) line(m.key);
  for (const auto& m : after.members) line(m.key);
  return out;
}

}  // namespace

field::ErrorList EphemeralContainerRules(const api::Container& c, const api::PodSpec& spec) {
  field::ErrorList errs;
  const field::Path path = api::ContainerPath(c);
  if (!c.target_container_name.empty()) {
    auto named = [&](const std::vector<api::Container>& list) {
      return std::any_of(list.begin(), list.end(), [&](const api::Container& other) {
        return other.name == c.target_container_name;
      });
    };
    if (!named(spec.containers) && !named(spec.init_containers)) {
      errs.push_back(field::NotFound(path.Child("targetContainerName"), c.target_container_name));
    }
  }
  for (const std::string& member : c.set_ephemeral_forbidden) {
    errs.push_back(field::Forbidden(path.Child(member), std::string(kNotForEphemeral)));
  }
  for (std::size_t i = 0; i < c.volume_mounts.size(); ++i) {
    const field::Path mount = path.Child("volumeMounts").Index(i);
    if (!c.volume_mounts[i].sub_path.empty()) {
      errs.push_back(field::Forbidden(mount.Child("subPath"), std::string(kNotForEphemeral)));
    }
    if (!c.volume_mounts[i].sub_path_expr.empty()) {
      errs.push_back(field::Forbidden(mount.Child("subPathExpr"), std::string(kNotForEphemeral)));
    }
  }
  return errs;
}

ValidationResult ValidatePodEphemeralContainersUpdate(const api::Pod& updated, const api::Pod& old,
                                                      const codec::Node* updated_list,
                                                      const codec::Node* old_list,
                                                      const FeatureGates& gates) {
  // Part 1: the whole pod as an update validates it (metadata, spec, annotations).
  ValidationResult out = ValidatePodUpdate(updated, old, gates);
  if (old.metadata.annotations.contains(std::string(kMirrorPodAnnotation))) {
    out.errors = {field::Forbidden(field::Path(""), "static pods do not support ephemeral containers")};
    return out;
  }
  // Part 2: existing ones stay as they were, looked up by name (a patch may reorder them).
  const field::Path path = field::Path("spec").Child("ephemeralContainers");
  if (old_list == nullptr || !old_list->IsArray()) return out;
  for (const codec::Node& before : old_list->items) {
    const std::string name = codec::StringOf(before.Find("name"));
    const codec::Node* after = ByName(updated_list, name);
    if (after == nullptr) {
      out.errors.push_back(field::Forbidden(
          path, fmt::format("existing ephemeral containers {} may not be removed\n",
                            field::GoQuote(name))));
    } else if (codec::EncodeJsonSorted(before) != codec::EncodeJsonSorted(*after)) {
      out.errors.push_back(field::Forbidden(
          path, fmt::format("existing ephemeral containers {} may not be changed\n{}",
                            field::GoQuote(name), MemberDiff(before, *after))));
    }
  }
  return out;
}

}  // namespace podlimits::validation
