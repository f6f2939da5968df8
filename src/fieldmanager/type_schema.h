// The embedded schema as structured-merge-diff sees a type (the shape kube-openapi's schemaconv
// gives it from the OpenAPI annotations):
//
//   struct   a type of the schema's "types" with its declared fields; granular, or atomic when
//            the type is `x-kubernetes-map-type: atomic` (+structType=atomic: LocalObjectReference)
//   map      map[string]X: granular unless the field says `x-kubernetes-map-type: atomic`
//   list     `x-kubernetes-list-type` atomic, set, or map with `x-kubernetes-list-map-keys`;
//            without one, `x-kubernetes-patch-strategy: merge` makes it a map by the patch merge
//            key (a set without a key); anything else is atomic
//   scalar   strings, numbers, quantities, times, int-or-string; and `any` (FieldsV1,
//            RawExtension), compared as one value
//
// Both halves come from the same embedded files the decoder and the OpenAPI documents use
// (k8s-v1-schema.json for the structure, k8s-v1-openapi-docs.json for the annotations).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codec/node.h"

namespace podlimits::fieldmanager {

class TypeSchema;

// One position in the schema: what a value at some path is.
struct TypeRef {
  enum class Shape { kScalar, kStruct, kMap, kList, kUnknown };
  Shape shape = Shape::kUnknown;
  bool atomic = false;
  // kList: set or map (associative), with `keys` for map.
  bool associative = false;
  std::vector<std::string> keys = {};
  const codec::Node* spec = nullptr;        // the field spec ({"ref"}, {"list"}, {"map"}, {"type"})
  const codec::Node* type_fields = nullptr;  // kStruct: the type's "fields"
  const codec::Node* type_docs = nullptr;    // kStruct: its definition's "properties"
  const codec::Node* required = nullptr;     // kStruct: its definition's "required" names
  const TypeSchema* schema = nullptr;

  bool IsStruct() const { return shape == Shape::kStruct; }
  // The declared field `name` of a struct, or nullopt-like Unknown.
  bool Declares(std::string_view name) const;
  TypeRef Field(std::string_view name) const;
  // The element of a list or the value of a map.
  TypeRef Element() const;
  // The default of field `name` of a struct (a list map key's default: ports' protocol "TCP").
  const codec::Node* FieldDefault(std::string_view name) const;
  // Whether the definition lists field `name` as required (its Go tag has no omitempty).
  bool Requires(std::string_view name) const;
};

class TypeSchema {
 public:
  static const TypeSchema& Embedded();
  TypeSchema(std::string_view schema_json, std::string_view docs_json);

  // The root type of a kind of the schema ("Pod"); Unknown when it has none.
  TypeRef Kind(std::string_view kind) const;

  // The shape of a field `spec` with the annotations `docs` (its property in the docs).
  TypeRef Resolve(const codec::Node& spec, const codec::Node* docs) const;
  TypeRef Struct(std::string_view type_id) const;

 private:
  codec::Node schema_;
  codec::Node docs_;
  // Every type of the schema by its id, resolved once: a walk resolves a struct at every level,
  // and the schema's ~190 types are members of one JSON object.
  std::unordered_map<std::string_view, TypeRef> structs_;
};

}  // namespace podlimits::fieldmanager
