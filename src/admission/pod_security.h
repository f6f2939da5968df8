// The PodSecurity validating admission plugin, as kube-apiserver runs it in-tree
// (plugin/pkg/admission/security/podsecurity + k8s.io/pod-security-admission/admission): the
// namespace's labels pick enforce/audit/warn levels, exemptions short-circuit, and the outcome
// is the exact Status.message, warnings and audit annotations the apiserver produces.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/psa_config.h"
#include "admission/psa_level.h"
#include "admission/psa_registry.h"
#include "api/objects.h"
#include "codec/node.h"

namespace podlimits::admission::psa {

enum class Operation { kCreate, kUpdate };

// What PSA needs to know about the request besides the objects.
struct PodRequest {
  Operation operation = Operation::kCreate;
  // "" for the pod itself; "status", "exec", ... are never evaluated, other subresources
  // (e.g. "ephemeralcontainers") are.
  std::string_view subresource;
  // UPDATE: the stored pod, to skip updates that change nothing PSA looks at. Without it an
  // update is evaluated like a create.
  const api::Pod* old_pod = nullptr;
};

struct PodSecurityDecision {
  // Set when enforce rejects the pod: the Status.message (reason Forbidden, code 403), e.g.
  // `pods "web" is forbidden: violates PodSecurity "restricted:latest": ...`.
  std::optional<std::string> forbidden_message;
  // Each is printed by kubectl as "Warning: <text>".
  std::vector<std::string> warnings;
  // Keys carry the in-tree plugin's prefix, e.g. pod-security.kubernetes.io/enforce-policy.
  std::map<std::string, std::string> audit_annotations;

  bool allowed() const { return !forbidden_message; }
};

struct NamespaceDecision {
  // Set when the pod-security labels do not parse: the Status.message (reason Invalid, code
  // 422), e.g. `Namespace "ns" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]:
  // Invalid value: "foo": must be one of privileged, baseline, restricted`.
  std::optional<std::string> invalid_message;
  std::vector<std::string> warnings;

  bool allowed() const { return !invalid_message; }
};

inline constexpr std::string_view kAuditAnnotationPrefix = "pod-security.kubernetes.io/";

class PodSecurity {
 public:
  explicit PodSecurity(PodSecurityConfiguration config = DefaultPodSecurityConfiguration(),
                       const Evaluator& evaluator = Evaluator::Default());

  // Admits a pod CREATE or UPDATE in namespace `ns` by user `username`. `pod` is the decoded
  // pod, defaulted or not (the defaults that change PSA's verdict are applied to its view);
  // `pod_tree` is its object tree, reserved for checks needing fields the typed view does not
  // extract (none do today).
  PodSecurityDecision Evaluate(const api::Namespace& ns, const api::Pod& pod,
                               const codec::Node& pod_tree, std::string_view username,
                               const PodRequest& request = {}) const;

  // ValidatePodController: a workload (Deployment, ReplicaSet, Job) CREATE or UPDATE, `pod` its
  // template as a pod. Enforce never applies to a workload (its pods are admitted on their own
  // create): only the audit annotations and the warning, `would violate PodSecurity
  // "restricted:latest": ...`; nothing when warn and audit are both privileged
  // (pod_security_controller.cc).
  PodSecurityDecision EvaluatePodController(const api::Namespace& ns, const api::Pod& pod,
                                            std::string_view username) const;

  // Admits a namespace CREATE (old_ns null) or UPDATE: its pod-security labels must parse. An
  // UPDATE that tightens enforce dry-runs the namespace's `pods` (when given: the stored ones)
  // against the new level, as EvaluatePodsInNamespace: `existing pods in namespace "x" violate
  // the new PodSecurity enforce level "restricted:latest"`, then one warning per distinct set
  // of violations, `web: allowPrivilegeEscalation != false, ...` or `a (and 2 other pods): ...`.
  NamespaceDecision ValidateNamespace(const api::Namespace& ns,
                                      const api::Namespace* old_ns = nullptr,
                                      const std::vector<api::Pod>* pods = nullptr) const;

  // The effective policy of a namespace and any label errors.
  NamespacePolicy PolicyFor(const api::Namespace& ns) const;

  const PodSecurityConfiguration& configuration() const { return config_; }

 private:
  bool ExemptNamespace(std::string_view ns) const;
  bool ExemptUser(std::string_view username) const;
  bool ExemptRuntimeClass(const std::optional<std::string>& runtime_class) const;
  std::string ExemptNamespaceWarning(const api::Namespace& ns, const Policy& policy) const;
  // `enforce` false: a workload's template (audit and warn only).
  PodSecurityDecision EvaluatePod(const NamespacePolicy& ns_policy, const api::Pod& pod,
                                  Operation operation, bool enforce = true) const;

  PodSecurityConfiguration config_;
  const Evaluator* evaluator_;
};

}  // namespace podlimits::admission::psa
