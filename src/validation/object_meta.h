// ObjectMeta validation (names, namespaces, labels, annotations) with apimachinery's messages.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "field/field.h"

namespace podlimits::validation {

// IsDNS1123Subdomain / IsDNS1123Label: the list of messages, empty when valid.
std::vector<std::string> IsDNS1123Subdomain(std::string_view value);
std::vector<std::string> IsDNS1123Label(std::string_view value);
// IsQualifiedName (label keys, resource names) and IsValidLabelValue.
std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);

// apimachinery's RegexError and MaxLenError, byte for byte.
std::string RegexError(std::string_view msg, std::string_view regex,
                       std::initializer_list<std::string_view> examples);
std::string MaxLenError(std::size_t n);

enum class NameRule { kDNSSubdomain, kDNSLabel };

// ValidateObjectMeta: name (or generateName) present and valid under `rule`, namespace valid
// when `namespaced` (and absent otherwise), labels and annotations well-formed.
field::ErrorList ValidateObjectMeta(const api::ObjectMeta& meta, bool namespaced, NameRule rule,
                                    const field::Path& path);

}  // namespace podlimits::validation
