// The component schemas of the OpenAPI documents (/openapi/v2 `definitions`, /openapi/v3
// `components.schemas`), built from the one field schema strict decoding uses
// (src/api/schema/k8s-v1-schema.json: types, formats, lists, maps) and the words and annotations
// tools/openapi-docs reads from k8s.io/api's Go sources (k8s-v1-openapi-docs.json: descriptions,
// enums, defaults, required fields, x-kubernetes-list-type/-list-map-keys/-map-type/
// -patch-strategy/-patch-merge-key). The names are upstream's (io.k8s.api.core.v1.Pod).
//
// The two versions differ as kube-openapi renders them:
//   - v3 wraps a $ref that has siblings (a description, a default) in `allOf`, since OpenAPI
//     3.0 ignores a $ref's siblings; v2 writes them beside the $ref.
//   - v2 carries no `default` (kube-apiserver prunes them from the v2 document).
//   - Quantity and IntOrString are `oneOf` string/number and integer/string in v3, strings in v2.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"

namespace podlimits::apiserver {

enum class OpenApiVersion { kV2, kV3 };

struct GroupVersionKind {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
};

// The definition a PATCH body refers to (its schema is "any object": the patch formats differ).
inline constexpr std::string_view kPatchDefinition = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

// {"$ref": "#/components/schemas/NAME"} in v3, {"$ref": "#/definitions/NAME"} in v2.
codec::Node DefinitionRef(std::string_view name, OpenApiVersion version);

class OpenApiSchemas {
 public:
  // The schemas of the embedded data, read once.
  static const OpenApiSchemas& Embedded();

  // The definition name of a kind of the schema's roots ("Pod" -> io.k8s.api.core.v1.Pod), or
  // "" when the schema has none.
  std::string DefinitionOf(std::string_view kind) const;

  // `roots` and every definition they reach, sorted by name.
  std::vector<std::string> Closure(const std::vector<std::string>& roots) const;

  // One definition as the document of `version` writes it, with `gvks` as its
  // x-kubernetes-group-version-kind (none: no such member); its $refs point into the same
  // document ("#/components/schemas/..." in v3, "#/definitions/..." in v2).
  codec::Node Definition(std::string_view name, OpenApiVersion version,
                         const std::vector<GroupVersionKind>& gvks) const;

  OpenApiSchemas(std::string_view schema_json, std::string_view docs_json);

 private:
  codec::Node Field(const codec::Node& spec, const codec::Node* docs, OpenApiVersion version,
                    bool element) const;
  codec::Node Wrapper(std::string_view name, OpenApiVersion version) const;
  void Reach(const codec::Node& spec, const codec::Node* docs, std::vector<std::string>& out) const;

  codec::Node schema_;  // k8s-v1-schema.json
  codec::Node docs_;    // k8s-v1-openapi-docs.json
};

}  // namespace podlimits::apiserver
