#include "apiserver/patch.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "codec/json_codec.h"

namespace podlimits::apiserver {

using codec::Node;

namespace {

// ---- RFC 7386 ----

Node MergePatch(Node target, const Node& patch) {
  if (!patch.IsObject()) return patch;
  if (!target.IsObject()) target = Node::Object();
  for (const auto& m : patch.members) {
    if (m.value.IsNull()) {
      target.Erase(m.key);
    } else if (Node* existing = target.Find(m.key)) {
      Node merged = MergePatch(std::move(*existing), m.value);
      target.Set(m.key, std::move(merged));
    } else {
      target.Set(m.key, MergePatch(Node::Null(), m.value));
    }
  }
  return target;
}

// ---- RFC 6902 ----

// "/a/b~1c/0" -> {"a", "b/c", "0"}; nullopt when not a JSON pointer.
std::optional<std::vector<std::string>> ParsePointer(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  if (pointer[0] != '/') return std::nullopt;
  pointer.remove_prefix(1);
  for (;;) {
    const std::size_t slash = pointer.find('/');
    std::string token(pointer.substr(0, slash));
    std::string decoded;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        decoded += token[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        decoded += token[i];
      }
    }
    out.push_back(std::move(decoded));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return out;
}

std::optional<std::size_t> Index(const std::string& token, std::size_t size, bool allow_end) {
  if (allow_end && token == "-") return size;
  std::size_t i = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), i);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty() ||
      (token.size() > 1 && token[0] == '0')) {
    return std::nullopt;
  }
  if (i > size || (!allow_end && i == size)) return std::nullopt;
  return i;
}

// The node a pointer names (its parent when `parent`), or null.
Node* Walk(Node& root, const std::vector<std::string>& path, std::size_t depth) {
  Node* at = &root;
  for (std::size_t i = 0; i < depth; ++i) {
    if (at->IsObject()) {
      at = at->Find(path[i]);
    } else if (at->IsArray()) {
      auto idx = Index(path[i], at->items.size(), false);
      at = idx ? &at->items[*idx] : nullptr;
    } else {
      at = nullptr;
    }
    if (at == nullptr) return nullptr;
  }
  return at;
}

Result<Node> Get(Node& root, const std::vector<std::string>& path, std::string_view pointer) {
  Node* at = Walk(root, path, path.size());
  if (at == nullptr) return Failure(fmt::format("doc is missing path: \"{}\"", pointer));
  return *at;
}

Result<void> Remove(Node& root, const std::vector<std::string>& path, std::string_view pointer) {
  if (path.empty()) return Failure("unable to remove the whole document");
  Node* parent = Walk(root, path, path.size() - 1);
  const std::string& last = path.back();
  if (parent && parent->IsObject() && parent->Find(last)) {
    parent->Erase(last);
    return {};
  }
  if (parent && parent->IsArray()) {
    if (auto i = Index(last, parent->items.size(), false)) {
      parent->items.erase(parent->items.begin() + static_cast<std::ptrdiff_t>(*i));
      return {};
    }
  }
  return Failure(fmt::format("unable to remove nonexistent key: {}: missing value",
                             pointer.substr(pointer.rfind('/') + 1)));
}

Result<void> Add(Node& root, const std::vector<std::string>& path, Node value,
                 std::string_view pointer, bool replace) {
  if (path.empty()) {
    root = std::move(value);
    return {};
  }
  Node* parent = Walk(root, path, path.size() - 1);
  const std::string& last = path.back();
  if (parent && parent->IsObject()) {
    if (replace && !parent->Find(last)) {
      return Failure(
          fmt::format("replace operation does not apply: doc is missing key: {}", pointer));
    }
    parent->Set(last, std::move(value));
    return {};
  }
  if (parent && parent->IsArray()) {
    auto i = Index(last, parent->items.size(), !replace);
    if (i) {
      if (replace) {
        parent->items[*i] = std::move(value);
      } else {
        parent->items.insert(parent->items.begin() + static_cast<std::ptrdiff_t>(*i),
                             std::move(value));
      }
      return {};
    }
  }
  return Failure(
      fmt::format("{} operation does not apply: doc is missing path: \"{}\": "
                  "missing value",
                  replace ? "replace" : "add", pointer));
}

Result<Node> JsonPatch(Node doc, const Node& ops) {
  if (!ops.IsArray()) {
    return Failure("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  for (const Node& op : ops.items) {
    auto str = [&](const char* key) -> std::optional<std::string> {
      const Node* n = op.Find(key);
      if (n == nullptr || !n->IsString()) return std::nullopt;
      return n->scalar;
    };
    const std::string kind = str("op").value_or("");
    const std::string pointer = str("path").value_or("");
    auto path = ParsePointer(pointer);
    if (!str("path") || !path) {
      return Failure(
          fmt::format("{} operation does not apply: doc is missing path: \"{}\"", kind, pointer));
    }
    if (kind == "add" || kind == "replace" || kind == "test") {
      const Node* value = op.Find("value");
      if (value == nullptr) return Failure(fmt::format("{} operation has no value", kind));
      if (kind == "test") {
        auto current = Get(doc, *path, pointer);
        if (!current || codec::EncodeJson(*current, 0) != codec::EncodeJson(*value, 0)) {
          return Failure(fmt::format("testing value {} failed: test failed", pointer));
        }
        continue;
      }
      if (auto r = Add(doc, *path, *value, pointer, kind == "replace"); !r) {
        return std::unexpected(r.error());
      }
    } else if (kind == "remove") {
      if (auto r = Remove(doc, *path, pointer); !r) return std::unexpected(r.error());
    } else if (kind == "move" || kind == "copy") {
      const std::string from_pointer = str("from").value_or("");
      auto from = ParsePointer(from_pointer);
      if (!from) return Failure(fmt::format("{} operation has no from", kind));
      auto value = Get(doc, *from, from_pointer);
      if (!value) return std::unexpected(value.error());
      if (kind == "move") {
        if (auto r = Remove(doc, *from, from_pointer); !r) return std::unexpected(r.error());
      }
      if (auto r = Add(doc, *path, std::move(*value), pointer, false); !r) {
        return std::unexpected(r.error());
      }
    } else {
      return Failure(fmt::format("Unexpected kind: {}", kind));
    }
  }
  return doc;
}

// ---- strategic merge patch ----

// The patch merge keys of core/v1 (the +patchMergeKey tags), by list field name. Fields not
// here are replaced as a whole (atomic lists), as for types without a strategy.
const std::map<std::string_view, std::string_view>& MergeKeys() {
  static const std::map<std::string_view, std::string_view> keys = {
      {"containers", "name"},      {"initContainers", "name"}, {"ephemeralContainers", "name"},
      {"volumes", "name"},         {"imagePullSecrets", "name"}, {"env", "name"},
      {"ports", "containerPort"},  {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"}, {"hostAliases", "ip"},
      {"ownerReferences", "uid"},  {"conditions", "type"},       {"resourceClaims", "name"},
      {"topologySpreadConstraints", "topologyKey"},             {"schedulingGates", "name"},
      {"containerStatuses", "name"}, {"initContainerStatuses", "name"}, {"addresses", "type"},
  };
  return keys;
}

// Primitive lists merged as sets (patchStrategy:"merge" without a key).
bool IsMergedPrimitiveList(std::string_view field) { return field == "finalizers"; }

std::string Key(const Node& n) { return codec::EncodeJson(n, 0); }

Result<Node> Strategic(Node target, const Node& patch);

Result<Node> MergeList(std::string_view field, Node target, const Node& patch) {
  if (!target.IsArray()) target = Node::Array();
  auto keys = MergeKeys().find(field);
  if (keys == MergeKeys().end()) {
    if (IsMergedPrimitiveList(field)) {
      std::set<std::string> have;
      for (const auto& i : target.items) have.insert(Key(i));
      for (const auto& i : patch.items) {
        if (have.insert(Key(i)).second) target.items.push_back(i);
      }
      return target;
    }
    // An atomic list, or one whose elements carry only $patch: replace it.
    Node out = Node::Array();
    for (const auto& i : patch.items) {
      if (i.IsObject() && i.Find("$patch")) continue;
      out.items.push_back(i);
    }
    return out;
  }
  const std::string key(keys->second);
  for (const Node& element : patch.items) {
    if (!element.IsObject()) {
      return Failure(fmt::format("unable to find api field in struct for the list {}", field));
    }
    const Node* directive = element.Find("$patch");
    if (directive && directive->scalar == "replace") {
      Node out = Node::Array();
      for (const auto& i : patch.items) {
        if (!(i.IsObject() && i.Find("$patch"))) out.items.push_back(i);
      }
      return out;
    }
    const Node* value = element.Find(key);
    if (value == nullptr) {
      return Failure(fmt::format("map: {} does not contain declared merge key: {}",
                                 codec::EncodeJson(element, 0), key));
    }
    auto it = std::find_if(target.items.begin(), target.items.end(), [&](const Node& t) {
      const Node* k = t.Find(key);
      return k != nullptr && Key(*k) == Key(*value);
    });
    if (directive && directive->scalar == "delete") {
      if (it != target.items.end()) target.items.erase(it);
      continue;
    }
    if (it == target.items.end()) {
      auto added = Strategic(Node::Object(), element);
      if (!added) return added;
      target.items.push_back(std::move(*added));
    } else {
      auto merged = Strategic(std::move(*it), element);
      if (!merged) return merged;
      *it = std::move(*merged);
    }
  }
  return target;
}

Result<Node> Strategic(Node target, const Node& patch) {
  if (!patch.IsObject()) return patch;
  if (const Node* directive = patch.Find("$patch")) {
    if (directive->scalar == "replace") {
      Node out = patch;
      out.Erase("$patch");
      return out;
    }
    if (directive->scalar == "delete") return Node::Null();
    if (directive->scalar != "merge") {
      return Failure(fmt::format("Unknown patch type: {} in map: {}", directive->scalar,
                                 codec::EncodeJson(patch, 0)));
    }
  }
  if (!target.IsObject()) target = Node::Object();
  if (const Node* retain = patch.Find("$retainKeys"); retain && retain->IsArray()) {
    std::set<std::string> keep;
    for (const auto& k : retain->items) keep.insert(k.scalar);
    std::vector<std::string> drop;
    for (const auto& m : target.members) {
      if (!keep.contains(m.key)) drop.push_back(m.key);
    }
    for (const auto& k : drop) target.Erase(k);
  }
  for (const auto& m : patch.members) {
    constexpr std::string_view kDeleteFrom = "$deleteFromPrimitiveList/";
    if (m.key.starts_with(kDeleteFrom)) {
      const std::string field = m.key.substr(kDeleteFrom.size());
      if (Node* list = target.Find(field); list && list->IsArray() && m.value.IsArray()) {
        std::set<std::string> gone;
        for (const auto& v : m.value.items) gone.insert(Key(v));
        std::erase_if(list->items, [&](const Node& v) { return gone.contains(Key(v)); });
      }
      continue;
    }
    if (m.key.starts_with("$")) continue;  // $setElementOrder/..., $patch, $retainKeys
    if (m.value.IsNull()) {
      target.Erase(m.key);
      continue;
    }
    Node* existing = target.Find(m.key);
    Result<Node> merged;
    if (m.value.IsArray()) {
      merged = MergeList(m.key, existing ? std::move(*existing) : Node::Array(), m.value);
    } else if (m.value.IsObject()) {
      merged = Strategic(existing ? std::move(*existing) : Node::Object(), m.value);
    } else {
      merged = m.value;
    }
    if (!merged) return merged;
    if (merged->IsNull()) {
      target.Erase(m.key);
    } else {
      target.Set(m.key, std::move(*merged));
    }
  }
  return target;
}

}  // namespace

std::optional<PatchType> PatchTypeOf(std::string_view content_type) {
  const std::string_view base = content_type.substr(0, content_type.find(';'));
  if (base == "application/merge-patch+json") return PatchType::kMerge;
  if (base == "application/json-patch+json") return PatchType::kJson;
  if (base == "application/strategic-merge-patch+json") return PatchType::kStrategic;
  return std::nullopt;
}

Result<Node> ApplyPatch(const Node& object, PatchType type, std::string_view patch) {
  auto parsed = codec::ParseJsonStream(patch);
  if (!parsed || parsed->size() != 1) {
    return Failure("error decoding patch: invalid JSON");
  }
  const Node& body = (*parsed)[0];
  switch (type) {
    case PatchType::kMerge:
      if (!body.IsObject()) return Failure("error decoding patch: not a JSON object");
      return MergePatch(object, body);
    case PatchType::kJson:
      return JsonPatch(object, body);
    case PatchType::kStrategic: {
      if (!body.IsObject()) return Failure("error decoding patch: not a JSON object");
      auto out = Strategic(object, body);
      if (!out) return std::unexpected(out.error());
      return std::move(*out);
    }
  }
  return Failure("unknown patch type");
}

}  // namespace podlimits::apiserver
