// Objects in the protobuf form kube-apiserver answers with when a client asks for
// application/vnd.kubernetes.protobuf (client-go's typed clients and informers): "k8s\0" then a
// runtime.Unknown {typeMeta {apiVersion, kind}, raw, contentEncoding, contentType} whose raw is
// the object's message, its fields numbered as kubernetes/api's generated.proto numbers them.
// The inverse of protobuf_object.h, from the same schema tables (schema.h's "pb" and "pbIn").
//
// What is written: every member the tree holds that has a field number, in ascending field
// order, a present zero included (a pointer field set to 0 decodes as set, as from JSON);
// absent and null members are left out, which a Go decoder reads as the zero value JSON's
// omitempty stands for. Map entries go in key order, as gogo-protobuf writes them; repeated
// scalars unpacked (the generated.proto files are proto2). Fields without a number (the KEP
// drafts' proposed fields, which upstream's Go types lack) have no protobuf form and are left
// out, as a client built from upstream's types would drop them from JSON too.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

#include "api/schema.h"
#include "codec/node.h"

namespace podlimits::api {

// The message of `object` as `type` (no envelope). Fails for a member whose value does not fit
// its field's type (a string where the schema has an integer, a time that is not RFC 3339).
Result<std::string> EncodeProtobufMessage(const codec::Node& object, const TypeDef& type);

// The type that encodes objects of `kind`: the object schema's (`schema`), or the meta/v1 kinds
// every group version answers with (Status: protobuf_meta_schema.h); nullptr when the kind has
// no protobuf form here.
const TypeDef* ProtobufTypeOf(std::string_view kind, const Schema& schema);

// The whole response body for `object`, its kind and apiVersion read from its own members.
Result<std::string> EncodeProtobufObject(const codec::Node& object, const Schema& schema);

}  // namespace podlimits::api
