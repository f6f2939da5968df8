// Objects as the store keeps them: JSON, in the apiserver's field order, with the
// resourceVersion of the write that made them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "listwatch/api_errors.h"
#include "codec/node.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

// The object in stored bytes, or nullopt when they are not one JSON object.
std::optional<codec::Node> ParseStoredObject(std::string_view data);

// Why stored bytes are not one JSON object ("invalid JSON at byte 120: Missing a comma or '}'
// after an object member."), or nullopt when they are one. What every path that sends stored
// bytes out as they are checks first, so that a damaged row is an error naming the object and
// never a response that is not JSON: RapidJSON's SAX reader over the bytes, no tree built.
std::optional<std::string> StoredJsonProblem(std::string_view data);

// The 500 that names `object`, whose stored bytes are not one JSON object (api_errors.h's
// CorruptObject, with StoredJsonProblem's reason).
ApiError CorruptStoredObject(const storage::StoredObject& object);

// The stored object as an item of a list response: without its kind and apiVersion, which a
// typed list (PodList.items) leaves out; the list names them once. Stored objects begin with
// the two (the schema's field order), so they are cut from the text; anything else goes out as
// it is. Appended to `out` (a list body), with no copy of its own.
void AppendListItem(std::string& out, std::string_view stored);

// Sets metadata.resourceVersion to `revision`, orders the fields as `kind`'s schema does and
// encodes the object.
std::string RenderStoredObject(codec::Node& object, std::string_view kind, std::int64_t revision);

}  // namespace podlimits::apiserver
