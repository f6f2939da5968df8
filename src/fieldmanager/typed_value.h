// What structured-merge-diff's typed package does with an object and its schema (TypeRef):
//
//   ToFieldSet   the fields a value sets (an applied configuration's set): every scalar, every
//                item of a set or map list, every key of a map, empty or null struct fields,
//                atomic lists and maps as one field
//   Compare      what changed from `lhs` to `rhs`: added, modified, removed fields; a granular
//                struct, map or list that appears or goes is added or removed with its members
//   Merge        `rhs` over `lhs`: structs and maps by field, set and map lists by item (in
//                structured-merge-diff's order: `rhs`'s items, `lhs`-only items kept in place),
//                atomic values and scalars replaced
//   RemoveItems  the value without the members of a set (a member's whole subtree goes)
//
// An item of a map list without one of its keys takes the key's schema default (a port's
// protocol TCP); an item with no key at all is an error, as upstream.
#pragma once

#include "base/error.h"
#include "codec/node.h"
#include "fieldmanager/field_set.h"
#include "fieldmanager/type_schema.h"

namespace podlimits::fieldmanager {

struct Comparison {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
};

Result<FieldSet> ToFieldSet(const TypeRef& type, const codec::Node& value);

// `lhs` or `rhs` may be null (absent).
Result<Comparison> Compare(const TypeRef& type, const codec::Node* lhs, const codec::Node* rhs);

Result<codec::Node> Merge(const TypeRef& type, const codec::Node& lhs, const codec::Node& rhs);

codec::Node RemoveItems(const TypeRef& type, const codec::Node& value, const FieldSet& remove);

// The set with every declared struct field that has members below it made a member itself
// (structured-merge-diff's EnsureNamedFieldsAreMembers, which prune compares with).
FieldSet EnsureNamedFieldsAreMembers(const TypeRef& type, const FieldSet& set);

// The object Go's encoder writes for a zero value of the type (`{"metadata":
// {"creationTimestamp":null},"spec":{"containers":null},"status":{}}` for a Pod): what the
// apiserver compares a created object with.
codec::Node ZeroObject(const TypeRef& type);

// Whether two values are the same JSON: objects whatever their member order (a stored object is
// in canonical order, a configuration in the user's), numbers by value.
bool SameValue(const codec::Node& a, const codec::Node& b);

// The path element of a list item, or an error for an item a map list cannot key.
Result<PathElement> ListItemElement(const TypeRef& list, const codec::Node& item);

}  // namespace podlimits::fieldmanager
