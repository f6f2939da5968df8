// The field schema of the Kubernetes objects podlimits reads, and strict decoding against it.
//
// The data comes from k8s-v1-schema.json / k8s-config-schema.json (generated from kubernetes/api,
// embedded into the binary at build time), so the list of known fields is never hand-typed.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/node.h"

namespace podlimits::api {

struct TypeDef;

struct FieldSpec {
  enum class Kind { kScalar, kRef, kList, kMap };
  enum class Scalar { kNone, kString, kInteger, kNumber, kBoolean, kQuantity, kAny, kIntOrString };

  Kind kind = Kind::kScalar;
  Scalar scalar = Scalar::kNone;
  std::string format;               // int32, int64, byte, ...
  const TypeDef* ref = nullptr;     // kRef
  std::unique_ptr<FieldSpec> elem;  // kList, kMap
  std::string proposed;             // the KEP that adds it, when not upstream
  // A struct held by value: Go's encoder writes it even when empty (`resources: {}`).
  bool always = false;
  // Go's encoder writes the field even when it holds its zero value (no omitempty).
  bool required = false;
  std::string type;  // the schema's scalar type word: "string", "time", "quantity", ...
  int pb = 0;        // the protobuf field number (0: none, e.g. a proposed field)
};

struct FieldDef {
  std::string name;
  FieldSpec spec;
};

struct TypeDef {
  std::string id;                // io.k8s.api.core.v1.PodSpec
  std::string go_name;           // v1.PodSpec (as Go's errors name it)
  std::string short_name;        // PodSpec
  std::vector<FieldDef> fields;  // Go struct order = canonical encoding order
  std::unordered_map<std::string_view, std::size_t> index;

  // The apiVersion of a kubernetes/api kind, from its id: "v1" (core), "policy/v1".
  std::string ApiVersion() const;

  const FieldDef* Field(std::string_view name) const {
    auto it = index.find(name);
    return it == index.end() ? nullptr : &fields[it->second];
  }
};

class Schema {
 public:
  // The Kubernetes v1 objects (Pod, LimitRange, Namespace, their lists, List).
  static const Schema& Objects();
  // KubeletConfiguration, AdmissionConfiguration, PodSecurityConfiguration, AdmissionReview.
  static const Schema& Config();

  // The type of a root object by kind ("Pod"), or nullptr.
  const TypeDef* Root(std::string_view kind) const;
  const TypeDef* Type(std::string_view id) const;

  explicit Schema(std::string_view json);

 private:
  std::unordered_map<std::string, std::unique_ptr<TypeDef>> types_;
  std::unordered_map<std::string, const TypeDef*> roots_;
};

// What to do with fields the schema does not know: kubectl's --validate=strict|warn|ignore.
enum class FieldValidation { kStrict, kWarn, kIgnore };

struct StrictDecodeResult {
  // Unknown and duplicate fields, in the order found ("unknown field \"spec.x\"").
  std::vector<std::string> strict_errors;
  // A type or quantity error: decoding stops at the first, as Go's json decoder does.
  std::string fatal;
  std::uint32_t fatal_line = 0;

  bool ok() const { return strict_errors.empty() && fatal.empty(); }
};

// Checks `node` against `type`, normalising it in place into what the apiserver would hold:
// quantities canonicalised, null fields dropped, YAML plain scalars coerced to strings where the
// schema wants strings, duplicates resolved to the last value, and (for kWarn/kIgnore) unknown
// fields removed.
StrictDecodeResult StrictDecode(Node& node, const TypeDef& type, FieldValidation mode);

}  // namespace podlimits::api
