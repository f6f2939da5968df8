// Pod Security for the workload resources (k8s.io/pod-security-admission's
// ValidatePodController): the template is evaluated for audit and warn, never enforced.
#include "admission/pod_security.h"

namespace podlimits::admission::psa {

PodSecurityDecision PodSecurity::EvaluatePodController(const api::Namespace& ns,
                                                       const api::Pod& pod,
                                                       std::string_view username) const {
  PodSecurityDecision out;
  const std::string& ns_name =
      ns.metadata.name.empty() ? pod.metadata.namespace_ : ns.metadata.name;
  // Exemptions short-circuit, with the exempt annotation as for pods.
  if (ExemptNamespace(ns_name)) {
    out.audit_annotations[std::string(kAuditAnnotationPrefix) + "exempt"] = "namespace";
    return out;
  }
  if (ExemptUser(username)) {
    out.audit_annotations[std::string(kAuditAnnotationPrefix) + "exempt"] = "user";
    return out;
  }
  NamespacePolicy ns_policy = PolicyFor(ns);
  if (ns_policy.errors.empty() && ns_policy.policy.warn.level == Level::kPrivileged &&
      ns_policy.policy.audit.level == Level::kPrivileged) {
    return out;
  }
  return EvaluatePod(ns_policy, pod, Operation::kCreate, /*enforce=*/false);
}

}  // namespace podlimits::admission::psa
