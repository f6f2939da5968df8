// The embedded field schema as static tables, generated at build time from the schema's JSON
// (cmake/schema_tables.py): what Schema (schema.h) is built from at start, without parsing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace podlimits::api {

struct SchemaTables {
  struct Type {
    const char* id;  // io.k8s.api.core.v1.PodSpec
    std::uint32_t first_field, field_count;
  };
  struct Field {
    const char* name;
    std::int32_t spec;  // into specs
  };
  // A field's value: a scalar, a reference to a type, or a list or map of another spec.
  struct Spec {
    std::uint8_t kind;  // 0 scalar, 1 ref, 2 list, 3 map (FieldSpec::Kind's order)
    const char* type;   // the schema's type word, or nullptr
    const char* format;
    const char* proposed;
    std::int32_t ref;   // into types, for a ref
    std::int32_t elem;  // into specs, for a list or map
    bool always, required;
    int pb;
    int pb_in;
  };
  struct Root {
    const char* kind;  // "Pod"
    std::int32_t type;
  };

  const Type* types;
  std::size_t type_count;
  const Field* fields;
  const Spec* specs;
  const Root* roots;
  std::size_t root_count;
};

const SchemaTables& ObjectSchemaTables();  // from schema/k8s-v1-schema.json
const SchemaTables& ConfigSchemaTables();  // from schema/k8s-config-schema.json

// The same files' JSON text, embedded as it is (cmake/embed.cmake).
std::string_view EmbeddedObjectSchema();
std::string_view EmbeddedConfigSchema();
// k8s-v1-openapi-docs.json: the OpenAPI documents' descriptions (tools/openapi-docs).
std::string_view EmbeddedOpenApiDocs();

}  // namespace podlimits::api
