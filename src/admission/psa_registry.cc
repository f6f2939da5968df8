#include "admission/psa_registry.h"

#include <algorithm>
#include <map>
#include <set>

namespace podlimits::admission::psa {
namespace {

Result<void> ValidateChecks(const std::vector<Check>& checks) {
  std::map<std::string_view, Level> levels;
  for (const auto& check : checks) {
    std::string id(check.id);
    if (!levels.emplace(check.id, check.level).second) {
      return Failure("multiple checks registered for ID " + id);
    }
    if (check.level == Level::kPrivileged) {
      return Failure("check " + id + ": invalid level privileged");
    }
    if (check.versions.empty()) return Failure("check " + id + ": empty");
    for (std::size_t i = 0; i < check.versions.size(); ++i) {
      const VersionedCheck& v = check.versions[i];
      if (v.minimum_version.latest()) {
        return Failure("check " + id + ": version cannot be 'latest'");
      }
      if (!v.check_pod) return Failure("check " + id + ": no check function");
      if (i > 0) {
        const Version& prev = check.versions[i - 1].minimum_version;
        if (prev == v.minimum_version) {
          return Failure("check " + id + ": duplicate version " +
                                 v.minimum_version.String());
        }
        if (!prev.Older(v.minimum_version)) {
          return Failure("check " + id + ": versions must be strictly increasing");
        }
      }
    }
  }
  for (const auto& check : checks) {
    for (const auto& v : check.versions) {
      if (v.override_check_ids.empty()) continue;
      if (check.level != Level::kRestricted) {
        return Failure("check " + std::string(check.id) +
                               ": only restricted checks may set overrides");
      }
      for (auto overridden : v.override_check_ids) {
        auto it = levels.find(overridden);
        if (it != levels.end() && it->second != Level::kBaseline) {
          return Failure("check " + std::string(check.id) + ": overrides " +
                                 std::string(LevelName(it->second)) + " check " +
                                 std::string(overridden));
        }
      }
    }
  }
  return {};
}

// The implementation of `check` in force at minor version `minor`, or nullptr before its first.
const VersionedCheck* InForce(const Check& check, std::int64_t minor) {
  const VersionedCheck* found = nullptr;
  for (const auto& v : check.versions) {
    if (v.minimum_version.minor() <= minor) found = &v;
  }
  return found;
}

}  // namespace

std::string AggregateCheckResult::ForbiddenReason() const {
  return Join(forbidden_reasons, ", ");
}

std::string AggregateCheckResult::ForbiddenDetail() const {
  std::string out;
  for (std::size_t i = 0; i < forbidden_reasons.size(); ++i) {
    if (i) out += ", ";
    out += forbidden_reasons[i];
    if (!forbidden_details[i].empty()) out += " (" + forbidden_details[i] + ")";
  }
  return out;
}

AggregateCheckResult AggregateCheckResults(const std::vector<CheckResult>& results) {
  AggregateCheckResult out;
  for (const auto& r : results) {
    if (r.allowed) continue;
    out.allowed = false;
    out.forbidden_reasons.push_back(r.forbidden_reason.empty() ? "unknown forbidden reason"
                                                               : r.forbidden_reason);
    out.forbidden_details.push_back(r.forbidden_detail);
  }
  return out;
}

Result<Evaluator> Evaluator::Create(std::vector<Check> checks) {
  if (auto ok = ValidateChecks(checks); !ok) return std::unexpected(ok.error());
  // Byte-wise ID order ("seLinuxOptions" before "seccompProfile_baseline"), as slices.Sort.
  std::sort(checks.begin(), checks.end(),
            [](const Check& a, const Check& b) { return a.id < b.id; });
  Evaluator e;
  for (const auto& c : checks) {
    for (const auto& v : c.versions)
      e.max_minor_ = std::max(e.max_minor_, v.minimum_version.minor());
  }
  e.baseline_.resize(static_cast<std::size_t>(e.max_minor_) + 1);
  e.restricted_.resize(static_cast<std::size_t>(e.max_minor_) + 1);
  for (std::int64_t minor = 0; minor <= e.max_minor_; ++minor) {
    auto& baseline = e.baseline_[static_cast<std::size_t>(minor)];
    auto& restricted = e.restricted_[static_cast<std::size_t>(minor)];
    std::set<std::string_view> overridden;
    std::vector<Entry> restricted_only;
    for (const auto& c : checks) {
      const VersionedCheck* v = InForce(c, minor);
      if (!v) continue;
      if (c.level == Level::kBaseline) {
        baseline.push_back({c.id, v->check_pod});
      } else {
        restricted_only.push_back({c.id, v->check_pod});
        overridden.insert(v->override_check_ids.begin(), v->override_check_ids.end());
      }
    }
    for (const auto& b : baseline) {
      if (!overridden.contains(b.id)) restricted.push_back(b);
    }
    restricted.insert(restricted.end(), restricted_only.begin(), restricted_only.end());
  }
  return e;
}

const Evaluator& Evaluator::Default() {
  // The built-in checks are validated by the unit tests; a failure here is a programming error.
  static const Evaluator evaluator = *Create(DefaultChecks());
  return evaluator;
}

const std::vector<Evaluator::Entry>& Evaluator::EntriesFor(const LevelVersion& lv) const {
  if (lv.level == Level::kPrivileged) return none_;
  // latest, and versions newer than any check, evaluate as the newest policy version.
  std::int64_t minor = lv.version.latest() ? max_minor_ : std::min(lv.version.minor(), max_minor_);
  const auto& table = lv.level == Level::kBaseline ? baseline_ : restricted_;
  return table[static_cast<std::size_t>(minor)];
}

std::vector<CheckResult> Evaluator::EvaluatePod(const LevelVersion& lv, const api::ObjectMeta& meta,
                                                const api::PodSpec& spec) const {
  const std::vector<Entry>& entries = EntriesFor(lv);
  std::vector<CheckResult> results;
  results.reserve(entries.size());  // one allocation per pod and level, not one per doubling
  for (const auto& e : entries) results.push_back(e.fn(meta, spec));
  return results;
}

std::optional<CheckResult> Evaluator::EvaluateCheck(std::string_view id, const LevelVersion& lv,
                                                    const api::ObjectMeta& meta,
                                                    const api::PodSpec& spec) const {
  for (const auto& e : EntriesFor(lv)) {
    if (e.id == id) return e.fn(meta, spec);
  }
  return std::nullopt;
}

std::vector<std::string_view> Evaluator::CheckIDs(const LevelVersion& lv) const {
  std::vector<std::string_view> ids;
  for (const auto& e : EntriesFor(lv)) ids.push_back(e.id);
  return ids;
}

}  // namespace podlimits::admission::psa
