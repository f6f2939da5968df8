// Sets of field paths, as structured-merge-diff's fieldpath package keeps them, and their
// `fieldsV1` encoding in metadata.managedFields:
//
//   a path is a list of elements; an element is one of (in this sort order)
//     f:NAME       a field of a struct or a key of a map          printed .NAME
//     k:{...}      an item of a list of type map, by its keys     printed [name="x",port=80]
//     v:VALUE      an item of a list of type set, by its value    printed [=VALUE]
//     i:N          an item of any other list, by position         printed [N]
//
//   fieldsV1 is a tree of those elements: {"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":
//   {".":{},"f:image":{}}}}}; `{}` marks a member with no members below it, "." a member that
//   also has members below it (the item itself and some of its fields).
//
// The set is a trie: each entry is one element, whether the path ending there is a member, and
// the entries below it. Entries are kept sorted by element, the order fieldsV1 is written in.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::fieldmanager {

struct PathElement {
  enum class Kind : std::uint8_t { kField, kKey, kValue, kIndex };
  Kind kind = Kind::kField;
  std::string field;                                     // kField
  std::vector<std::pair<std::string, codec::Node>> key;  // kKey, sorted by name
  codec::Node value;                                     // kValue
  std::int64_t index = 0;                                // kIndex

  static PathElement Field(std::string name);
  static PathElement Key(std::vector<std::pair<std::string, codec::Node>> fields);
  static PathElement Value(codec::Node value);
  static PathElement Index(std::int64_t i);

  // structured-merge-diff's order: fields < keys < values < indexes, then by content.
  int Compare(const PathElement& other) const;
  bool operator==(const PathElement& other) const { return Compare(other) == 0; }

  // ".name", "[name=\"a\"]", "[=\"x\"]", "[3]": how a conflict names a path.
  std::string String() const;
  // "f:name", "k:{\"name\":\"a\"}", "v:\"x\"", "i:3": the fieldsV1 key.
  std::string Serialize() const;
};

using Path = std::vector<PathElement>;

// ".spec.containers[name=\"a\"].image"
std::string PathString(const Path& path);

class FieldSet {
 public:
  struct Entry;

  bool Empty() const { return entries_.empty(); }
  void Insert(const Path& path);
  bool Has(const Path& path) const;
  // Whether `path` or one of its prefixes is a member.
  bool HasPrefixOf(const Path& path) const;

  FieldSet Union(const FieldSet& other) const;
  FieldSet Difference(const FieldSet& other) const;
  FieldSet Intersection(const FieldSet& other) const;
  // The set without every path under (and at) a member of `prefixes`: how a resource's reset
  // fields (a pod's status on the main resource) are left out of a manager's set.
  FieldSet WithoutPrefixes(const FieldSet& prefixes) const;
  // The members below `element` (not `element` itself), as a set of their own.
  const FieldSet* Child(const PathElement& element) const;

  // Every member, in order.
  std::vector<Path> Members() const;

  // The fieldsV1 tree.
  codec::Node ToFieldsV1() const;
  // The set a fieldsV1 tree holds; an error says what does not parse, as the apiserver's
  // decoder does (unknown element kinds are skipped, as upstream does).
  static Result<FieldSet> FromFieldsV1(const codec::Node& fields);

  bool operator==(const FieldSet& other) const;

  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& mutable_entries() { return entries_; }

 private:
  std::vector<Entry> entries_;
};

struct FieldSet::Entry {
  PathElement element;
  bool member = false;
  FieldSet children;
};

// "k:{\"name\":\"a\"}" -> the element; errors as structured-merge-diff's DeserializePathElement.
Result<PathElement> ParsePathElement(std::string_view serialized);

}  // namespace podlimits::fieldmanager
