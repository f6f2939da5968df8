#include "codec/node.h"

#include <charconv>

namespace podlimits::codec {

Node Node::String(std::string s) {
  Node n;
  n.kind = Kind::kString;
  n.scalar = std::move(s);
  return n;
}

Node Node::Bool(bool b) {
  Node n;
  n.kind = Kind::kBool;
  n.scalar = b ? "true" : "false";
  return n;
}

Node Node::Int(std::int64_t v) {
  Node n;
  n.kind = Kind::kNumber;
  n.scalar = std::to_string(v);
  return n;
}

Node Node::Object() {
  Node n;
  n.kind = Kind::kObject;
  return n;
}

Node Node::Array() {
  Node n;
  n.kind = Kind::kArray;
  return n;
}

const Node* Node::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& m : members) {
    if (SameKey(m.key, key)) return &m.value;
  }
  return nullptr;
}

Node* Node::Find(std::string_view key) {
  return const_cast<Node*>(static_cast<const Node*>(this)->Find(key));
}

const Node* Node::FindPath(std::initializer_list<std::string_view> keys) const {
  const Node* n = this;
  for (auto k : keys) {
    n = n->Find(k);
    if (!n) return nullptr;
  }
  return n;
}

Node& Node::Ensure(std::string_view key, Kind k) {
  if (kind == Kind::kNull) kind = Kind::kObject;
  if (Node* existing = Find(key)) {
    if (existing->kind == Kind::kNull) existing->kind = k;
    return *existing;
  }
  Node child;
  child.kind = k;
  members.push_back(Member{std::string(key), std::move(child)});
  return members.back().value;
}

Node& Node::Set(std::string_view key, Node value) {
  if (kind == Kind::kNull) kind = Kind::kObject;
  if (Node* existing = Find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  members.push_back(Member{std::string(key), std::move(value)});
  return members.back().value;
}

bool Node::Erase(std::string_view key) {
  for (auto it = members.begin(); it != members.end(); ++it) {
    if (SameKey(it->key, key)) {
      members.erase(it);
      return true;
    }
  }
  return false;
}

std::optional<std::int64_t> Node::AsInt() const {
  if (kind != Kind::kNumber) return std::nullopt;
  std::int64_t v = 0;
  const char* end = scalar.data() + scalar.size();
  auto [p, ec] = std::from_chars(scalar.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

bool Node::operator==(const Node& other) const {
  return kind == other.kind && scalar == other.scalar && items == other.items &&
         members == other.members;
}

std::string_view GoJsonKindName(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kNull:
      return "null";
    case Node::Kind::kBool:
      return "bool";
    case Node::Kind::kNumber:
      return "number";
    case Node::Kind::kString:
      return "string";
    case Node::Kind::kArray:
      return "array";
    case Node::Kind::kObject:
      return "object";
  }
  return "";
}

}  // namespace podlimits::codec
