// YAML 1.1 plain-scalar resolution as go-yaml v2 does it (shared by reader and writer).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "codec/node.h"

namespace podlimits::codec {

// Resolves a plain scalar's text to the node kubectl would send for it: null, a bool, a
// number in the text encoding/json writes (so "0x1F" is 31, "1e3" is 1000, "1.0" is 1), or a
// string. YAML's infinities and NaN resolve to numbers whose text is one of the constants
// below; they cannot become JSON, and the parser reports them as kubectl does.
Node ResolvePlainScalar(std::string_view text);

inline constexpr std::string_view kYamlPositiveInfinity = "+Inf";
inline constexpr std::string_view kYamlNegativeInfinity = "-Inf";
inline constexpr std::string_view kYamlNaN = "NaN";

// The JSON object key sigs.k8s.io/yaml makes of a plain scalar used as a mapping key: strings
// as written, booleans "true"/"false", integers in decimal, floats as
// strconv.FormatFloat(f, 'g', -1, 32) ("1e+06"), infinities ".inf"/"-.inf", NaN ".nan".
// nullopt for a null key, which has no JSON form.
std::optional<std::string> ResolvePlainKey(std::string_view text);

// True for the numbers above.
bool IsYamlSpecialFloat(const Node& n);

}  // namespace podlimits::codec
