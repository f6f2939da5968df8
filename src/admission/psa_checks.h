// The Pod Security Standards checks, one function per check and policy version, in the shape of
// k8s.io/pod-security-admission/policy (checks.go): a check sees only the pod's metadata and
// spec and answers {allowed, reason, detail} with upstream's exact strings.
//
// psa_checks_baseline.cc and psa_checks_restricted.cc hold the checks of each level;
// psa_registry.h orders and selects them per level and version.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "admission/psa_level.h"
#include "api/objects.h"

namespace podlimits::admission::psa {

struct CheckResult {
  bool allowed = true;
  std::string forbidden_reason;  // e.g. "privileged"
  std::string
      forbidden_detail;  // e.g. `container "a" must not set securityContext.privileged=true`

  static CheckResult Allow() { return {}; }
  static CheckResult Forbid(std::string reason, std::string detail) {
    return {false, std::move(reason), std::move(detail)};
  }
};

using CheckPodFn = CheckResult (*)(const api::ObjectMeta& meta, const api::PodSpec& spec);

// One implementation of a check, in force from `minimum_version` until the next entry's.
struct VersionedCheck {
  Version minimum_version;
  CheckPodFn check_pod = nullptr;
  // Baseline checks this (restricted) check replaces while it is in force.
  std::vector<std::string_view> override_check_ids;
};

struct Check {
  std::string_view id;
  Level level = Level::kBaseline;
  std::vector<VersionedCheck> versions;  // ascending minimum_version
};

std::vector<Check> BaselineChecks();
std::vector<Check> RestrictedChecks();
// Both levels: what kube-apiserver registers (policy.DefaultChecks()).
std::vector<Check> DefaultChecks();

// --- Message helpers shared by the checks (policy/helpers.go). ---

// `"a", "b"`: items wrapped in quotes and joined, without escaping (upstream's joinQuote).
std::string JoinQuote(const std::vector<std::string>& items);
std::string Join(const std::vector<std::string>& items, std::string_view separator);
// The singular only when n == 1.
std::string_view Pluralize(std::string_view singular, std::string_view plural, std::size_t n);
// `container "a"` / `containers "a", "b"`.
std::string ContainersPhrase(const std::vector<std::string>& names);
// spec.hostUsers == false: pods in a user namespace get the KEP-127 relaxations.
bool RelaxForUserNamespacePod(const api::PodSpec& spec);

// procMount unset or "Default" on every container: baseline procMount before v1.35 and
// procMount_restricted at every version.
CheckResult ProcMountDefaultOnly(const api::PodSpec& spec);

// Visits initContainers, then containers, then ephemeralContainers — the order every container
// list in a message follows.
using api::VisitContainers;

}  // namespace podlimits::admission::psa
