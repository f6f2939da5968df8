// Objects as the store keeps them: JSON, in the apiserver's field order, with the
// resourceVersion of the write that made them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/node.h"

namespace podlimits::apiserver {

// The object in stored bytes, or nullopt when they are not one JSON object.
std::optional<api::Node> ParseStoredObject(std::string_view data);

// The stored object as an item of a list response: without its kind and apiVersion, which a
// typed list (PodList.items) leaves out; the list names them once. Stored objects begin with
// the two (the schema's field order), so they are cut from the text; anything else goes out as
// it is. Appended to `out` (a list body), with no copy of its own.
void AppendListItem(std::string& out, std::string_view stored);

// Sets metadata.resourceVersion to `revision`, orders the fields as `kind`'s schema does and
// encodes the object.
std::string RenderStoredObject(api::Node& object, std::string_view kind, std::int64_t revision);

}  // namespace podlimits::apiserver
