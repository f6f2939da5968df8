#include "fieldmanager/field_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "codec/json_codec.h"

namespace podlimits::fieldmanager {

using codec::Node;

namespace {

int KindRank(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kNull: return 0;
    case Node::Kind::kBool: return 1;
    case Node::Kind::kNumber: return 2;
    case Node::Kind::kString: return 3;
    case Node::Kind::kArray: return 4;
    case Node::Kind::kObject: return 5;
  }
  return 6;
}

int Sign(auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); }

// value.Compare's order where it matters for keys: numbers by value, strings by bytes, other
// kinds by their JSON text.
int CompareValues(const Node& a, const Node& b) {
  if (int r = Sign(KindRank(a), KindRank(b))) return r;
  if (a.kind == Node::Kind::kNumber) {
    double x = 0, y = 0;
    std::from_chars(a.scalar.data(), a.scalar.data() + a.scalar.size(), x);
    std::from_chars(b.scalar.data(), b.scalar.data() + b.scalar.size(), y);
    return Sign(x, y);
  }
  if (a.kind == Node::Kind::kString || a.kind == Node::Kind::kBool) {
    return Sign(a.scalar, b.scalar);
  }
  return Sign(codec::EncodeJsonSorted(a), codec::EncodeJsonSorted(b));
}

void InsertInto(std::vector<FieldSet::Entry>& entries, const Path& path, std::size_t at) {
  const PathElement& pe = path[at];
  auto it = std::lower_bound(entries.begin(), entries.end(), pe,
                             [](const FieldSet::Entry& e, const PathElement& p) {
                               return e.element.Compare(p) < 0;
                             });
  if (it == entries.end() || !(it->element == pe)) it = entries.insert(it, FieldSet::Entry{pe, false, {}});
  if (at + 1 == path.size()) {
    it->member = true;
  } else {
    InsertInto(it->children.mutable_entries(), path, at + 1);
  }
}

const FieldSet::Entry* FindEntry(const std::vector<FieldSet::Entry>& entries, const PathElement& pe) {
  auto it = std::lower_bound(entries.begin(), entries.end(), pe,
                             [](const FieldSet::Entry& e, const PathElement& p) {
                               return e.element.Compare(p) < 0;
                             });
  return it != entries.end() && it->element == pe ? &*it : nullptr;
}

enum class Op { kUnion, kDifference, kIntersection };

// The merge of two sorted entry lists under `op`.
FieldSet Combine(const FieldSet& a, const FieldSet& b, Op op) {
  FieldSet out;
  auto& o = out.mutable_entries();
  const auto& x = a.entries();
  const auto& y = b.entries();
  std::size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    int c = i == x.size() ? 1 : j == y.size() ? -1 : x[i].element.Compare(y[j].element);
    if (c < 0) {
      if (op != Op::kIntersection) o.push_back(x[i]);
      ++i;
    } else if (c > 0) {
      if (op == Op::kUnion) o.push_back(y[j]);
      ++j;
    } else {
      FieldSet::Entry e{x[i].element, false, Combine(x[i].children, y[j].children, op)};
      switch (op) {
        case Op::kUnion: e.member = x[i].member || y[j].member; break;
        case Op::kDifference: e.member = x[i].member && !y[j].member; break;
        case Op::kIntersection: e.member = x[i].member && y[j].member; break;
      }
      if (e.member || !e.children.Empty()) o.push_back(std::move(e));
      ++i;
      ++j;
    }
  }
  return out;
}

void CollectMembers(const FieldSet& set, Path& prefix, std::vector<Path>& out) {
  for (const auto& e : set.entries()) {
    prefix.push_back(e.element);
    if (e.member) out.push_back(prefix);
    CollectMembers(e.children, prefix, out);
    prefix.pop_back();
  }
}

Node Emit(const FieldSet& set, bool self) {
  Node out = Node::Object();
  if (self) out.members.push_back({".", Node::Object()});
  for (const auto& e : set.entries()) {
    out.members.push_back({e.element.Serialize(), Emit(e.children, e.member && !e.children.Empty())});
  }
  return out;
}

Result<void> Read(const Node& fields, FieldSet& into) {
  if (!fields.IsObject()) return Failure("expected a JSON object");
  for (const auto& m : fields.members) {
    if (m.key == ".") continue;
    auto pe = ParsePathElement(m.key);
    if (!pe) {
      if (pe.error().Is("unknown")) continue;  // a future kind of element: dropped, as upstream
      return std::unexpected(pe.error());
    }
    FieldSet::Entry e{std::move(*pe), false, {}};
    if (auto r = Read(m.value, e.children); !r) return r;
    // `{}` and {".":{}, ...} are members; {"f:x":{}} alone is not.
    e.member = e.children.Empty() || m.value.Find(".") != nullptr;
    auto& entries = into.mutable_entries();
    auto it = std::lower_bound(entries.begin(), entries.end(), e.element,
                               [](const FieldSet::Entry& x, const PathElement& p) {
                                 return x.element.Compare(p) < 0;
                               });
    if (it != entries.end() && it->element == e.element) {
      it->member = it->member || e.member;
      it->children = it->children.Union(e.children);
    } else {
      entries.insert(it, std::move(e));
    }
  }
  return {};
}

}  // namespace

PathElement PathElement::Field(std::string name) {
  PathElement pe;
  pe.kind = Kind::kField;
  pe.field = std::move(name);
  return pe;
}

PathElement PathElement::Key(std::vector<std::pair<std::string, Node>> fields) {
  PathElement pe;
  pe.kind = Kind::kKey;
  std::sort(fields.begin(), fields.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  pe.key = std::move(fields);
  return pe;
}

PathElement PathElement::Value(Node value) {
  PathElement pe;
  pe.kind = Kind::kValue;
  pe.value = std::move(value);
  return pe;
}

PathElement PathElement::Index(std::int64_t i) {
  PathElement pe;
  pe.kind = Kind::kIndex;
  pe.index = i;
  return pe;
}

int PathElement::Compare(const PathElement& other) const {
  if (int r = Sign(static_cast<int>(kind), static_cast<int>(other.kind))) return r;
  switch (kind) {
    case Kind::kField:
      return field.compare(other.field) < 0 ? -1 : (field == other.field ? 0 : 1);
    case Kind::kKey: {
      const std::size_t n = std::min(key.size(), other.key.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (int r = key[i].first.compare(other.key[i].first)) return r < 0 ? -1 : 1;
        if (int r = CompareValues(key[i].second, other.key[i].second)) return r;
      }
      return Sign(key.size(), other.key.size());
    }
    case Kind::kValue:
      return CompareValues(value, other.value);
    case Kind::kIndex:
      return Sign(index, other.index);
  }
  return 0;
}

std::string PathElement::String() const {
  switch (kind) {
    case Kind::kField:
      return "." + field;
    case Kind::kKey: {
      std::string s = "[";
      for (std::size_t i = 0; i < key.size(); ++i) {
        if (i > 0) s += ',';
        s += key[i].first + "=" + codec::EncodeJson(key[i].second, 0);
      }
      return s + "]";
    }
    case Kind::kValue:
      return "[=" + codec::EncodeJson(value, 0) + "]";
    case Kind::kIndex:
      return fmt::format("[{}]", index);
  }
  return "{{invalid path element}}";
}

std::string PathElement::Serialize() const {
  switch (kind) {
    case Kind::kField:
      return "f:" + field;
    case Kind::kKey: {
      Node object = Node::Object();
      for (const auto& [name, v] : key) object.members.push_back({name, v});
      return "k:" + codec::EncodeJson(object, 0);
    }
    case Kind::kValue:
      return "v:" + codec::EncodeJson(value, 0);
    case Kind::kIndex:
      return fmt::format("i:{}", index);
  }
  return "";
}

std::string PathString(const Path& path) {
  std::string s;
  for (const auto& pe : path) s += pe.String();
  return s;
}

Result<PathElement> ParsePathElement(std::string_view s) {
  if (s.size() < 2) return Failure("key must be 2 characters long:");
  if (s[1] != ':') return Failure(fmt::format("missing colon: {}", s));
  const std::string_view rest = s.substr(2);
  switch (s[0]) {
    case 'f':
      return PathElement::Field(std::string(rest));
    case 'v':
    case 'k': {
      auto parsed = codec::ParseJsonStream(rest);
      if (!parsed || parsed->size() != 1) {
        return Failure(fmt::format("parsing key as path element: {}", s));
      }
      if (s[0] == 'v') return PathElement::Value(std::move((*parsed)[0]));
      if (!(*parsed)[0].IsObject()) return Failure(fmt::format("parsing key as path element: {}", s));
      std::vector<std::pair<std::string, Node>> fields;
      for (auto& m : (*parsed)[0].members) fields.emplace_back(m.key, std::move(m.value));
      return PathElement::Key(std::move(fields));
    }
    case 'i': {
      std::int64_t i = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), i);
      if (ec != std::errc() || end != rest.data() + rest.size()) {
        return Failure(fmt::format("strconv.Atoi: parsing {}: invalid syntax",
                                   codec::EncodeJson(Node::String(std::string(rest)), 0)));
      }
      return PathElement::Index(i);
    }
    default:
      return std::unexpected(Error{.detail = "unknown path element type"}.Because("unknown"));
  }
}

void FieldSet::Insert(const Path& path) {
  if (!path.empty()) InsertInto(entries_, path, 0);
}

bool FieldSet::Has(const Path& path) const {
  const FieldSet* at = this;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const Entry* e = FindEntry(at->entries_, path[i]);
    if (e == nullptr) return false;
    if (i + 1 == path.size()) return e->member;
    at = &e->children;
  }
  return false;
}

bool FieldSet::HasPrefixOf(const Path& path) const {
  const FieldSet* at = this;
  for (const auto& pe : path) {
    const Entry* e = FindEntry(at->entries_, pe);
    if (e == nullptr) return false;
    if (e->member) return true;
    at = &e->children;
  }
  return false;
}

const FieldSet* FieldSet::Child(const PathElement& element) const {
  const Entry* e = FindEntry(entries_, element);
  return e ? &e->children : nullptr;
}

FieldSet FieldSet::Union(const FieldSet& other) const { return Combine(*this, other, Op::kUnion); }
FieldSet FieldSet::Difference(const FieldSet& other) const {
  return Combine(*this, other, Op::kDifference);
}
FieldSet FieldSet::Intersection(const FieldSet& other) const {
  return Combine(*this, other, Op::kIntersection);
}

FieldSet FieldSet::WithoutPrefixes(const FieldSet& prefixes) const {
  FieldSet out;
  for (const auto& e : entries_) {
    const Entry* p = FindEntry(prefixes.entries_, e.element);
    if (p != nullptr && p->member) continue;
    Entry kept{e.element, e.member, p ? e.children.WithoutPrefixes(p->children) : e.children};
    if (kept.member || !kept.children.Empty()) out.entries_.push_back(std::move(kept));
  }
  return out;
}

std::vector<Path> FieldSet::Members() const {
  std::vector<Path> out;
  Path prefix;
  CollectMembers(*this, prefix, out);
  return out;
}

Node FieldSet::ToFieldsV1() const { return Emit(*this, false); }

Result<FieldSet> FieldSet::FromFieldsV1(const Node& fields) {
  FieldSet set;
  if (auto r = Read(fields, set); !r) return std::unexpected(r.error());
  return set;
}

bool FieldSet::operator==(const FieldSet& other) const {
  if (entries_.size() != other.entries_.size()) return false;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& a = entries_[i];
    const Entry& b = other.entries_[i];
    if (!(a.element == b.element) || a.member != b.member || !(a.children == b.children)) return false;
  }
  return true;
}

}  // namespace podlimits::fieldmanager
