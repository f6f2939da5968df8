#include "validation/pod_warnings.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "field/field.h"
#include "validation/object_meta.h"

namespace podlimits::validation {
namespace {

const field::Path kAnnotations = field::Path("metadata").Child("annotations");

void FractionalBytes(const api::ResourceList& list, const field::Path& path,
                     std::vector<std::string>& out) {
  for (const char* name : {"memory", "ephemeral-storage"}) {
    auto it = list.find(name);
    if (it == list.end() || it->second.MilliValue() % 1000 == 0) continue;
    out.push_back(fmt::format("{}: fractional byte value {} is invalid, must be an integer",
                              path.Key(name).String(), field::GoQuote(it->second.String())));
  }
}

constexpr std::string_view kSeccompDeprecated =
    R"(non-functional in v1.27+; use the "seccompProfile" field instead)";

}  // namespace

std::vector<std::string> WarningsOnCreate(const api::Pod& pod) {
  std::vector<std::string> out;
  const auto& meta = pod.metadata;
  if (!meta.name.empty()) {
    if (auto msgs = IsDNS1123Label(meta.name); !msgs.empty()) {
      std::string joined;  // %v of a []string: "[a b]"
      for (const auto& m : msgs) joined += (joined.empty() ? "" : " ") + m;
      out.push_back(fmt::format(
          "metadata.name: this is used in the Pod's hostname, which can result in surprising "
          "behavior; a DNS label is recommended: [{}]",
          joined));
    }
  }
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kDeprecated = {{
      {"scheduler.alpha.kubernetes.io/critical-pod",
       R"(non-functional in v1.16+; use the "priorityClassName" field instead)"},
      {"security.alpha.kubernetes.io/sysctls",
       R"(non-functional in v1.11+; use the "sysctls" field instead)"},
      {"security.alpha.kubernetes.io/unsafe-sysctls",
       R"(non-functional in v1.11+; use the "sysctls" field instead)"},
  }};
  for (const auto& [key, message] : kDeprecated) {
    if (meta.annotations.contains(std::string(key))) {
      out.push_back(fmt::format("{}: {}", kAnnotations.Key(key).String(), message));
    }
  }
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kVolumePlugins = {{
      {"photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
      {"gitRepo", "deprecated in v1.11"},
      {"scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
      {"flocker", "deprecated in v1.22, non-functional in v1.25+"},
      {"storageOS", "deprecated in v1.22, non-functional in v1.25+"},
      {"quobyte", "deprecated in v1.22, non-functional in v1.25+"},
      {"glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
      {"cephfs", "deprecated in v1.28, non-functional in v1.31+"},
      {"rbd", "deprecated in v1.28, non-functional in v1.31+"},
  }};
  for (std::size_t i = 0; i < pod.spec.volumes.size(); ++i) {
    for (const auto& [source, message] : kVolumePlugins) {
      if (pod.spec.volumes[i].source == source) {
        out.push_back(fmt::format(
            "{}: {}", field::Path("spec").Child("volumes").Index(i).Child(source).String(),
            message));
      }
    }
  }
  FractionalBytes(pod.spec.overhead, field::Path("spec").Child("overhead"), out);
  const auto& psc = pod.spec.security_context;
  if (!psc || !psc->seccomp_profile) {
    constexpr std::string_view kPodKey = "seccomp.security.alpha.kubernetes.io/pod";
    if (meta.annotations.contains(std::string(kPodKey))) {
      out.push_back(fmt::format("{}: {}", kAnnotations.Key(kPodKey).String(), kSeccompDeprecated));
    }
  }
  api::VisitContainers(pod.spec, [&](const api::Container& c) {
    if (!meta.annotations.empty() &&
        (!c.security_context || !c.security_context->seccomp_profile)) {
      std::string key = "container.seccomp.security.alpha.kubernetes.io/" + c.name;
      if (meta.annotations.contains(key)) {
        out.push_back(fmt::format("{}: {}", kAnnotations.Key(key).String(), kSeccompDeprecated));
      }
    }
    // Per resource: limits then requests, memory before ephemeral-storage. The path is built
    // only for a warning: most pods have none, and this runs for every pod admitted.
    for (const char* name : {"memory", "ephemeral-storage"}) {
      for (auto [which, l] : {std::pair{"limits", &c.resources.limits},
                              std::pair{"requests", &c.resources.requests}}) {
        auto it = l->find(name);
        if (it == l->end() || it->second.MilliValue() % 1000 == 0) continue;
        out.push_back(
            fmt::format("{}: fractional byte value {} is invalid, must be an integer",
                        api::ContainerPath(c).Child("resources").Child(which).Key(name).String(),
                        field::GoQuote(it->second.String())));
      }
    }
  });
  return out;
}

}  // namespace podlimits::validation
