// Shared by pod_security_test.cc and its split files: label and annotation keys, a pod that
// passes restricted:latest, and the table runner for PodSecurity::Evaluate.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admission/pod_security.h"
#include "psa_test_util.h"

namespace podlimits::admission::psa::testing {

using Labels = std::map<std::string, std::string>;
using Annotations = std::map<std::string, std::string>;

inline constexpr const char* kEnforce = "pod-security.kubernetes.io/enforce";
inline constexpr const char* kEnforceVersion = "pod-security.kubernetes.io/enforce-version";
inline constexpr const char* kAudit = "pod-security.kubernetes.io/audit";
inline constexpr const char* kAuditVersion = "pod-security.kubernetes.io/audit-version";
inline constexpr const char* kWarn = "pod-security.kubernetes.io/warn";
inline constexpr const char* kWarnVersion = "pod-security.kubernetes.io/warn-version";

inline constexpr const char* kEnforcePolicy = "pod-security.kubernetes.io/enforce-policy";
inline constexpr const char* kAuditViolations = "pod-security.kubernetes.io/audit-violations";
inline constexpr const char* kExempt = "pod-security.kubernetes.io/exempt";
inline constexpr const char* kError = "pod-security.kubernetes.io/error";

// Passes restricted:latest.
inline constexpr std::string_view kRestrictedSpec = R"(securityContext:
  runAsNonRoot: true
  seccompProfile:
    type: RuntimeDefault
containers:
- name: app
  image: registry.example/app:1
  securityContext:
    allowPrivilegeEscalation: false
    capabilities:
      drop: [ALL]
)";

// Passes baseline, fails restricted on the four classic checks.
inline constexpr std::string_view kPlainSpec = "containers:\n- name: nginx\n  image: nginx\n";

inline constexpr std::string_view kPlainRestrictedDetail =
    R"(allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))";

struct Case {
  std::string name;
  Labels labels;
  std::string pod;  // full manifest
  std::optional<std::string> forbidden = std::nullopt;
  std::vector<std::string> warnings = {};
  Annotations annotations = {};
  std::string username = "alice";
  PodSecurityConfiguration config = DefaultPodSecurityConfiguration();
};

inline void RunCases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto pod = DecodePod(c.pod);
    PodSecurity psa(c.config);
    PodSecurityDecision d =
        psa.Evaluate(Namespace("team-a", c.labels), pod.pod, pod.tree, c.username);
    EXPECT_EQ(d.forbidden_message, c.forbidden);
    EXPECT_EQ(d.allowed(), !c.forbidden.has_value());
    EXPECT_EQ(d.warnings, c.warnings);
    EXPECT_EQ(d.audit_annotations, c.annotations);
  }
}

inline PodSecurityConfiguration Config(Policy defaults, PodSecurityExemptions exemptions = {}) {
  return PodSecurityConfiguration{defaults, std::move(exemptions)};
}

inline LevelVersion LVOf(std::string_view level, std::string_view version) {
  return LV(level, version);
}

}  // namespace podlimits::admission::psa::testing
