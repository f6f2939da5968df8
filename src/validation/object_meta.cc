#include "validation/object_meta.h"

#include <fmt/format.h>

namespace podlimits::validation {
namespace {

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) {
  return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z');
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesDNSLabel(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchesDNSSubdomain(std::string_view s) {
  if (s.empty()) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    if (!MatchesDNSLabel(s.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";

std::string ContentMaxLenError(std::size_t n) {
  return fmt::format("must be no more than {} bytes", n);
}

}  // namespace

std::string RegexError(std::string_view msg, std::string_view regex,
                       std::initializer_list<std::string_view> examples) {
  // apimachinery's RegexError, byte for byte (including the double space before "or").
  std::string out(msg);
  if (examples.size() == 0) return out + fmt::format(" (regex used for validation is '{}')", regex);
  out += " (e.g. ";
  std::size_t i = 0;
  for (auto e : examples) {
    if (i++ > 0) out += " or ";
    out += fmt::format("'{}', ", e);
  }
  out += fmt::format("regex used for validation is '{}')", regex);
  return out;
}

// util/validation's MaxLenError; the newer api/validate/content package (label keys and values)
// says "bytes".
std::string MaxLenError(std::size_t n) {
  return fmt::format("must be no more than {} characters", n);
}
std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!MatchesDNSLabel(value)) {
    // A valid subdomain that is not a label: the length was checked, so it is the dots.
    if (MatchesDNSSubdomain(value)) {
      errs.push_back("must not contain dots");
      return errs;
    }
    errs.push_back(RegexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character",
        kDNS1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

// The two packages word only the length error differently.
static std::vector<std::string> DNS1123SubdomainErrors(std::string_view value,
                                                       std::string (*max_len_error)(std::size_t)) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(max_len_error(253));
  if (!MatchesDNSSubdomain(value)) {
    errs.push_back(RegexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character",
        kDNS1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) {
  return DNS1123SubdomainErrors(value, MaxLenError);
}

// content.IsDNS1123Subdomain (the prefix of a label key).
static std::vector<std::string> ContentIsDNS1123Subdomain(std::string_view value) {
  return DNS1123SubdomainErrors(value, ContentMaxLenError);
}

// util/validation.IsQualifiedName is content.IsLabelKey in current apimachinery.
std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(
          "a valid label key " +
          RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (auto& e : ContentIsDNS1123Subdomain(prefix)) errs.push_back("prefix part " + e);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + ContentMaxLenError(63));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

// content.IsLabelValue.
std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(ContentMaxLenError(63));
  if (!value.empty() && !MatchesQualifiedNamePart(value)) {
    errs.push_back(RegexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
        "or '.', and must start and end with an alphanumeric character",
        "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

field::ErrorList ValidateObjectMeta(const api::ObjectMeta& meta, bool namespaced, NameRule rule,
                                    const field::Path& path) {
  field::ErrorList errs;
  auto check_name = [&](std::string_view value) {
    return rule == NameRule::kDNSLabel ? IsDNS1123Label(value) : IsDNS1123Subdomain(value);
  };
  if (!meta.generate_name.empty()) {
    // generateName gets a random suffix, so a trailing '-' is fine: upstream's maskTrailingDash
    // checks the prefix with its last TWO bytes replaced by "a" (a quirk kept as is, it decides
    // which prefixes pass: "x.-" does, then its generated name fails). On a lone "-" upstream's
    // slice panics; it is checked unmasked here instead.
    std::string prefix = meta.generate_name;
    if (prefix.size() > 1 && prefix.back() == '-') prefix.replace(prefix.size() - 2, 2, "a");
    for (auto& msg : check_name(prefix)) {
      errs.push_back(field::Invalid(path.Child("generateName"), meta.generate_name, msg));
    }
  }
  if (meta.name.empty()) {
    if (meta.generate_name.empty()) {
      errs.push_back(field::Required(path.Child("name"), "name or generateName is required"));
    }
  } else {
    for (auto& msg : check_name(meta.name)) {
      errs.push_back(field::Invalid(path.Child("name"), meta.name, msg));
    }
  }
  if (namespaced) {
    if (meta.namespace_.empty()) {
      errs.push_back(field::Required(path.Child("namespace"), ""));
    } else {
      for (auto& msg : IsDNS1123Label(meta.namespace_)) {
        errs.push_back(field::Invalid(path.Child("namespace"), meta.namespace_, msg));
      }
    }
  } else if (!meta.namespace_.empty()) {
    errs.push_back(field::Forbidden(path.Child("namespace"), "not allowed on this type"));
  }
  for (const auto& [key, value] : meta.labels) {
    for (auto& msg : IsQualifiedName(key)) {
      errs.push_back(field::Invalid(path.Child("labels"), key, msg));
    }
    for (auto& msg : IsValidLabelValue(value)) {
      errs.push_back(field::Invalid(path.Child("labels"), value, msg));
    }
  }
  std::size_t annotation_bytes = 0;
  for (const auto& [key, value] : meta.annotations) {
    for (auto& msg : IsQualifiedName(key)) {
      errs.push_back(field::Invalid(path.Child("annotations"), key, msg));
    }
    annotation_bytes += key.size() + value.size();
  }
  constexpr std::size_t kTotalAnnotationSizeLimitB = 256 * 1024;
  if (annotation_bytes > kTotalAnnotationSizeLimitB) {
    errs.push_back(field::TooLong(path.Child("annotations"), field::NoValue{},
                                  static_cast<std::int64_t>(kTotalAnnotationSizeLimitB)));
  }
  return errs;
}

}  // namespace podlimits::validation
