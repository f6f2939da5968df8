// The protobuf bodies kubectl sends for built-in kinds (`kubectl create namespace|configmap|
// secret`, `kubectl run`): "k8s\0" then a runtime.Unknown {typeMeta {apiVersion, kind}, raw,
// contentEncoding, contentType} whose raw is the object's message. Decoded into the value tree
// that the same object's JSON would give, through the field schema's protobuf numbers (the Go
// tags of kubernetes/api), so that the rest of the request path (strict decoding, admission) is
// the JSON one. As Go's JSON encoder would, zero values of omitempty fields are left out.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "base/error.h"

#include "api/schema.h"
#include "codec/node.h"

namespace podlimits::api {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
// What every protobuf body starts with, before its runtime.Unknown (apimachinery's
// protobuf serializer prefix), in requests and in answers alike.
inline constexpr std::string_view kProtobufEnvelopeMagic{"k8s\0", 4};
// How deep messages may nest, in what is decoded and in what is encoded.
inline constexpr int kMaxProtobufDepth = 64;

// The error says what was malformed, for the apiserver's 400. Bounds: 64 levels of messages;
// time linear in the body (a map's repeated keys are found through an index). Measured, the
// heap one decode takes is at most 132 bytes per byte of body (a repeated message field of
// empty messages: an 88-byte Node per 2 bytes, in a vector that doubles), 88 for a packed
// integer list, which is allocated once at its size (docs/serve.md, "Decoding limits").
Result<codec::Node> DecodeProtobufObject(std::string_view body, const Schema& schema);

}  // namespace podlimits::api
