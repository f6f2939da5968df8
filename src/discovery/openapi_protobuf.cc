#include "discovery/openapi_protobuf.h"

#include <cstdint>

#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

// The field numbers of gnostic's OpenAPIv2.proto that are written.
namespace field {
constexpr int kDocumentSwagger = 1, kDocumentInfo = 2, kDocumentDefinitions = 9;
constexpr int kInfoTitle = 1, kInfoVersion = 2;
constexpr int kNamedName = 1, kNamedValue = 2;  // NamedSchema, NamedAny
constexpr int kAnyYaml = 2;
constexpr int kSchemaRef = 1, kSchemaFormat = 2, kSchemaDescription = 4, kSchemaRequired = 19,
              kSchemaEnum = 20, kSchemaAdditionalProperties = 21, kSchemaType = 22,
              kSchemaItems = 23, kSchemaAllOf = 24, kSchemaProperties = 25,
              kSchemaVendorExtension = 31;
constexpr int kAdditionalPropertiesSchema = 1;
constexpr int kRepeatedFirst = 1;  // TypeItem.value, ItemsItem.schema, Properties and Definitions
}  // namespace field

void Varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// A length-delimited field: strings, bytes and embedded messages.
void Bytes(std::string& out, int number, std::string_view value) {
  Varint(out, static_cast<std::uint64_t>(number) << 3 | 2);
  Varint(out, value.size());
  out.append(value);
}

// gnostic's Any: the value's YAML.
std::string AnyOf(const Node& value) {
  std::string any;
  Bytes(any, field::kAnyYaml, codec::EncodeJson(value, 0) + "\n");
  return any;
}

std::string NamedAny(std::string_view name, const Node& value) {
  std::string named;
  Bytes(named, field::kNamedName, name);
  Bytes(named, field::kNamedValue, AnyOf(value));
  return named;
}

std::string Schema(const Node& schema);

std::string NamedSchema(std::string_view name, const Node& schema) {
  std::string named;
  Bytes(named, field::kNamedName, name);
  Bytes(named, field::kNamedValue, Schema(schema));
  return named;
}

// The members in the order of the proto's field numbers, as proto.Marshal writes them.
std::string Schema(const Node& schema) {
  std::string out;
  auto string_member = [&](std::string_view key, int number) {
    if (const Node* v = schema.Find(key); v && v->IsString()) Bytes(out, number, v->scalar);
  };
  string_member("$ref", field::kSchemaRef);
  string_member("format", field::kSchemaFormat);
  string_member("description", field::kSchemaDescription);
  if (const Node* required = schema.Find("required")) {
    for (const Node& r : required->items) Bytes(out, field::kSchemaRequired, r.scalar);
  }
  if (const Node* values = schema.Find("enum")) {
    for (const Node& v : values->items) Bytes(out, field::kSchemaEnum, AnyOf(v));
  }
  if (const Node* additional = schema.Find("additionalProperties");
      additional && additional->IsObject()) {
    std::string item;
    Bytes(item, field::kAdditionalPropertiesSchema, Schema(*additional));
    Bytes(out, field::kSchemaAdditionalProperties, item);
  }
  if (const Node* type = schema.Find("type"); type && type->IsString()) {
    std::string item;
    Bytes(item, field::kRepeatedFirst, type->scalar);
    Bytes(out, field::kSchemaType, item);
  }
  if (const Node* items = schema.Find("items"); items && items->IsObject()) {
    std::string item;
    Bytes(item, field::kRepeatedFirst, Schema(*items));
    Bytes(out, field::kSchemaItems, item);
  }
  if (const Node* all_of = schema.Find("allOf")) {
    for (const Node& s : all_of->items) Bytes(out, field::kSchemaAllOf, Schema(s));
  }
  if (const Node* properties = schema.Find("properties")) {
    std::string props;
    for (const auto& m : properties->members) {
      Bytes(props, field::kRepeatedFirst, NamedSchema(m.key, m.value));
    }
    Bytes(out, field::kSchemaProperties, props);
  }
  for (const auto& m : schema.members) {
    if (m.key.starts_with("x-"))
      Bytes(out, field::kSchemaVendorExtension, NamedAny(m.key, m.value));
  }
  return out;
}

}  // namespace

std::string OpenApiV2Protobuf(const Node& swagger) {
  std::string out;
  if (const Node* v = swagger.Find("swagger")) Bytes(out, field::kDocumentSwagger, v->scalar);
  if (const Node* info = swagger.Find("info")) {
    std::string i;
    if (const Node* t = info->Find("title")) Bytes(i, field::kInfoTitle, t->scalar);
    if (const Node* v = info->Find("version")) Bytes(i, field::kInfoVersion, v->scalar);
    Bytes(out, field::kDocumentInfo, i);
  }
  if (const Node* definitions = swagger.Find("definitions")) {
    std::string defs;
    for (const auto& m : definitions->members) {
      Bytes(defs, field::kRepeatedFirst, NamedSchema(m.key, m.value));
    }
    Bytes(out, field::kDocumentDefinitions, defs);
  }
  return out;
}

}  // namespace podlimits::apiserver
