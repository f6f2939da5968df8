#include "api/protobuf_object.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "base/base64.h"
#include "codec/json_codec.h"
#include "codec/protobuf_wire.h"

namespace podlimits::api {
namespace {


// The wire format's reader is codec's (bounds-checked, fuzzed by both decoders' fuzzers).
using Reader = codec::protobuf::WireReader;
using enum codec::protobuf::WireType;

// Room for `more` items. A packed field's values are counted before they are decoded, so its
// list is allocated once at its size: one 88-byte Node per byte of input, where growing by
// doubling peaked at three times that while the items moved (264 bytes a byte). Later runs of
// the same field grow it by half again, linear in time.
void ReserveItems(std::vector<codec::Node>& items, std::size_t more) {
  const std::size_t needed = items.size() + more;
  if (needed <= items.capacity()) return;
  items.reserve(std::max(needed, items.capacity() + items.capacity() / 2));
}

Result<codec::Node> Message(std::string_view bytes, const TypeDef& type, int depth);

// metav1.Time {seconds, nanos}: RFC 3339 in seconds as the API writes it; nullopt for the zero
// time (Go's JSON writes null, omitted here).
std::optional<std::string> TimeOf(std::string_view bytes) {
  Reader r(bytes);
  std::int64_t seconds = 0;
  while (!r.done()) {
    auto tag = r.Varint();
    if (!tag) return std::nullopt;
    if ((*tag >> 3) == 1 && (*tag & 7) == kVarint) {
      seconds = static_cast<std::int64_t>(r.Varint().value_or(0));
    } else if (!r.Skip(static_cast<std::uint32_t>(*tag & 7))) {
      return std::nullopt;
    }
  }
  if (seconds == 0) return std::nullopt;
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::sys_seconds(std::chrono::seconds(seconds)));
}

// A scalar field's value from one occurrence; nullopt: leave it out (a zero value).
Result<std::optional<codec::Node>> Scalar(const FieldSpec& spec, std::uint32_t wire,
                                                       Reader& r, const std::string& where) {
  auto bad = [&] { return Failure(fmt::format("malformed protobuf field {}", where)); };
  const std::string& t = spec.type;
  if (t == "string") {
    if (wire != kBytes) return bad();
    auto b = r.Bytes();
    if (!b) return bad();
    if (spec.format == "byte") return codec::Node::String(Base64Encode(*b));
    if (b->empty() && !spec.required) return std::optional<codec::Node>();
    return codec::Node::String(std::string(*b));
  }
  if (t == "integer" || t == "boolean") {
    if (wire != kVarint) return bad();
    auto v = r.Varint();
    if (!v) return bad();
    if (t == "boolean") {
      if (*v == 0 && !spec.required) return std::optional<codec::Node>();
      return codec::Node::Bool(*v != 0);
    }
    std::int64_t n = static_cast<std::int64_t>(*v);
    if (spec.format == "int32") n = static_cast<std::int32_t>(n);
    if (n == 0 && !spec.required) return std::optional<codec::Node>();
    return codec::Node::Int(n);
  }
  if (t == "number") {
    if (wire != kFixed64) return bad();
    auto v = r.Fixed(8);
    if (!v) return bad();
    double d;
    std::memcpy(&d, &*v, sizeof d);
    codec::Node n;
    n.kind = codec::Node::Kind::kNumber;
    n.scalar = fmt::format("{}", d);
    return n;
  }
  if (wire != kBytes) return bad();
  auto b = r.Bytes();
  if (!b) return bad();
  Reader inner(*b);
  if (t == "quantity") {  // resource.Quantity {string string = 1}
    std::string text;
    while (!inner.done()) {
      auto tag = inner.Varint();
      if (!tag) return bad();
      if ((*tag >> 3) == 1 && (*tag & 7) == kBytes) {
        text = std::string(inner.Bytes().value_or(""));
      } else if (!inner.Skip(static_cast<std::uint32_t>(*tag & 7))) {
        return bad();
      }
    }
    return codec::Node::String(text);
  }
  if (t == "time") {
    auto time = TimeOf(*b);
    if (!time) return std::optional<codec::Node>();
    return codec::Node::String(*time);
  }
  if (t == "int-or-string") {  // {int64 type = 1; int32 intVal = 2; string strVal = 3}
    std::uint64_t kind = 0, value = 0;
    std::string text;
    while (!inner.done()) {
      auto tag = inner.Varint();
      if (!tag) return bad();
      const auto field = *tag >> 3;
      if (field == 1 && (*tag & 7) == kVarint) {
        kind = inner.Varint().value_or(0);
      } else if (field == 2 && (*tag & 7) == kVarint) {
        value = inner.Varint().value_or(0);
      } else if (field == 3 && (*tag & 7) == kBytes) {
        text = std::string(inner.Bytes().value_or(""));
      } else if (!inner.Skip(static_cast<std::uint32_t>(*tag & 7))) {
        return bad();
      }
    }
    if (kind == 1) return codec::Node::String(text);
    return codec::Node::Int(static_cast<std::int32_t>(value));
  }
  // "any": runtime.RawExtension / FieldsV1 {bytes raw = 1}, JSON inside.
  std::string raw;
  while (!inner.done()) {
    auto tag = inner.Varint();
    if (!tag) return bad();
    if ((*tag >> 3) == 1 && (*tag & 7) == kBytes) {
      raw = std::string(inner.Bytes().value_or(""));
    } else if (!inner.Skip(static_cast<std::uint32_t>(*tag & 7))) {
      return bad();
    }
  }
  if (raw.empty()) return std::optional<codec::Node>();
  auto parsed = codec::ParseJsonStream(raw);
  if (!parsed || parsed->size() != 1) return bad();
  return std::move((*parsed)[0]);
}

// One occurrence of an element (of a list or a map's value) or of a plain field.
Result<std::optional<codec::Node>> Value(const FieldSpec& spec, std::uint32_t wire,
                                                      Reader& r, const std::string& where,
                                                      int depth) {
  if (spec.kind == FieldSpec::Kind::kRef) {
    if (wire != kBytes) return Failure(fmt::format("malformed protobuf field {}", where));
    auto b = r.Bytes();
    if (!b) return Failure(fmt::format("malformed protobuf field {}", where));
    auto m = Message(*b, *spec.ref, depth + 1);
    if (!m) return std::unexpected(m.error());
    return std::optional<codec::Node>(std::move(*m));
  }
  if (spec.kind == FieldSpec::Kind::kList && spec.elem->kind == FieldSpec::Kind::kScalar) {
    // A named slice type as a map's value (UserInfo.extra's ExtraValue []string): a message
    // whose field 1 holds the items.
    auto b = wire == kBytes ? r.Bytes() : std::nullopt;
    if (!b) return Failure(fmt::format("malformed protobuf field {}", where));
    FieldSpec item;
    item.kind = FieldSpec::Kind::kScalar;
    item.type = spec.elem->type;
    item.format = spec.elem->format;
    item.required = true;  // an element is kept even when zero
    codec::Node list = codec::Node::Array();
    Reader items(*b);
    while (!items.done()) {
      auto tag = items.Varint();
      if (!tag) return Failure(fmt::format("malformed protobuf field {}", where));
      if ((*tag >> 3) != 1) {
        if (!items.Skip(static_cast<std::uint32_t>(*tag & 7))) {
          return Failure(fmt::format("malformed protobuf field {}", where));
        }
        continue;
      }
      auto v = Scalar(item, static_cast<std::uint32_t>(*tag & 7), items, where);
      if (!v) return std::unexpected(v.error());
      list.items.push_back(v->value_or(codec::Node::String("")));
    }
    return std::optional<codec::Node>(std::move(list));
  }
  return Scalar(spec, wire, r, where);
}

// Each map field's entries by key (views of the message's bytes), so that a repeated key
// replaces its value in place, as Node::Set would, without searching the map for every entry: a
// body of 2.8 MB of labels took 110 s that way.
using MapKeys =
    std::unordered_map<const FieldDef*, std::unordered_map<std::string_view, std::size_t>>;

Result<void> Fields(std::string_view bytes, const TypeDef& type, int embedded_in, int depth,
                    codec::Node& out, MapKeys& map_keys);

Result<codec::Node> Message(std::string_view bytes, const TypeDef& type, int depth) {
  if (depth > kMaxProtobufDepth) return Failure("protobuf message nested too deeply");
  codec::Node out = codec::Node::Object();
  MapKeys map_keys;
  auto decoded = Fields(bytes, type, 0, depth, out, map_keys);
  if (!decoded) return std::unexpected(std::move(decoded).error());
  return out;
}

// The fields of `type` in `bytes` into `out`: its own (embedded_in 0), or those of the struct it
// embeds inline as its protobuf field `embedded_in` (Volume's VolumeSource is field 2): flat in
// JSON, so they land in `out` beside the parent's own.
Result<void> Fields(std::string_view bytes, const TypeDef& type, int embedded_in, int depth,
                    codec::Node& out, MapKeys& map_keys) {
  Reader r(bytes);
  while (!r.done()) {
    auto tag = r.Varint();
    if (!tag) return Failure(fmt::format("malformed protobuf in {}", type.go_name));
    const auto number = static_cast<int>(*tag >> 3);
    const auto wire = static_cast<std::uint32_t>(*tag & 7);
    const FieldDef* field = nullptr;
    bool embeds = false;  // `number` is an embedded struct's message
    for (const auto& f : type.fields) {
      if (f.spec.pb == number && f.spec.pb_in == embedded_in) field = &f;
      embeds = embeds || (embedded_in == 0 && f.spec.pb_in == number);
    }
    if (field == nullptr && embeds) {
      auto b = wire == kBytes ? r.Bytes() : std::nullopt;
      if (!b) return Failure(fmt::format("malformed protobuf in {}", type.go_name));
      auto inner = Fields(*b, type, number, depth, out, map_keys);
      if (!inner) return inner;
      continue;
    }
    if (field == nullptr) {  // a field this schema does not have: dropped, as Go does
      if (!r.Skip(wire)) return Failure(fmt::format("malformed protobuf in {}", type.go_name));
      continue;
    }
    const std::string where = type.short_name + "." + field->name;
    const FieldSpec& spec = field->spec;
    if (spec.kind == FieldSpec::Kind::kList) {
      codec::Node& list = out.Find(field->name) ? *out.Find(field->name)
                                         : out.Set(field->name, codec::Node::Array());
      const FieldSpec& elem = *spec.elem;
      const bool packable = elem.kind == FieldSpec::Kind::kScalar &&
                            (elem.type == "integer" || elem.type == "boolean");
      if (packable && wire == kBytes) {  // a packed repeated scalar
        auto b = r.Bytes();
        if (!b) return Failure(fmt::format("malformed protobuf field {}", where));
        const auto values = std::count_if(b->begin(), b->end(),  // a varint ends below 0x80
                                          [](char c) { return (c & 0x80) == 0; });
        ReserveItems(list.items, static_cast<std::size_t>(values));
        Reader packed(*b);
        while (!packed.done()) {
          auto v = packed.Varint();
          if (!v) return Failure(fmt::format("malformed protobuf field {}", where));
          list.items.push_back(elem.type == "boolean" ? codec::Node::Bool(*v != 0)
                                                      : codec::Node::Int(static_cast<std::int64_t>(*v)));
        }
        continue;
      }
      FieldSpec always_elem;  // an element is kept even when zero ("" in a list of strings)
      const FieldSpec* e = &elem;
      if (elem.kind == FieldSpec::Kind::kScalar) {
        always_elem.kind = elem.kind;
        always_elem.type = elem.type;
        always_elem.format = elem.format;
        always_elem.required = true;
        e = &always_elem;
      }
      auto v = Value(*e, wire, r, where, depth);
      if (!v) return std::unexpected(v.error());
      list.items.push_back(v->value_or(codec::Node::Null()));
      continue;
    }
    if (spec.kind == FieldSpec::Kind::kMap) {
      if (wire != kBytes) return Failure(fmt::format("malformed protobuf field {}", where));
      auto entry = r.Bytes();
      if (!entry) return Failure(fmt::format("malformed protobuf field {}", where));
      Reader er(*entry);
      std::string_view key;
      std::optional<codec::Node> value;
      FieldSpec elem_always;
      const FieldSpec* elem = spec.elem.get();
      if (elem->kind == FieldSpec::Kind::kScalar) {
        elem_always.kind = elem->kind;
        elem_always.type = elem->type;
        elem_always.format = elem->format;
        elem_always.required = true;  // a map's "" value is a value
        elem = &elem_always;
      }
      while (!er.done()) {
        auto et = er.Varint();
        if (!et) return Failure(fmt::format("malformed protobuf field {}", where));
        const auto en = *et >> 3;
        const auto ew = static_cast<std::uint32_t>(*et & 7);
        if (en == 1 && ew == kBytes) {
          key = er.Bytes().value_or("");
        } else if (en == 2) {
          auto v = Value(*elem, ew, er, where, depth);
          if (!v) return std::unexpected(v.error());
          value = std::move(*v);
        } else if (!er.Skip(ew)) {
          return Failure(fmt::format("malformed protobuf field {}", where));
        }
      }
      codec::Node& map = out.Find(field->name) ? *out.Find(field->name)
                                        : out.Set(field->name, codec::Node::Object());
      auto [at, added] = map_keys[field].try_emplace(key, map.members.size());
      if (added) {
        map.members.push_back(
            codec::Member{std::string(key), std::move(value).value_or(codec::Node::String(""))});
      } else {
        map.members[at->second].value = std::move(value).value_or(codec::Node::String(""));
      }
      continue;
    }
    auto v = Value(spec, wire, r, where, depth);
    if (!v) return std::unexpected(v.error());
    if (*v) out.Set(field->name, std::move(**v));
  }
  return {};
}

}  // namespace

Result<codec::Node> DecodeProtobufObject(std::string_view body, const Schema& schema) {
  if (!body.starts_with(kProtobufEnvelopeMagic)) {
    return Failure("provided data does not appear to be a protobuf message, expected "
                           "prefix [107 56 115 0]");
  }
  Reader r(body.substr(kProtobufEnvelopeMagic.size()));
  std::string api_version, kind, content_encoding, content_type;
  std::string_view raw;
  while (!r.done()) {
    auto tag = r.Varint();
    if (!tag) return Failure("malformed protobuf envelope");
    const auto number = *tag >> 3;
    const auto wire = static_cast<std::uint32_t>(*tag & 7);
    if (wire != kBytes) {
      if (!r.Skip(wire)) return Failure("malformed protobuf envelope");
      continue;
    }
    auto b = r.Bytes();
    if (!b) return Failure("malformed protobuf envelope");
    if (number == 1) {  // runtime.TypeMeta {apiVersion = 1, kind = 2}
      Reader t(*b);
      while (!t.done()) {
        auto tt = t.Varint();
        if (!tt || (*tt & 7) != kBytes) return Failure("malformed protobuf type meta");
        auto v = t.Bytes();
        if (!v) return Failure("malformed protobuf type meta");
        if ((*tt >> 3) == 1) api_version = std::string(*v);
        if ((*tt >> 3) == 2) kind = std::string(*v);
      }
    } else if (number == 2) {
      raw = *b;
    } else if (number == 3) {
      content_encoding = std::string(*b);
    } else if (number == 4) {
      content_type = std::string(*b);
    }
  }
  if (!content_encoding.empty()) {
    return Failure(fmt::format("unsupported protobuf content encoding \"{}\"",
                                       content_encoding));
  }
  const TypeDef* type = schema.Root(kind);
  // A kind's own version, and for the eviction subresource the older one its clients send.
  bool known_version = type != nullptr && (api_version == type->ApiVersion() ||
                                           (kind == "Eviction" && api_version == "policy/v1beta1"));
  // DeleteOptions, the body of a DELETE, is registered in every group version
  // (metav1.AddToGroupVersion's options types): client-go sends it in the resource's own.
  if (kind == "DeleteOptions" && !api_version.empty()) {
    type = schema.Type("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions");
    known_version = type != nullptr;
  }
  if (!known_version) {
    return Failure(fmt::format("no kind \"{}\" is registered for version \"{}\" in scheme "
                                       "\"pkg/runtime/scheme.go:100\"",
                                       kind, api_version));
  }
  auto object = Message(raw, *type, 0);
  if (!object) return object;
  codec::Node out = codec::Node::Object();
  out.Set("kind", codec::Node::String(kind));
  out.Set("apiVersion", codec::Node::String(api_version));
  for (auto& m : object->members) out.Set(m.key, std::move(m.value));
  return out;
}

}  // namespace podlimits::api
