#include "admission/pod_security.h"

#include <algorithm>

#include "api/apparmor.h"
#include "api/defaults.h"
#include "field/field.h"

namespace podlimits::admission::psa {
namespace {

std::string Annotation(std::string_view key) {
  return std::string(kAuditAnnotationPrefix) + std::string(key);
}

bool Contains(const std::vector<std::string>& haystack, std::string_view needle) {
  return std::find(haystack.begin(), haystack.end(), needle) != haystack.end();
}

// Pod subresources that cannot change what PSA checks.
bool IgnoredPodSubresource(std::string_view sub) {
  for (std::string_view s :
       {"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"}) {
    if (sub == s) return true;
  }
  return false;
}

// isSignificantPodUpdate: only container counts, images and new ephemeral containers can change
// the verdict (everything else PSA reads is immutable once the pod exists).
bool SignificantPodUpdate(const api::Pod& pod, const api::Pod& old) {
  const auto& s = pod.spec;
  const auto& o = old.spec;
  if (s.containers.size() != o.containers.size()) return true;
  if (s.init_containers.size() != o.init_containers.size()) return true;
  for (std::size_t i = 0; i < s.containers.size(); ++i) {
    if (s.containers[i].image != o.containers[i].image) return true;
  }
  for (std::size_t i = 0; i < s.init_containers.size(); ++i) {
    if (s.init_containers[i].image != o.init_containers[i].image) return true;
  }
  for (const auto& c : s.ephemeral_containers) {
    auto it = std::find_if(o.ephemeral_containers.begin(), o.ephemeral_containers.end(),
                           [&](const api::Container& oc) { return oc.name == c.name; });
    if (it == o.ephemeral_containers.end() || it->image != c.image) return true;
  }
  return false;
}

// What the pod looks like when validating admission runs. kube-apiserver has by then
// defaulted it (a volume with no source becomes emptyDir; with hostNetwork, container ports
// become host ports) and run podStrategy.PrepareForCreate, whose AppArmor version skew copies
// legacy annotations into empty appArmorProfile fields (on CREATE only). The chain has applied
// all of that to the pod already; this applies the same code (api/defaults.h, api/apparmor.h)
// to a typed copy, idempotently, so a caller passing an undefaulted pod gets the same verdict.
api::PodSpec AsAdmitted(const api::Pod& pod, Operation operation) {
  api::PodSpec out = pod.spec;
  api::SetDefaultsPodView(out);
  if (operation == Operation::kCreate) api::ApplyAppArmorSkew(out, api::AppArmorVersionSkew(pod));
  return out;
}

// apierrors.NewForbidden(pods, name, err).Error().
std::string ForbiddenMessage(std::string_view name, const std::string& err) {
  if (name.empty()) return "pods is forbidden: " + err;
  return "pods " + field::GoQuote(name) + " is forbidden: " + err;
}

}  // namespace

PodSecurity::PodSecurity(PodSecurityConfiguration config, const Evaluator& evaluator)
    : config_(std::move(config)), evaluator_(&evaluator) {}

bool PodSecurity::ExemptNamespace(std::string_view ns) const {
  return !ns.empty() && Contains(config_.exemptions.namespaces, ns);
}

bool PodSecurity::ExemptUser(std::string_view username) const {
  return !username.empty() && Contains(config_.exemptions.usernames, username);
}

bool PodSecurity::ExemptRuntimeClass(const std::optional<std::string>& runtime_class) const {
  return runtime_class && !runtime_class->empty() &&
         Contains(config_.exemptions.runtime_classes, *runtime_class);
}

NamespacePolicy PodSecurity::PolicyFor(const api::Namespace& ns) const {
  return PolicyToEvaluate(ns.metadata.labels, config_.defaults);
}

PodSecurityDecision PodSecurity::Evaluate(const api::Namespace& ns, const api::Pod& pod,
                                          [[maybe_unused]] const codec::Node& pod_tree,
                                          std::string_view username,
                                          const PodRequest& request) const {
  PodSecurityDecision out;
  if (IgnoredPodSubresource(request.subresource)) return out;

  const std::string& ns_name =
      ns.metadata.name.empty() ? pod.metadata.namespace_ : ns.metadata.name;
  if (ExemptNamespace(ns_name)) {
    out.audit_annotations[Annotation("exempt")] = "namespace";
    return out;
  }
  if (ExemptUser(username)) {
    out.audit_annotations[Annotation("exempt")] = "user";
    return out;
  }

  NamespacePolicy ns_policy = PolicyFor(ns);
  if (ns_policy.errors.empty() && ns_policy.policy.FullyPrivileged()) {
    out.audit_annotations[Annotation("enforce-policy")] =
        LevelVersion{Level::kPrivileged, Version::Latest()}.String();
    return out;
  }
  if (request.operation == Operation::kUpdate && request.old_pod &&
      !SignificantPodUpdate(pod, *request.old_pod)) {
    return out;
  }
  return EvaluatePod(ns_policy, pod, request.operation);
}

PodSecurityDecision PodSecurity::EvaluatePod(const NamespacePolicy& ns_policy, const api::Pod& pod,
                                             Operation operation, bool enforce_policy) const {
  PodSecurityDecision out;
  if (ExemptRuntimeClass(pod.spec.runtime_class_name)) {
    out.audit_annotations[Annotation("exempt")] = "runtimeClass";
    return out;
  }
  const Policy& policy = ns_policy.policy;
  if (!ns_policy.errors.empty()) {
    // Bad labels do not block the pod: the fallbacks apply and the audit log says why.
    out.audit_annotations[Annotation("error")] =
        "Failed to parse policy: " + field::Aggregate(ns_policy.errors);
  }

  const api::PodSpec spec = AsAdmitted(pod, operation);
  std::map<std::string, AggregateCheckResult> cache;  // by LevelVersion::String()
  auto evaluate = [&](const LevelVersion& lv) -> const AggregateCheckResult& {
    auto [it, inserted] = cache.try_emplace(lv.String());
    if (inserted) {
      it->second = AggregateCheckResults(evaluator_->EvaluatePod(lv, pod.metadata, spec));
    }
    return it->second;
  };

  if (enforce_policy) out.audit_annotations[Annotation("enforce-policy")] = policy.enforce.String();
  const AggregateCheckResult& enforce = evaluate(policy.enforce);
  if (enforce_policy && !enforce.allowed) {
    // The label text is quoted, not the clamped version: "restricted:latest", "baseline:v1.99".
    out.forbidden_message = ForbiddenMessage(
        pod.metadata.name, "violates PodSecurity " + field::GoQuote(policy.enforce.String()) +
                               ": " + enforce.ForbiddenDetail());
  }
  const AggregateCheckResult& audit = evaluate(policy.audit);
  if (!audit.allowed) {
    out.audit_annotations[Annotation("audit-violations")] = "would violate PodSecurity " +
                                                            field::GoQuote(policy.audit.String()) +
                                                            ": " + audit.ForbiddenDetail();
  }
  // No warnings on a request that is already rejected.
  if (out.allowed()) {
    const AggregateCheckResult& warn = evaluate(policy.warn);
    if (!warn.allowed) {
      out.warnings.push_back("would violate PodSecurity " + field::GoQuote(policy.warn.String()) +
                             ": " + warn.ForbiddenDetail());
    }
  }
  return out;
}

NamespaceDecision PodSecurity::ValidateNamespace(const api::Namespace& ns,
                                                 const api::Namespace* old_ns,
                                                 const std::vector<api::Pod>* pods) const {
  NamespaceDecision out;
  NamespacePolicy now = PolicyFor(ns);
  auto invalid = [&] {
    out.invalid_message = "Namespace " + field::GoQuote(ns.metadata.name) +
                          " is invalid: " + field::Aggregate(now.errors);
  };
  auto exempt_warning = [&] {
    if (!ExemptNamespace(ns.metadata.name)) return;
    std::string w = ExemptNamespaceWarning(ns, now.policy);
    if (!w.empty()) out.warnings.push_back(std::move(w));
  };
  if (!old_ns) {
    if (!now.errors.empty()) {
      invalid();
      return out;
    }
    exempt_warning();
    return out;
  }
  NamespacePolicy before = PolicyFor(*old_ns);
  // Unchanged bad labels must not block unrelated updates of the namespace.
  if (!now.errors.empty() && (before.errors.empty() || before.errors != now.errors)) {
    invalid();
    return out;
  }
  const LevelVersion& e = now.policy.enforce;
  const LevelVersion& old_e = before.policy.enforce;
  if (e == old_e || e.level == Level::kPrivileged) return out;
  if (e.version == old_e.version && e.level <= old_e.level) return out;  // relaxed
  if (ExemptNamespace(ns.metadata.name)) {
    exempt_warning();
    return out;
  }
  if (pods == nullptr) return out;
  // EvaluatePodsInNamespace: the distinct forbidden reasons, each with the first pod name (in
  // name order) that has it and how many others do.
  struct Seen {
    std::string first;
    int count = 0;
  };
  std::map<std::string, Seen> by_reason;
  for (const api::Pod& pod : *pods) {
    if (ExemptRuntimeClass(pod.spec.runtime_class_name)) continue;
    const api::PodSpec spec = AsAdmitted(pod, Operation::kUpdate);
    AggregateCheckResult r = AggregateCheckResults(evaluator_->EvaluatePod(e, pod.metadata, spec));
    if (r.allowed) continue;
    Seen& seen = by_reason[r.ForbiddenReason()];
    if (seen.count == 0 || pod.metadata.name < seen.first) seen.first = pod.metadata.name;
    ++seen.count;
  }
  if (by_reason.empty()) return out;
  out.warnings.push_back("existing pods in namespace " + field::GoQuote(ns.metadata.name) +
                         " violate the new PodSecurity enforce level " +
                         field::GoQuote(e.String()));
  std::vector<std::string> decorated;
  for (const auto& [reason, seen] : by_reason) {
    decorated.push_back(seen.count == 1
                            ? seen.first + ": " + reason
                            : seen.first + " (and " + std::to_string(seen.count - 1) +
                                  " other pods): " + reason);
  }
  std::sort(decorated.begin(), decorated.end());
  out.warnings.insert(out.warnings.end(), decorated.begin(), decorated.end());
  return out;
}

std::string PodSecurity::ExemptNamespaceWarning(const api::Namespace& ns,
                                                const Policy& policy) const {
  if (policy.FullyPrivileged() || policy.Equivalent(config_.defaults)) return "";
  // Only the non-privileged modes the labels set explicitly.
  const auto& labels = ns.metadata.labels;
  auto has = [&](std::string_view key) { return labels.contains(std::string(key)); };
  std::vector<std::string> parts;
  auto add = [&](std::string_view mode, const LevelVersion& lv, std::string_view level_label,
                 std::string_view version_label) {
    if (lv.level != Level::kPrivileged && (has(level_label) || has(version_label))) {
      parts.push_back(std::string(mode) + "=" + lv.String());
    }
  };
  add("enforce", policy.enforce, kEnforceLevelLabel, kEnforceVersionLabel);
  add("audit", policy.audit, kAuditLevelLabel, kAuditVersionLabel);
  add("warn", policy.warn, kWarnLevelLabel, kWarnVersionLabel);
  return "namespace " + field::GoQuote(ns.metadata.name) +
         " is exempt from Pod Security, and the policy (" + Join(parts, ", ") + ") will be ignored";
}

}  // namespace podlimits::admission::psa
