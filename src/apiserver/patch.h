// PATCH bodies as kube-apiserver applies them to the stored object:
//
//   application/merge-patch+json            RFC 7386: objects merge, null removes, anything else
//                                           replaces (kubectl label, annotate, patch --type merge)
//   application/json-patch+json             RFC 6902: add, remove, replace, move, copy, test
//                                           (kubectl patch --type json)
//   application/strategic-merge-patch+json  the strategic merge patch of core/v1 types (kubectl
//                                           apply and the default of kubectl patch): lists with a
//                                           patch merge key (containers by name, ports by
//                                           containerPort, ...) merge element by element, the
//                                           directives $patch (replace, delete, merge),
//                                           $retainKeys, $deleteFromPrimitiveList/<list> and
//                                           $setElementOrder/<list> are honoured
//
// The error is the apiserver's message for a patch that does not apply.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::apiserver {

enum class PatchType { kMerge, kJson, kStrategic };

// The patch type of a Content-Type header, or nullopt for any other.
std::optional<PatchType> PatchTypeOf(std::string_view content_type);

// `patch` is the request body. The strategic merge keys are core/v1's, by list field name.
Result<codec::Node> ApplyPatch(const codec::Node& object, PatchType type, std::string_view patch);

}  // namespace podlimits::apiserver
