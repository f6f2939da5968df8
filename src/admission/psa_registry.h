// Which checks run for a level and version, in which order, and how their results combine
// (policy/registry.go and policy/checks.go's aggregation).
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

#include "admission/psa_checks.h"
#include "admission/psa_level.h"
#include "api/objects.h"

namespace podlimits::admission::psa {

// Every failing check, in evaluation order.
struct AggregateCheckResult {
  bool allowed = true;
  std::vector<std::string> forbidden_reasons;
  std::vector<std::string> forbidden_details;

  // The reasons joined with ", " (namespace dry-run warnings).
  std::string ForbiddenReason() const;
  // `reason1 (detail1), reason2, reason3 (detail3)`: what deny, audit and warn messages carry.
  std::string ForbiddenDetail() const;
};

AggregateCheckResult AggregateCheckResults(const std::vector<CheckResult>& results);

class Evaluator {
 public:
  // Validates the checks as upstream's NewEvaluator does (unique IDs, ascending versions,
  // overrides naming baseline checks) and precomputes the check list of every version.
  static Result<Evaluator> Create(std::vector<Check> checks);
  // The evaluator over DefaultChecks().
  static const Evaluator& Default();

  // Results of every check in force for `lv`, in evaluation order: baseline check IDs sorted,
  // then (at restricted) restricted check IDs sorted, minus overridden baseline checks.
  // Privileged runs nothing; `latest` and versions newer than max_version() run max_version().
  std::vector<CheckResult> EvaluatePod(const LevelVersion& lv, const api::ObjectMeta& meta,
                                       const api::PodSpec& spec) const;
  // Runs the one check `id` as EvaluatePod would for `lv`; nullopt when that check does not run
  // for `lv` (not in force yet, overridden, or privileged).
  std::optional<CheckResult> EvaluateCheck(std::string_view id, const LevelVersion& lv,
                                           const api::ObjectMeta& meta,
                                           const api::PodSpec& spec) const;
  // The IDs EvaluatePod would run, in the same order.
  std::vector<std::string_view> CheckIDs(const LevelVersion& lv) const;

  // The newest MinimumVersion of any check.
  Version max_version() const { return Version::MajorMinor(max_minor_); }

 private:
  struct Entry {
    std::string_view id;
    CheckPodFn fn;
  };
  const std::vector<Entry>& EntriesFor(const LevelVersion& lv) const;

  std::int64_t max_minor_ = 0;
  // Indexed by minor version 0..max_minor_.
  std::vector<std::vector<Entry>> baseline_;
  std::vector<std::vector<Entry>> restricted_;
  std::vector<Entry> none_;
};

}  // namespace podlimits::admission::psa
