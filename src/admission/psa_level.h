// Pod Security levels, policy versions and the namespace labels that select them, with the
// semantics of k8s.io/pod-security-admission/api (helpers.go, constants.go).
#pragma once

#include <compare>
#include <cstdint>
#include <expected>
#include <map>
#include <string>
#include <string_view>

#include "base/error.h"

#include "field/field.h"

namespace podlimits::admission::psa {

// Ordered by strictness, so `<` means "less strict than" (upstream's CompareLevels).
enum class Level : std::uint8_t { kPrivileged, kBaseline, kRestricted };

std::string_view LevelName(Level level);

// A policy version: "latest" or "v1.<minor>". Only major version 1 exists.
class Version {
 public:
  static constexpr Version Latest() { return Version(0, true); }
  static constexpr Version MajorMinor(std::int64_t minor) { return Version(minor, false); }

  bool latest() const { return latest_; }
  std::int64_t minor() const { return minor_; }
  // "latest" or "v1.<minor>".
  std::string String() const;
  // True when this version is older than `other`; latest is newer than every version.
  bool Older(const Version& other) const;

  bool operator==(const Version&) const = default;

 private:
  constexpr Version(std::int64_t minor, bool latest) : minor_(minor), latest_(latest) {}
  std::int64_t minor_ = 0;
  bool latest_ = false;
};

struct LevelVersion {
  Level level = Level::kPrivileged;
  Version version = Version::Latest();

  // "restricted:latest", "baseline:v1.29" — the text every PSA message quotes.
  std::string String() const;
  // Equal, except that privileged ignores the version (upstream's Equivalent).
  bool Equivalent(const LevelVersion& other) const;
  bool operator==(const LevelVersion&) const = default;
};

struct Policy {
  LevelVersion enforce, audit, warn;

  bool FullyPrivileged() const;
  bool Equivalent(const Policy& other) const;
  bool operator==(const Policy&) const = default;
};

// The namespace labels (api/constants.go).
inline constexpr std::string_view kEnforceLevelLabel = "pod-security.kubernetes.io/enforce";
inline constexpr std::string_view kEnforceVersionLabel =
    "pod-security.kubernetes.io/enforce-version";
inline constexpr std::string_view kAuditLevelLabel = "pod-security.kubernetes.io/audit";
inline constexpr std::string_view kAuditVersionLabel = "pod-security.kubernetes.io/audit-version";
inline constexpr std::string_view kWarnLevelLabel = "pod-security.kubernetes.io/warn";
inline constexpr std::string_view kWarnVersionLabel = "pod-security.kubernetes.io/warn-version";

// ParseLevel / ParseVersion. The error is upstream's text (`must be one of privileged, baseline,
// restricted`, `must be "latest" or "v1.x"`); callers choose the fallback, as upstream's do.
Result<Level> ParseLevel(std::string_view text);
Result<Version> ParseVersion(std::string_view text);

// The built-in default when nothing is configured: privileged:latest for all three modes.
Policy PrivilegedPolicy();

struct NamespacePolicy {
  Policy policy;
  // One Invalid error per bad label, at metadata.labels[<label>]; the policy is still usable
  // (invalid enforce level → restricted, invalid audit/warn level → privileged, invalid
  // version → latest).
  field::ErrorList errors;
};

// PolicyToEvaluate: resolves a namespace's labels against the configured defaults, including
// the implicit warn level (kubernetes#113491: with a valid enforce label and no warn label, warn
// follows enforce when enforce is stricter).
NamespacePolicy PolicyToEvaluate(const std::map<std::string, std::string>& labels,
                                 const Policy& defaults);

}  // namespace podlimits::admission::psa
