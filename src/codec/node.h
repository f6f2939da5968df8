// The generic object tree every manifest is decoded into.
//
// podlimits keeps each object as the tree the user wrote (in key order, with every field,
// including the many it does not interpret), so that decode → encode loses nothing. Typed views
// (objects.h) read the fields podlimits interprets; mutations (defaulting, LimitRanger) edit the
// tree directly, so there is one source of truth.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podlimits::codec {

struct Member;

// Whether two object keys (or field names) are equal: the lengths, then the first byte, then
// memcmp of the rest. The members of one object rarely share a length and a first letter, and a
// lookup passes over several members before the one it wants (a container has a dozen), so the
// first-byte test spares a libc call for most members passed.
inline bool SameKey(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return a.empty() || (a[0] == b[0] && std::memcmp(a.data() + 1, b.data() + 1, a.size() - 1) == 0);
}

struct Node {
  enum class Kind : std::uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  // 1-based line in the source document; 0 when unknown.
  std::uint32_t line = 0;
  // kBool: "true"/"false"; kNumber: the literal as written; kString: the value.
  std::string scalar;
  std::vector<Node> items;      // kArray
  std::vector<Member> members;  // kObject, in source order

  static Node Null();
  static Node String(std::string s);
  static Node Bool(bool b);
  static Node Int(std::int64_t v);
  static Node Object();
  static Node Array();

  bool IsNull() const { return kind == Kind::kNull; }
  bool IsObject() const { return kind == Kind::kObject; }
  bool IsArray() const { return kind == Kind::kArray; }
  bool IsString() const { return kind == Kind::kString; }

  // Object access. Find returns nullptr when absent (or when this is not an object).
  // Members live in a vector: Ensure, Set and Erase on an object invalidate every pointer and
  // reference into that object's members (look them up again afterwards).
  const Node* Find(std::string_view key) const;
  Node* Find(std::string_view key);
  // Walks nested objects: FindPath({"spec", "resources"}).
  const Node* FindPath(std::initializer_list<std::string_view> keys) const;
  Node* FindPath(std::initializer_list<std::string_view> keys) {
    return const_cast<Node*>(static_cast<const Node*>(this)->FindPath(keys));
  }
  // Returns the member `key`, appending an empty one (of kind `kind`) if absent. Turns a null
  // node into an object first.
  Node& Ensure(std::string_view key, Kind kind = Kind::kObject);
  // Replaces or appends `key`.
  Node& Set(std::string_view key, Node value);
  bool Erase(std::string_view key);

  // Scalar helpers for nodes already checked by the schema.
  std::string_view Str() const { return scalar; }
  std::optional<std::int64_t> AsInt() const;
  bool AsBool() const { return kind == Kind::kBool && scalar == "true"; }

  bool operator==(const Node& other) const;
};

struct Member {
  std::string key;
  Node value;
  bool operator==(const Member& other) const = default;
};

// Defined once Member is complete: clang instantiates vector<Member>'s destructor at the point
// of an inline definition inside Node.
inline Node Node::Null() { return Node{}; }

// Short description of a node's kind as Go's encoding/json names it: "string", "number",
// "bool", "array", "object", "null".
std::string_view GoJsonKindName(const Node& n);

// The string `n` holds, or "" when it is missing or not a string: how optional string fields
// of a decoded tree are read.
inline std::string StringOf(const Node* n) { return n && n->IsString() ? n->scalar : std::string(); }
// The integer `n` holds, or nullopt when it is missing or not an integral number.
inline std::optional<std::int64_t> IntOf(const Node* n) { return n ? n->AsInt() : std::nullopt; }

}  // namespace podlimits::codec
