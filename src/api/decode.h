// From manifest files to objects: YAML or JSON streams, `List` flattening, kind dispatch, and
// strict decoding against the schema — what kubectl and kube-apiserver together do before any
// admission logic runs.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/schema.h"
#include "codec/node.h"

namespace podlimits::api {

struct DecodedObject {
  std::string kind;  // Pod, LimitRange, Namespace, PersistentVolumeClaim
  codec::Node tree;
  std::string source;  // file name ("-" for stdin)
  std::uint32_t line = 0;
  std::vector<std::string> warnings;  // unknown fields under --validate=warn
};

// Why an object could not be decoded, in the shape the CLI prints it.
struct DecodeError {
  // true: the apiserver would answer (printed "Error from server (BadRequest): ...");
  // false: kubectl fails before sending (printed "error: ...").
  bool from_server = true;
  std::string reason = "BadRequest";
  std::string message;
  std::string source;
  std::uint32_t line = 0;
};

using DecodeResult = std::variant<DecodedObject, DecodeError>;

struct DecodeOptions {
  FieldValidation field_validation = FieldValidation::kStrict;
  // Which kinds this command accepts; others are rejected as unknown. Empty: what the admission
  // chain admits (Pod, LimitRange, Namespace, PersistentVolumeClaim, ConfigMap, Secret and the
  // workloads Deployment, ReplicaSet and Job).
  std::vector<std::string> kinds;
};

// Decodes every object in `text` (read from `source`), in order. Lists are flattened.
std::vector<DecodeResult> DecodeManifests(std::string_view source, std::string_view text,
                                          const DecodeOptions& options = {});

// Strictly decodes one object whose kind is already known (used for config files too).
DecodeResult DecodeObject(const Schema& schema, std::string_view kind, codec::Node tree,
                          std::string_view source, std::uint32_t line, FieldValidation mode);

// The object's metadata.name, or "" (for messages about objects that failed to decode).
std::string RawName(const codec::Node& tree);

}  // namespace podlimits::api
