#include "runcwrap/bundle_request.h"

#include <fmt/format.h>

#include <string_view>

#include "api/limit_annotations.h"
#include "base/numbers.h"
#include "codec/json_codec.h"
#include "kubelet/cm/effective_pid_limit.h"
#include "validation/feature_gates.h"
#include "validation/pod.h"

namespace podlimits::runcwrap {
namespace {

using codec::Node;

constexpr std::string_view kCriContainerType = "io.kubernetes.cri.container-type";
constexpr std::string_view kCriContainerName = "io.kubernetes.cri.container-name";
constexpr std::string_view kCriSandboxName = "io.kubernetes.cri.sandbox-name";
constexpr std::string_view kCriSandboxNamespace = "io.kubernetes.cri.sandbox-namespace";
constexpr std::string_view kCrioContainerType = "io.kubernetes.cri-o.ContainerType";
constexpr std::string_view kCrioLabels = "io.kubernetes.cri-o.Labels";
constexpr std::string_view kCrioAnnotations = "io.kubernetes.cri-o.Annotations";
constexpr std::string_view kKubeContainerName = "io.kubernetes.container.name";
constexpr std::string_view kKubePodName = "io.kubernetes.pod.name";
constexpr std::string_view kKubePodNamespace = "io.kubernetes.pod.namespace";

// The flat string map the bundle's annotations hold, with CRI-O's JSON-encoded kube annotations
// and labels folded in (an annotation of the spec itself wins).
struct Annotations {
  Node all = Node::Object();
  Node labels = Node::Object();

  std::string Get(std::string_view key) const {
    if (auto v = codec::StringOf(all.Find(key)); !v.empty()) return v;
    return codec::StringOf(labels.Find(key));
  }
};

Node DecodedJsonObject(const std::string& text) {
  auto parsed = codec::ParseJsonStream(text);
  if (!parsed || parsed->size() != 1 || !(*parsed)[0].IsObject()) return Node::Object();
  return std::move((*parsed)[0]);
}

Annotations Collect(const Node* annotations) {
  Annotations out;
  if (annotations == nullptr || !annotations->IsObject()) return out;
  out.all = *annotations;
  if (auto kube = codec::StringOf(annotations->Find(kCrioAnnotations)); !kube.empty()) {
    for (auto& m : DecodedJsonObject(kube).members) {
      if (out.all.Find(m.key) == nullptr) out.all.Set(m.key, std::move(m.value));
    }
  }
  if (auto labels = codec::StringOf(annotations->Find(kCrioLabels)); !labels.empty()) {
    out.labels = DecodedJsonObject(labels);
  }
  return out;
}

// Whether `key` is a limit annotation that concerns container `name` ("" for the sandbox, which
// takes only the pod-wide ones).
bool Concerns(std::string_view key, std::string_view name) {
  if (auto container = api::AnnotatedContainer(key)) return !name.empty() && *container == name;
  return api::IsLimitAnnotation(key);
}

// The annotation a field error of the synthetic pod came from: its path names the field.
std::string Describe(const field::ErrorList& errors, std::string_view annotation) {
  std::vector<std::string> parts;
  for (const auto& e : errors) {
    if (annotation.empty() || e.field.starts_with("metadata.annotations")) {
      parts.push_back(e.String());
    } else {
      parts.push_back(fmt::format("metadata.annotations[{}]: {}", annotation, e.String()));
    }
  }
  return field::Aggregate(parts);
}

// The first annotation key among `keys` present in `a` (to name what a field error came from).
std::string KeyFor(const Node& a, std::string_view container,
                   std::initializer_list<std::string_view> prefixes) {
  for (std::string_view prefix : prefixes) {
    std::string key = std::string(prefix) + std::string(container);
    if (a.Find(key) != nullptr) return key;
  }
  return {};
}

}  // namespace

std::string BundleRequest::Subject() const {
  std::string pod = pod_namespace.empty() ? pod_name : pod_namespace + "/" + pod_name;
  if (role == BundleRole::kContainer) {
    return fmt::format("container {} of pod {}", field::GoQuote(container_name), pod);
  }
  return "pod " + pod;
}

Result<BundleRequest> ReadBundleRequest(const Node* annotations) {
  const Annotations a = Collect(annotations);
  BundleRequest req;
  std::string type = a.Get(kCriContainerType);
  if (type.empty()) type = a.Get(kCrioContainerType);
  req.pod_name = a.Get(kCriSandboxName);
  if (req.pod_name.empty()) req.pod_name = a.Get(kKubePodName);
  req.pod_namespace = a.Get(kCriSandboxNamespace);
  if (req.pod_namespace.empty()) req.pod_namespace = a.Get(kKubePodNamespace);

  if (type == "sandbox") {
    req.role = BundleRole::kSandbox;
  } else if (type == "container") {
    req.role = BundleRole::kContainer;
    req.container_name = a.Get(kCriContainerName);
    if (req.container_name.empty()) req.container_name = a.Get(kKubeContainerName);
    if (req.container_name.empty()) {
      return Failure(fmt::format("a CRI container without a name ({} or {}): podlimits-runc "
                                 "cannot tell which annotations are meant for it",
                                 kCriContainerName, kKubeContainerName));
    }
  }

  // The pod the annotations describe, reduced to what concerns this bundle.
  Node filtered = Node::Object();
  for (const auto& m : a.all.members) {
    if (Concerns(m.key, req.container_name)) filtered.Set(m.key, m.value);
  }
  bool any_limit_key = false;
  for (const auto& m : a.all.members) any_limit_key = any_limit_key || api::IsLimitAnnotation(m.key);
  if (req.role == BundleRole::kOther) {
    if (any_limit_key) {
      return Failure(fmt::format(
          "the bundle carries podlimits annotations but no {} (or CRI-O's {}): podlimits-runc "
          "applies them only to containers of a Kubernetes pod",
          kCriContainerType, kCrioContainerType));
    }
    return req;
  }

  // The sandbox learns whether any container is writable, whatever container the key names.
  for (const auto& m : a.all.members) {
    if (!api::IsWritableAnnotation(m.key) || !m.value.IsString()) continue;
    if (ParseGoBool(m.value.scalar) == true) req.pod_has_writable = true;
  }

  Node pod = Node::Object();
  Node& meta = pod.Ensure("metadata");
  meta.Set("name", Node::String(req.pod_name.empty() ? "pod" : req.pod_name));
  if (!req.pod_namespace.empty()) meta.Set("namespace", Node::String(req.pod_namespace));
  meta.Set("annotations", filtered);
  Node containers = Node::Array();
  if (req.role == BundleRole::kContainer) {
    Node c = Node::Object();
    c.Set("name", Node::String(req.container_name));
    containers.items.push_back(std::move(c));
  }
  pod.Ensure("spec").Set("containers", std::move(containers));

  api::AnnotatedFields applied = api::ApplyLimitAnnotations(pod);
  req.warnings = std::move(applied.warnings);
  if (!applied.errors.empty()) {
    return Failure(fmt::format("{}: {}", req.Subject(), Describe(applied.errors, "")));
  }
  api::Pod decoded = api::ReadPod(pod);
  const validation::FeatureGates gates;  // the fields exist on this node whatever the cluster says

  if (filtered.Find(api::kPodPidLimitKey) != nullptr) {
    field::ErrorList errors = validation::ValidatePodLevelResources(decoded.spec, gates, {});
    if (!errors.empty()) {
      return Failure(
          fmt::format("{}: {}", req.Subject(), Describe(errors, api::kPodPidLimitKey)));
    }
    if (std::int64_t limit = kubelet::PodPIDLimit(decoded); limit > 0) req.pod_pid_limit = limit;
  }

  if (req.role == BundleRole::kContainer && !decoded.spec.containers.empty()) {
    api::Container c = decoded.spec.containers.front();
    validation::ValidationResult checked;
    validation::ValidateUlimits(c, decoded.spec, field::Path("securityContext"), checked);
    if (!checked.errors.empty()) {
      std::string key = KeyFor(filtered, req.container_name,
                               {api::kUlimitsKeyPrefix, api::kDeprecatedUlimitsKeyPrefix});
      return Failure(fmt::format("{}: {}", req.Subject(), Describe(checked.errors, key)));
    }
    for (auto& w : checked.warnings) req.warnings.push_back(std::move(w));
    req.writable = c.HasWritableCgroup();
    req.container = std::move(c);
  }
  return req;
}

}  // namespace podlimits::runcwrap
