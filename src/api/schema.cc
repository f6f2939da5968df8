#include "api/schema.h"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cerrno>
#include <climits>
#include <functional>
#include <stdexcept>

#include "api/schema_tables.h"
#include "base/base64.h"
#include "field/field.h"
#include "resource/quantity.h"

namespace podlimits::api {

void FieldIndex::Build(const std::vector<std::string_view>& names) {
  std::size_t size = 4;
  while (size < names.size() * 2) size *= 2;
  slots_.assign(size, Slot{});
  mask_ = size - 1;
  for (std::size_t position = 0; position < names.size(); ++position) {
    std::string_view name = names[position];
    if (name.empty() || Find(name) != kAbsent) continue;  // the first of a repeated name wins
    std::size_t i = Hash(name) & mask_;
    while (slots_[i].position != kEmpty) i = (i + 1) & mask_;
    slots_[i] = Slot{name, static_cast<std::uint32_t>(position)};
  }
}

namespace {

FieldSpec::Scalar ScalarOf(std::string_view t) {
  if (t == "string") return FieldSpec::Scalar::kString;
  if (t == "integer") return FieldSpec::Scalar::kInteger;
  if (t == "number") return FieldSpec::Scalar::kNumber;
  if (t == "boolean") return FieldSpec::Scalar::kBoolean;
  if (t == "quantity") return FieldSpec::Scalar::kQuantity;
  if (t == "int-or-string") return FieldSpec::Scalar::kIntOrString;
  return FieldSpec::Scalar::kAny;
}

std::string LastComponents(std::string_view id, int n) {
  std::size_t pos = id.size();
  for (int i = 0; i < n; ++i) {
    pos = id.rfind('.', pos - 1);
    if (pos == std::string_view::npos) return std::string(id);
  }
  return std::string(id.substr(pos + 1));
}

}  // namespace

Schema::Schema(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject())
    throw std::runtime_error("embedded schema is not JSON");
  const auto& types = doc["types"];
  for (auto it = types.MemberBegin(); it != types.MemberEnd(); ++it) {
    auto t = std::make_unique<TypeDef>();
    t->id = it->name.GetString();
    t->go_name = LastComponents(t->id, 2);
    t->short_name = LastComponents(t->id, 1);
    types_.emplace(t->id, std::move(t));
  }
  // Second pass: fields, now that every ref can be resolved.
  std::function<void(const rapidjson::Value&, FieldSpec&)> parse_spec =
      [&](const rapidjson::Value& v, FieldSpec& spec) {
        if (v.HasMember("proposed")) spec.proposed = v["proposed"].GetString();
        if (v.HasMember("always")) spec.always = v["always"].GetBool();
        if (v.HasMember("format")) spec.format = v["format"].GetString();
        if (v.HasMember("required")) spec.required = v["required"].GetBool();
        if (v.HasMember("pb")) spec.pb = v["pb"].GetInt();
        if (v.HasMember("pbIn")) spec.pb_in = v["pbIn"].GetInt();
        if (v.HasMember("type")) spec.type = v["type"].GetString();
        if (v.HasMember("ref")) {
          spec.kind = FieldSpec::Kind::kRef;
          spec.ref = Type(v["ref"].GetString());
          if (!spec.ref)
            throw std::runtime_error(std::string("schema: unknown ref ") + v["ref"].GetString());
        } else if (v.HasMember("list")) {
          spec.kind = FieldSpec::Kind::kList;
          spec.elem = std::make_unique<FieldSpec>();
          parse_spec(v["list"], *spec.elem);
        } else if (v.HasMember("map")) {
          spec.kind = FieldSpec::Kind::kMap;
          spec.elem = std::make_unique<FieldSpec>();
          parse_spec(v["map"], *spec.elem);
        } else {
          spec.kind = FieldSpec::Kind::kScalar;
          spec.scalar = ScalarOf(v.HasMember("type") ? v["type"].GetString() : "any");
        }
      };
  for (auto it = types.MemberBegin(); it != types.MemberEnd(); ++it) {
    TypeDef& t = *types_.at(it->name.GetString());
    if (!it->value.HasMember("fields")) continue;
    const auto& fields = it->value["fields"];
    t.fields.reserve(fields.MemberCount());
    for (auto f = fields.MemberBegin(); f != fields.MemberEnd(); ++f) {
      FieldDef def;
      def.name = f->name.GetString();
      parse_spec(f->value, def.spec);
      t.fields.push_back(std::move(def));
    }
    std::vector<std::string_view> names;
    names.reserve(t.fields.size());
    for (const FieldDef& f : t.fields) names.push_back(f.name);
    t.index.Build(names);
  }
  const auto& roots = doc["roots"];
  for (auto it = roots.MemberBegin(); it != roots.MemberEnd(); ++it) {
    roots_.emplace(it->name.GetString(), Type(it->value.GetString()));
  }
}

Schema::Schema(const SchemaTables& tables) {
  std::vector<TypeDef*> by_index(tables.type_count);
  types_.reserve(tables.type_count);
  for (std::size_t i = 0; i < tables.type_count; ++i) {
    auto t = std::make_unique<TypeDef>();
    t->id = tables.types[i].id;
    t->go_name = LastComponents(t->id, 2);
    t->short_name = LastComponents(t->id, 1);
    by_index[i] = t.get();
    types_.emplace(t->id, std::move(t));
  }
  auto fill = [&](auto& self, std::int32_t at, FieldSpec& spec) -> void {
    const SchemaTables::Spec& raw = tables.specs[at];
    spec.kind = static_cast<FieldSpec::Kind>(raw.kind);
    if (raw.type != nullptr) spec.type = raw.type;
    if (raw.format != nullptr) spec.format = raw.format;
    if (raw.proposed != nullptr) spec.proposed = raw.proposed;
    spec.always = raw.always;
    spec.required = raw.required;
    spec.pb = raw.pb;
    spec.pb_in = raw.pb_in;
    switch (spec.kind) {
      case FieldSpec::Kind::kRef:
        spec.ref = by_index[raw.ref];
        break;
      case FieldSpec::Kind::kList:
      case FieldSpec::Kind::kMap:
        spec.elem = std::make_unique<FieldSpec>();
        self(self, raw.elem, *spec.elem);
        break;
      case FieldSpec::Kind::kScalar:
        spec.scalar = ScalarOf(raw.type != nullptr ? raw.type : "any");
        break;
    }
  };
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < tables.type_count; ++i) {
    const SchemaTables::Type& raw = tables.types[i];
    TypeDef& t = *by_index[i];
    t.fields.resize(raw.field_count);
    names.clear();
    for (std::uint32_t f = 0; f < raw.field_count; ++f) {
      const SchemaTables::Field& field = tables.fields[raw.first_field + f];
      t.fields[f].name = field.name;
      fill(fill, field.spec, t.fields[f].spec);
      names.push_back(t.fields[f].name);
    }
    t.index.Build(names);
  }
  for (std::size_t i = 0; i < tables.root_count; ++i) {
    roots_.emplace(tables.roots[i].kind, by_index[tables.roots[i].type]);
  }
}

// Built once and never destroyed: a process needs them until it exits, and destroying them at
// exit freed its thousands of blocks one by one (a one-shot `podlimits run` paid for it on every pod).
const Schema& Schema::Objects() {
  static const Schema& schema = *new Schema(ObjectSchemaTables());
  return schema;
}

const Schema& Schema::Config() {
  static const Schema& schema = *new Schema(ConfigSchemaTables());
  return schema;
}

std::string TypeDef::ApiVersion() const {
  constexpr std::string_view kApi = "io.k8s.api.";
  // The metadata-only kinds are meta.k8s.io's (protobuf_meta_schema.h); v1beta1's are the same.
  if (id.ends_with(".PartialObjectMetadata") || id.ends_with(".PartialObjectMetadataList")) {
    return "meta.k8s.io/v1";
  }
  if (!id.starts_with(kApi)) return "v1";  // meta/v1's List
  const std::string_view rest = std::string_view(id).substr(kApi.size());
  const auto group_end = rest.find('.');
  const auto version_end = rest.find('.', group_end + 1);
  if (group_end == std::string_view::npos || version_end == std::string_view::npos) return "v1";
  const std::string_view package = rest.substr(0, group_end);
  const std::string_view version = rest.substr(group_end + 1, version_end - group_end - 1);
  if (package == "core") return std::string(version);
  // The Go package's name is the API group's first label: the groups that predate dotted names
  // keep it as it is, two are named otherwise, the rest are PACKAGE.k8s.io (each package's
  // register.go: GroupName).
  std::string group(package);
  if (package == "rbac") {
    group = "rbac.authorization.k8s.io";
  } else if (package == "flowcontrol") {
    group = "flowcontrol.apiserver.k8s.io";
  } else if (package != "apps" && package != "batch" && package != "policy" &&
             package != "autoscaling" && package != "extensions") {
    group += ".k8s.io";
  }
  return group + "/" + std::string(version);
}

const TypeDef* Schema::Root(std::string_view kind) const {
  auto it = roots_.find(std::string(kind));
  return it == roots_.end() ? nullptr : it->second;
}

const TypeDef* Schema::Type(std::string_view id) const {
  auto it = types_.find(std::string(id));
  return it == types_.end() ? nullptr : it->second.get();
}

namespace {

std::string GoTypeName(const FieldSpec& s) {
  switch (s.kind) {
    case FieldSpec::Kind::kRef:
      return s.ref->go_name;
    case FieldSpec::Kind::kList:
      return "[]" + GoTypeName(*s.elem);
    case FieldSpec::Kind::kMap:
      if (s.elem->kind == FieldSpec::Kind::kScalar &&
          s.elem->scalar == FieldSpec::Scalar::kQuantity) {
        return "v1.ResourceList";
      }
      return "map[string]" + GoTypeName(*s.elem);
    case FieldSpec::Kind::kScalar:
      break;
  }
  switch (s.scalar) {
    case FieldSpec::Scalar::kString:
      return s.format == "byte" ? "[]uint8" : "string";
    case FieldSpec::Scalar::kInteger:
      return s.format.empty() ? "int64" : s.format;
    case FieldSpec::Scalar::kNumber:
      return "float64";
    case FieldSpec::Scalar::kBoolean:
      return "bool";
    case FieldSpec::Scalar::kQuantity:
      return "resource.Quantity";
    case FieldSpec::Scalar::kIntOrString:
      return "intstr.IntOrString";
    default:
      return "interface {}";
  }
}

bool IntegerFits(const std::string& literal, std::string_view format) {
  if (literal.empty()) return false;
  std::size_t i = literal[0] == '-' ? 1 : 0;
  if (i == literal.size()) return false;
  for (std::size_t k = i; k < literal.size(); ++k) {
    if (literal[k] < '0' || literal[k] > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(literal.c_str(), &end, 10);
  if (errno == ERANGE) return false;
  if (format == "int32") return v >= INT32_MIN && v <= INT32_MAX;
  if (format == "uint32") return v >= 0 && v <= static_cast<long long>(UINT32_MAX);
  if (format == "uint64") return v >= 0;
  return true;
}

// Where the decoder is, as a chain of stack frames: paths are only rendered when an error
// needs one, so a valid object costs no string building.
struct Crumb {
  enum class Kind { kRoot, kField, kIndex, kMapKey };
  const Crumb* parent = nullptr;
  Kind kind = Kind::kRoot;
  std::string_view name;
  std::size_t index = 0;

  // "spec.containers[0].securityContext.ulimit": strict decoding's field path.
  std::string Path() const {
    if (kind == Kind::kRoot) return {};
    std::string p = parent->Path();
    if (kind == Kind::kIndex) return p + "[" + std::to_string(index) + "]";
    return p.empty() ? std::string(name) : p + "." + std::string(name);
  }
  // "spec.containers.securityContext.ulimits.soft": Go's UnmarshalTypeError.Field (struct
  // fields only).
  std::string GoPath() const {
    if (kind == Kind::kRoot) return {};
    std::string p = parent->GoPath();
    if (kind != Kind::kField) return p;
    return p.empty() ? std::string(name) : p + "." + std::string(name);
  }
};

class Decoder {
 public:
  Decoder(FieldValidation mode, StrictDecodeResult& result) : mode_(mode), result_(result) {}

  // Returns false once a fatal error stops decoding.
  bool Object(codec::Node& node, const TypeDef& type, const Crumb& at) {
    // Duplicates: Go keeps the last value; strict decoding reports each repeat. Known fields
    // are checked by schema index (cheap); the quadratic pass runs only when one repeats.
    if (HasDuplicateKnownField(node, type)) Deduplicate(node, at);
    for (std::size_t i = 0; i < node.members.size();) {
      codec::Member& m = node.members[i];
      const FieldDef* def = type.Field(m.key);
      Crumb child{&at, Crumb::Kind::kField, m.key};
      if (!def) {
        if (mode_ != FieldValidation::kIgnore) {
          result_.strict_errors.push_back(
              fmt::format("unknown field {}", field::GoQuote(child.Path())));
        }
        if (mode_ != FieldValidation::kStrict) {
          node.members.erase(node.members.begin() + static_cast<std::ptrdiff_t>(i));
          continue;
        }
        ++i;
        continue;
      }
      if (m.value.IsNull()) {
        // null leaves a Go field at its zero value: the field is simply absent.
        node.members.erase(node.members.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      if (!Value(m.value, def->spec, child, type.short_name)) return false;
      ++i;
    }
    return true;
  }

 private:
  static bool HasDuplicateKnownField(const codec::Node& node, const TypeDef& type) {
    if (node.members.size() < 2) return false;
    std::uint64_t seen[4] = {0, 0, 0, 0};  // no Kubernetes type has 256 fields
    for (const auto& m : node.members) {
      std::size_t position = type.index.Find(m.key);
      if (position >= 256) continue;  // absent, or beyond the bits kept
      std::uint64_t bit = std::uint64_t{1} << (position % 64);
      if (seen[position / 64] & bit) return true;
      seen[position / 64] |= bit;
    }
    return false;
  }

  void Deduplicate(codec::Node& node, const Crumb& at) {
    for (std::size_t i = 0; i < node.members.size(); ++i) {
      for (std::size_t j = i + 1; j < node.members.size(); ++j) {
        if (node.members[j].key != node.members[i].key) continue;
        if (mode_ != FieldValidation::kIgnore) {
          Crumb dup{&at, Crumb::Kind::kField, node.members[i].key};
          std::string error = fmt::format("duplicate field {}", field::GoQuote(dup.Path()));
          // YAML input knows where the repeat is; the apiserver's message (from JSON) cannot.
          if (std::uint32_t line = node.members[j].value.line) {
            error += fmt::format(" (line {})", line);
          }
          result_.strict_errors.push_back(std::move(error));
        }
        node.members[i].value = std::move(node.members[j].value);
        node.members.erase(node.members.begin() + static_cast<std::ptrdiff_t>(j));
        --j;
      }
    }
  }

  bool TypeError(const codec::Node& n, std::string_view value_desc, const FieldSpec& spec, const Crumb& at,
                 std::string_view go_struct) {
    result_.fatal = fmt::format("json: cannot unmarshal {} into Go struct field {}.{} of type {}",
                                value_desc, go_struct, at.GoPath(), GoTypeName(spec));
    result_.fatal_line = n.line;
    return false;
  }

  bool Value(codec::Node& n, const FieldSpec& spec, const Crumb& at, std::string_view go_struct) {
    switch (spec.kind) {
      case FieldSpec::Kind::kRef:
        if (!n.IsObject()) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        return Object(n, *spec.ref, at);
      case FieldSpec::Kind::kList:
        if (!n.IsArray()) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        for (std::size_t i = 0; i < n.items.size(); ++i) {
          codec::Node& item = n.items[i];
          if (item.IsNull() && spec.elem->kind != FieldSpec::Kind::kScalar) {
            item = spec.elem->kind == FieldSpec::Kind::kList ? codec::Node::Array() : codec::Node::Object();
            continue;
          }
          Crumb child{&at, Crumb::Kind::kIndex, {}, i};
          if (!Value(item, *spec.elem, child, go_struct)) return false;
        }
        return true;
      case FieldSpec::Kind::kMap:
        if (!n.IsObject()) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        if (n.members.size() > 1) Deduplicate(n, at);
        for (auto& m : n.members) {
          if (m.value.IsNull() && spec.elem->kind == FieldSpec::Kind::kScalar &&
              spec.elem->scalar == FieldSpec::Scalar::kString) {
            m.value = codec::Node::String("");
            continue;
          }
          if (m.value.IsNull() && spec.elem->kind == FieldSpec::Kind::kScalar &&
              spec.elem->scalar == FieldSpec::Scalar::kQuantity) {
            // Quantity.UnmarshalJSON turns null into a zero Quantity, which is stored as "0".
            std::uint32_t line = m.value.line;
            m.value = codec::Node::String("0");
            m.value.line = line;
            continue;
          }
          Crumb child{&at, Crumb::Kind::kMapKey, m.key};
          if (!Value(m.value, *spec.elem, child, go_struct)) return false;
        }
        return true;
      case FieldSpec::Kind::kScalar:
        return Scalar(n, spec, at, go_struct);
    }
    return true;
  }

  bool Scalar(codec::Node& n, const FieldSpec& spec, const Crumb& at, std::string_view go_struct) {
    using S = FieldSpec::Scalar;
    using K = codec::Node::Kind;
    switch (spec.scalar) {
      case S::kString:
        if (n.kind != K::kString) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        if (spec.format == "byte") {
          // []byte: encoding/json decodes it with base64.StdEncoding and returns its error.
          if (auto bytes = Base64Decode(n.scalar); !bytes) {
            result_.fatal = bytes.error().Message();
            result_.fatal_line = n.line;
            return false;
          }
        }
        return true;
      case S::kInteger:
        if (n.kind != K::kNumber) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        if (!IntegerFits(n.scalar, spec.format)) {
          return TypeError(n, "number " + n.scalar, spec, at, go_struct);
        }
        return true;
      case S::kNumber:
        if (n.kind != K::kNumber) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        return true;
      case S::kBoolean:
        if (n.kind != K::kBool) return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
        return true;
      case S::kIntOrString:
        if (n.kind == K::kString || n.kind == K::kNumber) return true;
        return TypeError(n, codec::GoJsonKindName(n), spec, at, go_struct);
      case S::kQuantity: {
        // Quantity implements json.Unmarshaler, so Go hands it arrays and objects too, as raw
        // JSON text; ParseQuantity fails on their leading '[' or '{' with its regexp message.
        auto q = n.kind == K::kArray || n.kind == K::kObject
                     ? std::expected<resource::Quantity, resource::QuantityError>(
                           std::unexpected(resource::QuantityError::kFormatWrong))
                     : resource::Quantity::ParseJSONScalar(n.scalar);
        if (!q) {
          result_.fatal = std::string(Message(q.error()));
          result_.fatal_line = n.line;
          return false;
        }
        n.kind = K::kString;
        std::string canonical = q->String();
        if (canonical != n.scalar) n.scalar = std::move(canonical);
        return true;
      }
      case S::kAny:
      case S::kNone:
        return true;
    }
    return true;
  }

  FieldValidation mode_;
  StrictDecodeResult& result_;
};

}  // namespace

StrictDecodeResult StrictDecode(codec::Node& node, const TypeDef& type, FieldValidation mode) {
  StrictDecodeResult result;
  Decoder d(mode, result);
  d.Object(node, type, Crumb{});
  return result;
}

}  // namespace podlimits::api
