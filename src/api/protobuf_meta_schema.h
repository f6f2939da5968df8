// The meta/v1 kinds the apiserver answers with that the object schema (schema.h) does not hold,
// in the schema's own JSON form so that the protobuf encoder (protobuf_encode.h) and decoder
// (protobuf_object.h) read them like any kind: Status (every error, and a delete's Success),
// with its StatusDetails, StatusCause and ListMeta, and PartialObjectMetadata and its List
// (metadata-only clients: apiserver's partial_object_metadata.h) with ObjectMeta. The field numbers are apimachinery's
// generated.proto for k8s.io/apimachinery/pkg/apis/meta/v1 (Go's `protobuf:"..."` tags).
#pragma once

#include "api/schema.h"

namespace podlimits::api {

const Schema& MetaProtobufSchema();

}  // namespace podlimits::api
