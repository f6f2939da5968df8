#include "api/protobuf_encode.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "api/protobuf_meta_schema.h"
#include "api/protobuf_object.h"
#include "base/base64.h"
#include "codec/json_codec.h"
#include "codec/protobuf_wire.h"

namespace podlimits::api {
namespace {

using codec::Node;
using Writer = codec::protobuf::WireWriter;
using enum codec::protobuf::WireType;

// The field an error names ("Pod.metadata"), put together only when there is an error (built
// up front, it was an allocation for every field of every object a watch sends).
struct Where {
  std::string_view type;
  std::string_view field;
};

Error Unfit(Where where, std::string_view why) {
  if (where.field.empty()) return Error{"encode protobuf", {}, 0, fmt::format("{}: {}", where.type, why)};
  return Error{"encode protobuf", {}, 0, fmt::format("{}.{}: {}", where.type, where.field, why)};
}

// metav1.Time and MicroTime {int64 seconds = 1; int32 nanos = 2} from RFC 3339
// ("2006-01-02T15:04:05Z", with a fraction and an offset as MicroTime and other writers have).
std::optional<std::pair<std::int64_t, std::int32_t>> ParseRfc3339(std::string_view text) {
  int y, mo, d, h, mi, s, consumed = 0;
  const std::string copy(text);
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s,
                  &consumed) != 6 ||
      consumed != 19) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(19);
  std::int32_t nanos = 0;
  if (rest.starts_with('.')) {
    std::size_t i = 1;
    int digits = 0;
    for (; i < rest.size() && rest[i] >= '0' && rest[i] <= '9'; ++i, ++digits) {
      if (digits < 9) nanos = nanos * 10 + (rest[i] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 9; ++digits) nanos *= 10;
    rest = rest.substr(i);
  }
  std::int64_t offset = 0;
  if (rest == "Z" || rest == "z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    int oh, om;
    if (std::sscanf(std::string(rest.substr(1)).c_str(), "%2d:%2d", &oh, &om) != 2) {
      return std::nullopt;
    }
    offset = (rest[0] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  using namespace std::chrono;
  const year_month_day date{year(y), month(static_cast<unsigned>(mo)),
                            day(static_cast<unsigned>(d))};
  if (!date.ok()) return std::nullopt;
  const std::int64_t seconds = sys_days(date).time_since_epoch().count() * 86400 + h * 3600 +
                               mi * 60 + s - offset;
  return std::make_pair(seconds, nanos);
}

// One value of scalar type `spec.type` as field `number` (a list's element or a map's value
// included: written whatever its value).
Result<void> Scalar(Writer& w, int number, const FieldSpec& spec, const Node& v,
                    Where where) {
  const auto field = static_cast<std::uint32_t>(number);
  const std::string& t = spec.type;
  if (t == "string") {
    if (!v.IsString()) return std::unexpected(Unfit(where, "not a string"));
    if (spec.format == "byte") {
      auto bytes = Base64Decode(v.scalar);
      if (!bytes) return std::unexpected(Unfit(where, "not base64"));
      w.Message(field, *bytes);
    } else {
      w.Message(field, v.scalar);
    }
    return {};
  }
  if (t == "boolean") {
    if (v.kind != Node::Kind::kBool) return std::unexpected(Unfit(where, "not a boolean"));
    w.Tag(field, kVarint);
    w.Varint(v.AsBool() ? 1 : 0);
    return {};
  }
  if (t == "integer") {
    auto n = v.kind == Node::Kind::kNumber ? v.AsInt() : std::nullopt;
    if (!n) return std::unexpected(Unfit(where, "not an integer"));
    w.Tag(field, kVarint);  // int32 and int64 alike: the two's complement, sign-extended
    w.Varint(static_cast<std::uint64_t>(*n));
    return {};
  }
  if (t == "number") {  // a double
    if (v.kind != Node::Kind::kNumber) return std::unexpected(Unfit(where, "not a number"));
    w.Fixed64(field, std::bit_cast<std::uint64_t>(std::strtod(v.scalar.c_str(), nullptr)));
    return {};
  }
  Writer inner;
  if (t == "quantity") {  // resource.Quantity {string string = 1}
    if (!v.IsString()) return std::unexpected(Unfit(where, "not a quantity string"));
    inner.Message(1, v.scalar);
  } else if (t == "time") {
    if (!v.IsString()) return std::unexpected(Unfit(where, "not a time string"));
    auto time = ParseRfc3339(v.scalar);
    if (!time) return std::unexpected(Unfit(where, "not an RFC 3339 time"));
    inner.Int(1, time->first);
    inner.Int(2, time->second);
  } else if (t == "int-or-string") {  // {int64 type = 1; int32 intVal = 2; string strVal = 3}
    if (v.IsString()) {
      inner.Int(1, 1);
      inner.Message(3, v.scalar);
    } else if (auto n = v.kind == Node::Kind::kNumber ? v.AsInt() : std::nullopt) {
      inner.Tag(1, kVarint);
      inner.Varint(0);
      inner.Tag(2, kVarint);
      inner.Varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(*n))));
    } else {
      return std::unexpected(Unfit(where, "neither an integer nor a string"));
    }
  } else {  // "any": runtime.RawExtension / FieldsV1 {bytes raw = 1}, the value's JSON
    inner.Message(1, codec::EncodeJson(v, 0));
  }
  w.Message(field, inner.bytes());
  return {};
}

Result<void> Fields(Writer& w, const Node& object, const TypeDef& type, int embedded_in,
                    int depth);

// One value of `spec` (a message, or a scalar) as field `number`.
Result<void> Value(Writer& w, int number, const FieldSpec& spec, const Node& v,
                   Where where, int depth) {
  if (spec.kind == FieldSpec::Kind::kRef) {
    if (!v.IsObject()) return std::unexpected(Unfit(where, "not an object"));
    Writer inner;
    if (auto r = Fields(inner, v, *spec.ref, 0, depth + 1); !r) return r;
    w.Message(static_cast<std::uint32_t>(number), inner.bytes());
    return {};
  }
  if (spec.kind == FieldSpec::Kind::kList) {
    // A named slice type as a map's value (UserInfo.extra's ExtraValue []string): a message of
    // its own whose field 1 holds the items.
    if (!v.IsArray()) return std::unexpected(Unfit(where, "not a list"));
    Writer inner;
    for (const Node& e : v.items) {
      if (e.IsNull()) continue;
      if (auto r = Value(inner, 1, *spec.elem, e, where, depth); !r) return r;
    }
    w.Message(static_cast<std::uint32_t>(number), inner.bytes());
    return {};
  }
  if (spec.kind != FieldSpec::Kind::kScalar) {
    return std::unexpected(Unfit(where, "a map inside a list or map"));
  }
  return Scalar(w, number, spec, v, where);
}

// The fields of `object` that `type` numbers inside its message (embedded_in 0) or inside the
// inline struct that is its field `embedded_in` (Volume's VolumeSource).
Result<void> Fields(Writer& w, const Node& object, const TypeDef& type, int embedded_in,
                    int depth) {
  if (depth > kMaxProtobufDepth) return std::unexpected(Unfit({type.go_name, {}}, "nested too deeply"));
  struct Item {
    int number;
    const FieldDef* field;  // nullptr: the inline struct `number`
    const Node* value;
  };
  std::vector<Item> items;
  items.reserve(object.members.size());
  for (const auto& m : object.members) {
    if (m.value.IsNull()) continue;
    const FieldDef* f = type.Field(m.key);
    if (f == nullptr || f->spec.pb == 0) continue;
    if (f->spec.pb_in == embedded_in) {
      items.push_back({f->spec.pb, f, &m.value});
    } else if (embedded_in == 0) {
      const bool listed = std::any_of(items.begin(), items.end(), [&](const Item& i) {
        return i.field == nullptr && i.number == f->spec.pb_in;
      });
      if (!listed) items.push_back({f->spec.pb_in, nullptr, nullptr});
    }
  }
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.number < b.number; });
  for (const Item& item : items) {
    if (item.field == nullptr) {
      Writer inner;
      if (auto r = Fields(inner, object, type, item.number, depth); !r) return r;
      w.Message(static_cast<std::uint32_t>(item.number), inner.bytes());
      continue;
    }
    const FieldSpec& spec = item.field->spec;
    const Where where{type.short_name, item.field->name};
    if (spec.kind == FieldSpec::Kind::kList) {
      if (!item.value->IsArray()) return std::unexpected(Unfit(where, "not a list"));
      for (const Node& e : item.value->items) {
        if (e.IsNull()) continue;
        if (auto r = Value(w, item.number, *spec.elem, e, where, depth); !r) return r;
      }
      continue;
    }
    if (spec.kind == FieldSpec::Kind::kMap) {
      if (!item.value->IsObject()) return std::unexpected(Unfit(where, "not a map"));
      std::vector<const codec::Member*> entries;
      entries.reserve(item.value->members.size());
      for (const auto& m : item.value->members) entries.push_back(&m);
      std::sort(entries.begin(), entries.end(),
                [](const codec::Member* a, const codec::Member* b) { return a->key < b->key; });
      for (const codec::Member* m : entries) {
        Writer entry;
        entry.Message(1, m->key);
        if (!m->value.IsNull()) {
          if (auto r = Value(entry, 2, *spec.elem, m->value, where, depth); !r) return r;
        }
        w.Message(static_cast<std::uint32_t>(item.number), entry.bytes());
      }
      continue;
    }
    if (auto r = Value(w, item.number, spec, *item.value, where, depth); !r) return r;
  }
  return {};
}

}  // namespace

Result<std::string> EncodeProtobufMessage(const Node& object, const TypeDef& type) {
  Writer w;
  if (auto r = Fields(w, object, type, 0, 0); !r) return std::unexpected(r.error());
  return std::move(w).bytes();
}

const TypeDef* ProtobufTypeOf(std::string_view kind, const Schema& schema) {
  if (const TypeDef* t = schema.Root(kind)) return t;
  return MetaProtobufSchema().Root(kind);
}

Result<std::string> EncodeProtobufObject(const Node& object, const Schema& schema) {
  const std::string kind = codec::StringOf(object.Find("kind"));
  const std::string api_version = codec::StringOf(object.Find("apiVersion"));
  const TypeDef* type = ProtobufTypeOf(kind, schema);
  if (type == nullptr) {
    return std::unexpected(Unfit({kind.empty() ? "object" : kind, {}}, "no protobuf form"));
  }
  auto raw = EncodeProtobufMessage(object, *type);
  if (!raw) return raw;
  Writer type_meta;  // runtime.TypeMeta {apiVersion = 1, kind = 2}
  type_meta.Message(1, api_version);
  type_meta.Message(2, kind);
  Writer unknown;  // runtime.Unknown, its strings written even when empty, as gogo writes them
  unknown.Message(1, type_meta.bytes());
  unknown.Message(2, *raw);
  unknown.Message(3, "");
  unknown.Message(4, "");
  std::string out(kProtobufEnvelopeMagic);
  out += unknown.bytes();
  return out;
}

}  // namespace podlimits::api
