// ValidateConfigMap and ValidateSecret (pkg/apis/core/validation), and the key rules pods rely
// on when they read them (util/validation's IsConfigMapKey and IsEnvVarName).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/config_data.h"
#include "field/field.h"

namespace podlimits::validation {

// The most bytes of data a ConfigMap or Secret may hold (core.MaxSecretSize).
inline constexpr std::size_t kMaxSecretSize = 1024 * 1024;

// [-._a-zA-Z0-9]+ of at most 253 characters, not ".", "..", or starting with "..".
std::vector<std::string> IsConfigMapKey(std::string_view key);
// [-._a-zA-Z][-._a-zA-Z0-9]*, not ".", "..", or starting with "..".
std::vector<std::string> IsEnvVarName(std::string_view name);

field::ErrorList ValidateConfigMap(const api::ConfigMap& cm);
field::ErrorList ValidateSecret(const api::Secret& secret);

}  // namespace podlimits::validation
