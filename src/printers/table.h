// `kubectl get`'s server-side printing: a meta.k8s.io/v1 Table with upstream's columns and cells
// for each resource (pkg/printers/internalversion), rows carrying the object's metadata as a
// PartialObjectMetadata (kubectl reads the namespace of a row from it). Done so far:
//
//   namespaces   NAME STATUS AGE
//   configmaps   NAME DATA AGE
//   secrets      NAME TYPE DATA AGE
//   limitranges  NAME CREATED AT
//   anything else: the apiserver's default, NAME CREATED AT
#pragma once

#include <chrono>
#include <string_view>
#include <vector>

#include "codec/node.h"

namespace podlimits::printers {

// `objects` are stored objects of `resource`; `resource_version` the list's.
codec::Node BuildTable(std::string_view resource, const std::vector<codec::Node>& objects,
                     std::string_view resource_version, std::chrono::sys_seconds now);

}  // namespace podlimits::printers
