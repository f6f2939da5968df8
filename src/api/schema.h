// The field schema of the Kubernetes objects podlimits reads, and strict decoding against it.
//
// The data comes from k8s-v1-schema.json / k8s-config-schema.json (generated from kubernetes/api),
// turned into static tables at build time (schema_tables.h), so the list of known fields is
// never hand-typed and is not parsed at every start.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codec/node.h"

namespace podlimits::api {

struct TypeDef;
struct SchemaTables;

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
  // A field of a struct embedded inline (Volume's VolumeSource, Probe's ProbeHandler): flat in
  // JSON, but in protobuf a message of its own that is the parent's field `pb_in`, `pb` being
  // the number inside it. 0: the parent's own field.
  int pb_in = 0;
};

struct FieldDef {
  std::string name;
  FieldSpec spec;
};

// A type's field names to their position in TypeDef::fields: open addressing over a power-of-two
// table, hashed by length and three bytes. Every member of every decoded object is looked up
// here, up to three times (duplicates, decoding, canonical order); std::unordered_map spent most
// of a lookup hashing every byte and dividing by a prime.
class FieldIndex {
 public:
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

  void Build(const std::vector<std::string_view>& names);
  std::size_t Find(std::string_view name) const {
    if (slots_.empty()) return kAbsent;
    for (std::size_t i = Hash(name) & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.position == kEmpty) return kAbsent;
      if (codec::SameKey(slot.name, name)) return slot.position;
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = static_cast<std::uint32_t>(-1);
  struct Slot {
    std::string_view name;
    std::uint32_t position = kEmpty;
  };
  static std::size_t Hash(std::string_view name) {
    if (name.empty()) return 0;
    auto byte = [&](std::size_t i) {
      return static_cast<std::size_t>(static_cast<unsigned char>(name[i]));
    };
    return (name.size() * 0x9E3779B1u) ^ (byte(0) * 0x85EBCA77u) ^
           (byte(name.size() - 1) * 0xC2B2AE3Du) ^ (byte(name.size() / 2) * 0x27D4EB2Fu);
  }
  std::vector<Slot> slots_;  // at most half full, so a probe always meets an empty slot
  std::size_t mask_ = 0;
};

struct TypeDef {
  std::string id;                // io.k8s.api.core.v1.PodSpec
  std::string go_name;           // v1.PodSpec (as Go's errors name it)
  std::string short_name;        // PodSpec
  std::vector<FieldDef> fields;  // Go struct order = canonical encoding order
  FieldIndex index;

  // The apiVersion of a kubernetes/api kind, from its id: "v1" (core), "policy/v1".
  std::string ApiVersion() const;

  const FieldDef* Field(std::string_view name) const {
    std::size_t i = index.Find(name);
    return i == FieldIndex::kAbsent ? nullptr : &fields[i];
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

  // From the JSON form (the schema files, a configuration's own small schema).
  explicit Schema(std::string_view json);
  // From the build's tables of the same files.
  explicit Schema(const SchemaTables& tables);

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
StrictDecodeResult StrictDecode(codec::Node& node, const TypeDef& type, FieldValidation mode);

}  // namespace podlimits::api
