// `kubectl get`'s server-side printing: a meta.k8s.io/v1 Table with upstream's columns and cells
// for each resource (pkg/printers/internalversion), rows carrying the object's metadata as a
// PartialObjectMetadata (kubectl reads the namespace of a row from it), or what the request's
// `includeObject` asks for instead. Done so far:
//
//   namespaces   NAME STATUS AGE
//   configmaps   NAME DATA AGE
//   secrets      NAME TYPE DATA AGE
//   limitranges  NAME CREATED AT
//   anything else: the apiserver's default, NAME CREATED AT
#pragma once

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "codec/node.h"

namespace podlimits::printers {

// What a row's `object` holds (TableOptions.includeObject): the object's metadata as a
// PartialObjectMetadata (`Metadata`, the default), the whole object (`Object`: kubectl's
// --sort-by asks for it, since it sorts the rows on a field of the object), or null (`None`).
enum class RowObject { kMetadata, kObject, kNone };
// "" is the default; anything but the three names is nullopt (the apiserver's 400).
std::optional<RowObject> ParseIncludeObject(std::string_view value);

// `objects` are stored objects of `resource`; `resource_version` the list's.
codec::Node BuildTable(std::string_view resource, const std::vector<codec::Node>& objects,
                       std::string_view resource_version, std::chrono::sys_seconds now,
                       RowObject row_object = RowObject::kMetadata);

}  // namespace podlimits::printers
