// /openapi/v2 in the protobuf form client-go's DiscoveryClient.OpenAPISchema() asks for
// (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf) and kubectl reads its
// models from: gnostic's openapi_v2.Document (github.com/google/gnostic-models,
// openapiv2/OpenAPIv2.proto), written from the JSON document as gnostic's compiler reads one.
//
// What is written is what the JSON document holds that kubectl's proto models read: swagger,
// info, and every definition with its $ref, format, description, required, enum, type, items,
// additionalProperties, allOf, properties and x-kubernetes-* extensions. An extension's and an
// enum value's Any carries its YAML (gnostic's `yaml` field; JSON text is YAML too). The paths
// are left out: kubectl reads them from v3.
#pragma once

#include <string>

#include "codec/node.h"

namespace podlimits::apiserver {

std::string OpenApiV2Protobuf(const codec::Node& swagger);

}  // namespace podlimits::apiserver
