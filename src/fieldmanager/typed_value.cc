#include "fieldmanager/typed_value.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "codec/json_codec.h"

namespace podlimits::fieldmanager {

using codec::Node;
using Shape = TypeRef::Shape;

namespace {

// How a walker treats a value of a type.
enum class Walk { kLeaf, kFields, kItems };

Walk HowToWalk(const TypeRef& type, const Node* a, const Node* b) {
  auto any = [&](bool (Node::*is)() const) { return (a && (a->*is)()) || (b && (b->*is)()); };
  switch (type.shape) {
    case Shape::kStruct:
    case Shape::kMap:
      return !type.atomic && any(&Node::IsObject) ? Walk::kFields : Walk::kLeaf;
    case Shape::kList:
      return type.associative && any(&Node::IsArray) ? Walk::kItems : Walk::kLeaf;
    case Shape::kUnknown:  // deduced: maps by key, lists as one value
      return any(&Node::IsObject) ? Walk::kFields : Walk::kLeaf;
    case Shape::kScalar:
      return Walk::kLeaf;
  }
  return Walk::kLeaf;
}

TypeRef ChildType(const TypeRef& type, std::string_view key) {
  if (type.shape == Shape::kStruct) return type.Field(key);
  if (type.shape == Shape::kMap) return type.Element();
  return TypeRef{.schema = type.schema};
}

}  // namespace

bool SameValue(const Node& a, const Node& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Node::Kind::kArray:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!SameValue(a.items[i], b.items[i])) return false;
      }
      return true;
    case Node::Kind::kObject:
      if (a.members.size() != b.members.size()) return false;
      for (const auto& m : a.members) {
        const Node* other = b.Find(m.key);
        if (other == nullptr || !SameValue(m.value, *other)) return false;
      }
      return true;
    case Node::Kind::kNumber: {
      if (a.scalar == b.scalar) return true;
      double x = 0, y = 0;
      std::from_chars(a.scalar.data(), a.scalar.data() + a.scalar.size(), x);
      std::from_chars(b.scalar.data(), b.scalar.data() + b.scalar.size(), y);
      return x == y;  // 1 and 1.0
    }
    default:
      return a.scalar == b.scalar;
  }
}

namespace {

bool Equal(const Node& a, const Node& b) { return SameValue(a, b); }

bool EmptyContainer(const Node* n) {
  return n == nullptr || n->IsNull() || (n->IsObject() && n->members.empty()) ||
         (n->IsArray() && n->items.empty());
}

// The items of a list by path element, first occurrence of each, in order.
struct Items {
  std::vector<PathElement> elements;
  std::vector<const Node*> values;
  std::vector<bool> duplicated;

  std::optional<std::size_t> Find(const PathElement& pe) const {
    for (std::size_t i = 0; i < elements.size(); ++i) {
      if (elements[i] == pe) return i;
    }
    return std::nullopt;
  }
};

Result<Items> IndexItems(const TypeRef& list, const Node* value) {
  Items out;
  if (value == nullptr || !value->IsArray()) return out;
  for (std::size_t i = 0; i < value->items.size(); ++i) {
    auto pe = ListItemElement(list, value->items[i]);
    if (!pe) return std::unexpected(pe.error().Wrap(fmt::format("element {}", i)));
    if (auto at = out.Find(*pe)) {
      out.duplicated[*at] = true;
      continue;
    }
    out.elements.push_back(std::move(*pe));
    out.values.push_back(&value->items[i]);
    out.duplicated.push_back(false);
  }
  return out;
}

// ---- ToFieldSet ----

// The members below `value` go into `below` (built level by level, not path by path from the
// root); true when the value itself is a member (a leaf).
Result<bool> CollectFields(const TypeRef& type, const Node& value, FieldSet& below) {
  auto& entries = below.mutable_entries();
  switch (HowToWalk(type, &value, nullptr)) {
    case Walk::kLeaf:
      // A struct or map that is null has nothing below it; its parent records it.
      return !((type.shape == Shape::kStruct || type.shape == Shape::kMap ||
                type.shape == Shape::kList) && !type.atomic && value.IsNull());
    case Walk::kFields:
      for (const auto& m : value.members) {
        FieldSet::Entry e{PathElement::Field(m.key), false, {}};
        auto leaf = CollectFields(ChildType(type, m.key), m.value, e.children);
        if (!leaf) return leaf;
        e.member = *leaf || (EmptyContainer(&m.value) && !m.value.IsArray()) || !type.Declares(m.key);
        if (e.member || !e.children.Empty()) entries.push_back(std::move(e));
      }
      break;
    case Walk::kItems: {
      auto items = IndexItems(type, &value);
      if (!items) return std::unexpected(items.error());
      const TypeRef element = type.Element();
      for (std::size_t i = 0; i < items->elements.size(); ++i) {
        FieldSet::Entry e{items->elements[i], true, {}};
        if (!items->duplicated[i]) {
          if (auto r = CollectFields(element, *items->values[i], e.children); !r) return r;
        }
        entries.push_back(std::move(e));
      }
      break;
    }
  }
  std::sort(entries.begin(), entries.end(), [](const FieldSet::Entry& a, const FieldSet::Entry& b) {
    return a.element.Compare(b.element) < 0;
  });
  return false;
}

// ---- Compare ----

struct Comparer {
  Comparison& out;
  Path path;

  Result<void> Leaf(const Node* lhs, const Node* rhs) {
    if (lhs == nullptr) {
      out.added.Insert(path);
    } else if (rhs == nullptr) {
      out.removed.Insert(path);
    } else if (!Equal(*lhs, *rhs)) {
      out.modified.Insert(path);
    }
    return {};
  }

  Result<void> Run(const TypeRef& type, const Node* lhs, const Node* rhs) {
    const Walk how = HowToWalk(type, lhs, rhs);
    if (how == Walk::kLeaf) return Leaf(lhs, rhs);
    if (how == Walk::kFields) {
      const Node* l = lhs && lhs->IsObject() ? lhs : nullptr;
      const Node* r = rhs && rhs->IsObject() ? rhs : nullptr;
      if (EmptyContainer(l) && EmptyContainer(r)) return Leaf(lhs, rhs);
      if (l) {
        for (const auto& m : l->members) {
          if (auto e = Child(ChildType(type, m.key), PathElement::Field(m.key), &m.value,
                             r ? r->Find(m.key) : nullptr);
              !e) {
            return e;
          }
        }
      }
      if (r) {
        for (const auto& m : r->members) {
          if (l && l->Find(m.key)) continue;
          if (auto e = Child(ChildType(type, m.key), PathElement::Field(m.key), nullptr, &m.value);
              !e) {
            return e;
          }
        }
      }
    } else {
      const Node* l = lhs && lhs->IsArray() ? lhs : nullptr;
      const Node* r = rhs && rhs->IsArray() ? rhs : nullptr;
      if (EmptyContainer(l) && EmptyContainer(r)) return Leaf(lhs, rhs);
      auto li = IndexItems(type, l);
      if (!li) return std::unexpected(li.error());
      auto ri = IndexItems(type, r);
      if (!ri) return std::unexpected(ri.error());
      const TypeRef element = type.Element();
      for (std::size_t i = 0; i < li->elements.size(); ++i) {
        auto at = ri->Find(li->elements[i]);
        if (auto e = Child(element, li->elements[i], li->values[i], at ? ri->values[*at] : nullptr); !e) {
          return e;
        }
      }
      for (std::size_t i = 0; i < ri->elements.size(); ++i) {
        if (li->Find(ri->elements[i])) continue;
        if (auto e = Child(element, ri->elements[i], nullptr, ri->values[i]); !e) return e;
      }
    }
    // A granular value that appears or goes is added or removed itself too.
    if (lhs == nullptr) {
      out.added.Insert(path);
    } else if (rhs == nullptr) {
      out.removed.Insert(path);
    }
    return {};
  }

  Result<void> Child(const TypeRef& type, PathElement pe, const Node* lhs, const Node* rhs) {
    path.push_back(std::move(pe));
    auto r = Run(type, lhs, rhs);
    path.pop_back();
    return r;
  }
};

// ---- Merge ----

Result<std::optional<Node>> MergeValues(const TypeRef& type, const Node* lhs, const Node* rhs);

Result<std::optional<Node>> MergeLists(const TypeRef& type, const Node* lhs, const Node* rhs) {
  auto li = IndexItems(type, lhs && lhs->IsArray() ? lhs : nullptr);
  if (!li) return std::unexpected(li.error());
  auto ri = IndexItems(type, rhs && rhs->IsArray() ? rhs : nullptr);
  if (!ri) return std::unexpected(ri.error());
  const TypeRef element = type.Element();
  Node out = Node::Array();
  auto add = [&](const PathElement& pe) -> Result<void> {
    auto l = li->Find(pe);
    auto r = ri->Find(pe);
    auto merged = MergeValues(element, l ? li->values[*l] : nullptr, r ? ri->values[*r] : nullptr);
    if (!merged) return std::unexpected(merged.error());
    if (*merged) out.items.push_back(std::move(**merged));
    return {};
  };
  // structured-merge-diff's order: rhs's items in rhs's order, lhs-only items where they were.
  std::vector<std::size_t> shared;  // indexes into ri of items lhs has too, in rhs order
  for (std::size_t i = 0; i < ri->elements.size(); ++i) {
    if (li->Find(ri->elements[i])) shared.push_back(i);
  }
  std::size_t next_shared = 0;
  auto is_next_shared = [&](const PathElement& pe) {
    return next_shared < shared.size() && ri->elements[shared[next_shared]] == pe;
  };
  std::vector<bool> merged_rhs(ri->elements.size(), false);
  const std::size_t ln = li->elements.size(), rn = ri->elements.size();
  for (std::size_t l = 0, r = 0; l < ln || r < rn;) {
    if (l < ln && r < rn) {
      const PathElement& pe = li->elements[l];
      if (pe == ri->elements[r]) {
        merged_rhs[r] = true;
        if (auto e = add(pe); !e) return std::unexpected(e.error());
        ++l;
        ++r;
        ++next_shared;
        continue;
      }
      if (ri->Find(pe) && next_shared < shared.size() && !is_next_shared(pe)) {
        ++l;
        continue;
      }
    }
    if (l < ln) {
      const PathElement& pe = li->elements[l];
      auto in_rhs = ri->Find(pe);
      if (!in_rhs) {
        if (auto e = add(pe); !e) return std::unexpected(e.error());
        ++l;
        continue;
      }
      if (merged_rhs[*in_rhs]) ++l;
    }
    if (r < rn) {
      const PathElement& pe = ri->elements[r];
      merged_rhs[r] = true;
      if (auto e = add(pe); !e) return std::unexpected(e.error());
      ++r;
      if (is_next_shared(pe)) ++next_shared;
    }
  }
  if (out.items.empty()) return std::optional<Node>(rhs ? *rhs : *lhs);
  return std::optional<Node>(std::move(out));
}

Result<std::optional<Node>> MergeValues(const TypeRef& type, const Node* lhs, const Node* rhs) {
  if (lhs == nullptr && rhs == nullptr) return std::optional<Node>();
  const Walk how = HowToWalk(type, lhs, rhs);
  auto leaf = [&] { return std::optional<Node>(rhs ? *rhs : *lhs); };
  if (how == Walk::kLeaf) return leaf();
  if (how == Walk::kItems) {
    const Node* l = lhs && lhs->IsArray() ? lhs : nullptr;
    const Node* r = rhs && rhs->IsArray() ? rhs : nullptr;
    if (EmptyContainer(l) && EmptyContainer(r)) return leaf();
    return MergeLists(type, l, r);
  }
  const Node* l = lhs && lhs->IsObject() ? lhs : nullptr;
  const Node* r = rhs && rhs->IsObject() ? rhs : nullptr;
  if (EmptyContainer(l) && EmptyContainer(r)) return leaf();
  Node out = Node::Object();
  auto put = [&](const std::string& key, const Node* a, const Node* b) -> Result<void> {
    auto merged = MergeValues(ChildType(type, key), a, b);
    if (!merged) return std::unexpected(merged.error());
    if (*merged) out.members.push_back({key, std::move(**merged)});
    return {};
  };
  if (l) {
    for (const auto& m : l->members) {
      if (auto e = put(m.key, &m.value, r ? r->Find(m.key) : nullptr); !e) {
        return std::unexpected(e.error());
      }
    }
  }
  if (r) {
    for (const auto& m : r->members) {
      if (l && l->Find(m.key)) continue;
      if (auto e = put(m.key, nullptr, &m.value); !e) return std::unexpected(e.error());
    }
  }
  return std::optional<Node>(std::move(out));
}

// ---- RemoveItems ----

// nullopt: nothing is left of a granular value that had something.
std::optional<Node> Remove(const TypeRef& type, const Node& value, const FieldSet& remove) {
  const Walk how = HowToWalk(type, &value, nullptr);
  if (how == Walk::kLeaf || EmptyContainer(&value)) return value;
  if (how == Walk::kFields) {
    Node out = Node::Object();
    for (const auto& m : value.members) {
      const PathElement pe = PathElement::Field(m.key);
      if (remove.Has({pe})) continue;
      const FieldSet* below = remove.Child(pe);
      if (below == nullptr || below->Empty()) {
        out.members.push_back(m);
        continue;
      }
      const TypeRef child = ChildType(type, m.key);
      if (auto kept = Remove(child, m.value, *below)) {
        out.members.push_back({m.key, std::move(*kept)});
      } else if (child.spec && child.spec->Find("always")) {
        out.members.push_back({m.key, Node::Object()});  // Go writes a struct held by value
      }
    }
    if (out.members.empty()) return std::nullopt;
    return out;
  }
  Node out = Node::Array();
  const TypeRef element = type.Element();
  for (const Node& item : value.items) {
    auto pe = ListItemElement(type, item);
    if (!pe) {
      out.items.push_back(item);
      continue;
    }
    if (remove.Has({*pe})) continue;
    const FieldSet* below = remove.Child(*pe);
    if (below == nullptr || below->Empty()) {
      out.items.push_back(item);
    } else if (auto kept = Remove(element, item, *below)) {
      out.items.push_back(std::move(*kept));
    } else {
      out.items.push_back(Node::Object());
    }
  }
  if (out.items.empty()) return std::nullopt;
  return out;
}

FieldSet EnsureNamed(const TypeRef& type, const FieldSet& set) {
  FieldSet out;
  for (const auto& e : set.entries()) {
    FieldSet::Entry copy{e.element, e.member, {}};
    TypeRef child{.schema = type.schema};
    if (e.element.kind == PathElement::Kind::kField) {
      child = ChildType(type, e.element.field);
      if (type.Declares(e.element.field)) copy.member = true;
    } else if (type.shape == Shape::kList) {
      child = type.Element();
    }
    copy.children = EnsureNamed(child, e.children);
    out.mutable_entries().push_back(std::move(copy));
  }
  return out;
}

Node ZeroOf(const TypeRef& type, int depth) {
  Node out = Node::Object();
  if (type.shape != Shape::kStruct || type.type_fields == nullptr || depth > 8) return out;
  for (const auto& f : type.type_fields->members) {
    const Node& spec = f.value;
    if (spec.Find("always")) {
      out.members.push_back({f.key, ZeroOf(type.Field(f.key), depth + 1)});
      continue;
    }
    // A slice or map without omitempty is written as null (PodSpec's containers); the field
    // schema does not mark those, the OpenAPI definition's "required" does.
    if ((spec.Find("list") || spec.Find("map")) && type.Requires(f.key)) {
      out.members.push_back({f.key, Node::Null()});
      continue;
    }
    if (!spec.Find("required")) continue;
    const std::string scalar = codec::StringOf(spec.Find("type"));
    if (spec.Find("list") || spec.Find("map") || spec.Find("ref") || scalar == "time" ||
        scalar == "any") {
      out.members.push_back({f.key, Node::Null()});
    } else if (scalar == "string") {
      out.members.push_back({f.key, Node::String("")});
    } else if (scalar == "integer" || scalar == "number") {
      out.members.push_back({f.key, Node::Int(0)});
    } else if (scalar == "boolean") {
      out.members.push_back({f.key, Node::Bool(false)});
    }
  }
  return out;
}

}  // namespace

Result<PathElement> ListItemElement(const TypeRef& list, const Node& item) {
  if (list.keys.empty()) {
    if (item.IsObject() || item.IsArray()) {
      return Failure("associative list without keys has an element that's a map type");
    }
    return PathElement::Value(item);
  }
  if (item.IsNull()) return Failure("associative list with keys may not have a null element");
  if (!item.IsObject()) return Failure("associative list with keys may not have non-map elements");
  const TypeRef element = list.Element();
  std::vector<std::pair<std::string, Node>> key;
  for (const std::string& name : list.keys) {
    if (const Node* v = item.Find(name)) {
      key.emplace_back(name, *v);
    } else if (const Node* def = element.FieldDefault(name)) {
      key.emplace_back(name, *def);
    }
  }
  if (key.empty()) {
    std::string names;
    for (const auto& k : list.keys) names += (names.empty() ? "" : " ") + codec::EncodeJson(Node::String(k), 0);
    return Failure(fmt::format("associative list with keys has an element that omits all key "
                               "fields [{}] (and doesn't have default values for any key fields)",
                               names));
  }
  return PathElement::Key(std::move(key));
}

Result<FieldSet> ToFieldSet(const TypeRef& type, const Node& value) {
  FieldSet set;
  if (auto r = CollectFields(type, value, set); !r) return std::unexpected(r.error());
  return set;
}

Result<Comparison> Compare(const TypeRef& type, const Node* lhs, const Node* rhs) {
  Comparison out;
  Comparer walker{out, {}};
  if (auto r = walker.Run(type, lhs, rhs); !r) return std::unexpected(r.error());
  return out;
}

Result<Node> Merge(const TypeRef& type, const Node& lhs, const Node& rhs) {
  auto merged = MergeValues(type, &lhs, &rhs);
  if (!merged) return std::unexpected(merged.error());
  return merged->value_or(Node::Object());
}

Node RemoveItems(const TypeRef& type, const Node& value, const FieldSet& remove) {
  return Remove(type, value, remove).value_or(Node::Object());
}

FieldSet EnsureNamedFieldsAreMembers(const TypeRef& type, const FieldSet& set) {
  return EnsureNamed(type, set);
}

Node ZeroObject(const TypeRef& type) { return ZeroOf(type, 0); }

}  // namespace podlimits::fieldmanager
