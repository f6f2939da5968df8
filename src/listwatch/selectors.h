// Label and field selectors of list and watch requests, as apimachinery parses and matches them.
//
//   labelSelector  key, !key, key=value, key==value, key!=value, key in (a,b), key notin (a,b),
//                  joined by ','
//   fieldSelector  field=value, field==value, field!=value, joined by ','; the fields are the
//                  resource's (metadata.name and metadata.namespace for every one, type for
//                  secrets), anything else is the apiserver's "field label not supported"
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::apiserver {

struct Requirement {
  enum class Op { kExists, kNotExists, kEquals, kNotEquals, kIn, kNotIn };
  std::string key;
  Op op = Op::kExists;
  std::vector<std::string> values;
};

struct Selector {
  std::vector<Requirement> requirements;  // all must hold; none: everything
  bool Matches(const codec::Node* labels_or_fields) const;  // an object of string values
};

// The error is the Status message of the apiserver's 400.
Result<Selector> ParseLabelSelector(std::string_view text);
Result<Selector> ParseFieldSelector(std::string_view text, std::string_view resource);

// The fields a field selector of `resource` may name (every resource: metadata.name and
// metadata.namespace; pods, events, secrets, nodes, namespaces: upstream's own), and whether
// `field` is one.
std::span<const std::string_view> ResourceSelectableFields(std::string_view resource);
bool SelectableField(std::string_view resource, std::string_view field);

// The fields a field selector of `resource` reads from `object`, as an object of strings.
codec::Node SelectableFields(std::string_view resource, const codec::Node& object);

}  // namespace podlimits::apiserver
