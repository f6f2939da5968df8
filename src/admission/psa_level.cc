#include "admission/psa_level.h"

#include <charconv>

namespace podlimits::admission::psa {
namespace {

constexpr std::string_view kLevelError = "must be one of privileged, baseline, restricted";
constexpr std::string_view kVersionError = R"(must be "latest" or "v1.x")";

// Where a label error points: metadata.labels[<label>].
void AppendLabelError(field::ErrorList& errs, std::string_view label, const std::string& value,
                      const std::string& message) {
  errs.push_back(
      field::Invalid(field::Path("metadata").Child("labels").Key(label), value, message));
}

const std::string* FindLabel(const std::map<std::string, std::string>& labels,
                             std::string_view key) {
  auto it = labels.find(std::string(key));
  return it == labels.end() ? nullptr : &it->second;
}

// Resolves one level label. On error the fallback is the caller's: enforce fails closed
// (restricted), audit and warn fail open (privileged).
void ResolveLevel(const std::string& value, std::string_view label, Level fallback, Level& out,
                  field::ErrorList& errs) {
  auto level = ParseLevel(value);
  if (level) {
    out = *level;
    return;
  }
  out = fallback;
  AppendLabelError(errs, label, value, level.error().Message());
}

void ResolveVersion(const std::string& value, std::string_view label, Version& out,
                    field::ErrorList& errs) {
  auto version = ParseVersion(value);
  out = version.value_or(Version::Latest());
  if (!version) AppendLabelError(errs, label, value, version.error().Message());
}

}  // namespace

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kPrivileged:
      return "privileged";
    case Level::kBaseline:
      return "baseline";
    case Level::kRestricted:
      return "restricted";
  }
  return "";
}

std::string Version::String() const {
  if (latest_) return "latest";
  return "v1." + std::to_string(minor_);
}

bool Version::Older(const Version& other) const {
  if (latest_) return false;  // latest is newer than everything, even future versions
  if (other.latest_) return true;
  return minor_ < other.minor_;
}

std::string LevelVersion::String() const {
  return std::string(LevelName(level)) + ":" + version.String();
}

bool LevelVersion::Equivalent(const LevelVersion& other) const {
  return level == other.level && (level == Level::kPrivileged || version == other.version);
}

bool Policy::FullyPrivileged() const {
  return enforce.level == Level::kPrivileged && audit.level == Level::kPrivileged &&
         warn.level == Level::kPrivileged;
}

bool Policy::Equivalent(const Policy& other) const {
  return enforce.Equivalent(other.enforce) && audit.Equivalent(other.audit) &&
         warn.Equivalent(other.warn);
}

Result<Level> ParseLevel(std::string_view text) {
  if (text == "privileged") return Level::kPrivileged;
  if (text == "baseline") return Level::kBaseline;
  if (text == "restricted") return Level::kRestricted;
  return Failure(std::string(kLevelError));
}

Result<Version> ParseVersion(std::string_view text) {
  if (text == "latest") return Version::Latest();
  // ^v1\.([0-9]|[1-9][0-9]*)$ — no leading zeros, no sign, nothing after the digits.
  constexpr std::string_view kPrefix = "v1.";
  if (!text.starts_with(kPrefix)) return Failure(std::string(kVersionError));
  std::string_view digits = text.substr(kPrefix.size());
  if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) {
    return Failure(std::string(kVersionError));
  }
  std::int64_t minor = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), minor);
  // Go's strconv.Atoi fails on overflow too, which upstream reports with the same message.
  if (ec != std::errc() || end != digits.data() + digits.size() || minor < 0) {
    return Failure(std::string(kVersionError));
  }
  return Version::MajorMinor(minor);
}

Policy PrivilegedPolicy() {
  LevelVersion privileged{Level::kPrivileged, Version::Latest()};
  return Policy{privileged, privileged, privileged};
}

NamespacePolicy PolicyToEvaluate(const std::map<std::string, std::string>& labels,
                                 const Policy& defaults) {
  NamespacePolicy out{defaults, {}};
  if (labels.empty()) return out;
  Policy& p = out.policy;
  field::ErrorList& errs = out.errors;

  const std::string* enforce_level = FindLabel(labels, kEnforceLevelLabel);
  bool enforce_valid = false;
  if (enforce_level) {
    std::size_t before = errs.size();
    ResolveLevel(*enforce_level, kEnforceLevelLabel, Level::kRestricted, p.enforce.level, errs);
    enforce_valid = errs.size() == before;
  }
  if (const std::string* v = FindLabel(labels, kEnforceVersionLabel)) {
    ResolveVersion(*v, kEnforceVersionLabel, p.enforce.version, errs);
  }
  if (const std::string* l = FindLabel(labels, kAuditLevelLabel)) {
    ResolveLevel(*l, kAuditLevelLabel, Level::kPrivileged, p.audit.level, errs);
  }
  if (const std::string* v = FindLabel(labels, kAuditVersionLabel)) {
    ResolveVersion(*v, kAuditVersionLabel, p.audit.version, errs);
  }
  if (const std::string* l = FindLabel(labels, kWarnLevelLabel)) {
    ResolveLevel(*l, kWarnLevelLabel, Level::kPrivileged, p.warn.level, errs);
  } else if (enforce_valid && p.enforce.level > p.warn.level) {
    // Implicit warn: setting only enforce should also warn on workload objects, whose pods
    // enforce would later reject. An explicit warn-version label still wins (below).
    p.warn.level = p.enforce.level;
    p.warn.version = p.enforce.version;
  }
  if (const std::string* v = FindLabel(labels, kWarnVersionLabel)) {
    ResolveVersion(*v, kWarnVersionLabel, p.warn.version, errs);
  }
  return out;
}

}  // namespace podlimits::admission::psa
