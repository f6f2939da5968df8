// The admission chain, in kube-apiserver order:
//   strict decode → drop disabled fields → API defaulting → mutating admission (LimitRanger)
//   → name generation (generateName) → validation → validating admission (LimitRanger,
//   Pod Security).
// Namespaces, then LimitRanges, are admitted first, so the objects of a stream see them
// whatever the order of the documents; results come back in input order.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/decode.h"
#include "api/name_generator.h"
#include "api/objects.h"
#include "codec/node.h"
#include "field/field.h"
#include "validation/feature_gates.h"

namespace podlimits::admission {

namespace psa {
class PodSecurity;
}

struct ChainOptions {
  validation::FeatureGates gates;
  // false: API validation only (`podlimits validate`); true: the admission plugins run too.
  bool run_admission_plugins = true;
  const psa::PodSecurity* pod_security = nullptr;  // nullptr: Pod Security defaults (privileged)
  std::string username;                            // the requesting user, for PSA exemptions
  // Names the objects that only set metadata.generateName; nullptr: a randomly seeded one.
  api::NameGenerator* name_generator = nullptr;
  // true: an admitted object is put in the form the apiserver stores and prints (Go struct
  // order, sorted maps, the empty structs Go's encoder writes such as `resources: {}`); false:
  // it stays as decoded and defaulted, for a caller that only reads fields of the outcome (the
  // webhook), to which the ordering was a tenth of its work.
  bool canonical_order = true;
};

struct Outcome {
  bool admitted = false;
  std::string kind;
  std::string name;
  codec::Node object;  // the stored form, when admitted
  // An admitted Pod's typed view of `object`, as the chain built and checked it (PodObject
  // pairs the two for the node).
  std::optional<api::Pod> pod;
  std::vector<std::string> warnings;
  // When rejected: whether the apiserver said it (vs. a client-side error), its reason
  // (BadRequest, Invalid, Forbidden) and its Status.message.
  bool from_server = true;
  std::string reason;
  std::string message;
  std::map<std::string, std::string> audit_annotations;
  // For Invalid: the field errors the message aggregates (the Status's causes).
  field::ErrorList field_errors;
};

// The HTTP status of a refusal's reason, as the apiserver answers it (Invalid 422, Forbidden
// 403, NotFound 404, AlreadyExists and Conflict 409, anything else 400).
int StatusCode(std::string_view reason);

std::vector<Outcome> RunChain(std::vector<api::DecodeResult> decoded, const ChainOptions& options);

}  // namespace podlimits::admission
