// KEP-5758: securityContext.ulimits.
#include <fmt/format.h>

#include <array>
#include <set>

#include "validation/pod.h"

namespace podlimits::validation {
namespace {

// The KEP's allowlist (sets.List order: sorted).
constexpr std::array<std::string_view, 6> kSupportedUlimits = {"core",   "memlock", "nice",
                                                               "nofile", "rtprio",  "stack"};

// "In most modern Linux distributions, the maximum allowed value for RLIMIT_NOFILE is 1048576".
constexpr std::int64_t kMaxNofile = 1048576;
constexpr std::int64_t kUnlimited = -1;

bool Supported(std::string_view name) {
  for (auto s : kSupportedUlimits) {
    if (s == name) return true;
  }
  return false;
}

// Compared as the node will apply them (seed 000): -1 is RLIM_INFINITY, larger than any finite
// value, and the runtime caps every other negative value to 0 — so {soft: -3, hard: -7} is
// {0, 0}, valid (each value still gets its warning), while {soft: 5, hard: -7} is 5 > 0.
std::int64_t AsApplied(std::int64_t v) {
  return v < kUnlimited ? 0 : v;
}

bool SoftExceedsHard(std::int64_t soft, std::int64_t hard) {
  soft = AsApplied(soft);
  hard = AsApplied(hard);
  if (hard == kUnlimited) return false;
  if (soft == kUnlimited) return true;
  return soft > hard;
}

std::string SoftExceedsHardDetail(std::int64_t soft, std::int64_t hard) {
  std::string detail = fmt::format("must be less than or equal to hard limit {}", hard);
  if (soft == kUnlimited) detail += " (-1 means unlimited)";
  if (hard < kUnlimited) detail += " (the node treats negative values other than -1 as 0)";
  return detail;
}

}  // namespace

void ValidateUlimits(const api::Container& c, const api::PodSpec& spec, const field::Path& path,
                     ValidationResult& out) {
  if (!c.security_context || !c.security_context->ulimits) return;
  const auto& ulimits = *c.security_context->ulimits;
  field::Path list = path.Child("ulimits");
  // Windows pods: validateWindows forbids the whole list (pod_os.cc).
  if (spec.IsWindows()) return;
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < ulimits.size(); ++i) {
    const api::Ulimit& u = ulimits[i];
    field::Path item = list.Index(i);
    if (u.name.empty()) {
      out.errors.push_back(field::Required(item.Child("name"), ""));
    } else if (!Supported(u.name)) {
      out.errors.push_back(field::NotSupported(
          item.Child("name"), u.name,
          std::vector<std::string>(kSupportedUlimits.begin(), kSupportedUlimits.end())));
    } else if (!seen.insert(u.name).second) {
      out.errors.push_back(field::Duplicate(item.Child("name"), u.name));
    }
    if (SoftExceedsHard(u.soft, u.hard)) {
      out.errors.push_back(
          field::Invalid(item.Child("soft"), u.soft, SoftExceedsHardDetail(u.soft, u.hard)));
    }
    if (u.name == "nofile") {
      for (auto [which, value] : {std::pair{"soft", u.soft}, std::pair{"hard", u.hard}}) {
        if (value > kMaxNofile) {
          out.errors.push_back(field::Invalid(
              item.Child(which), value,
              fmt::format("must be less than or equal to {} (or -1 for unlimited)", kMaxNofile)));
        }
      }
    }
    for (auto [which, value] : {std::pair{"soft", u.soft}, std::pair{"hard", u.hard}}) {
      if (value < kUnlimited) {
        out.warnings.push_back(
            fmt::format("{}: negative values other than -1 are treated as 0 by the node (got {})",
                        item.Child(which).String(), value));
      }
    }
  }
}

}  // namespace podlimits::validation
