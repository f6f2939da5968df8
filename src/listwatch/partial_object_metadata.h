// Objects as meta.k8s.io's PartialObjectMetadata, what client-go's metadata client and
// metadata-only informers (controller-runtime's OnlyMetadata) ask for with
// `Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (or protobuf, or
// as=PartialObjectMetadataList for a list), as k8s.io/apiserver's handlers convert a response
// (response.go's doTransformObject):
//
//  - A Status (an error, a delete's Success) is never converted.
//  - as=PartialObjectMetadata of one object: {kind: PartialObjectMetadata, apiVersion:
//    meta.k8s.io/VERSION, metadata: the object's whole metadata}. Of a list: 406 NotAcceptable
//    `you requested PartialObjectMetadata, but the requested object is a list (*core.PodList)`.
//  - as=PartialObjectMetadataList of a list: {kind: PartialObjectMetadataList, apiVersion,
//    metadata: the list's resourceVersion, continue and remainingItemCount, items: each item as
//    above, kind and apiVersion included}. Of one object: 406 `you requested
//    PartialObjectMetadataList, but the requested object is not a list (*core.Pod)`.
//
// The type named is the Go type the apiserver's registry hands the converter, the internal
// version of the object's kind (package core for the core group, apps, batch, coordination...).
// A watch converts each event's object, its bookmarks included (watch_handler.h).
#pragma once

#include <expected>
#include <string_view>

#include "codec/node.h"
#include "listwatch/api_errors.h"

namespace podlimits::apiserver {

// What the request's `as` asked for: nothing, PartialObjectMetadata or PartialObjectMetadataList.
enum class MetadataConversion { kNone, kPartialObjectMetadata, kPartialObjectMetadataList };
MetadataConversion MetadataConversionOf(std::string_view as);

// `object` (a response body: an object, a list or a Status) converted as `conversion` asks, in
// meta.k8s.io/`version` (v1 or v1beta1).
std::expected<codec::Node, ApiError> ConvertToMetadata(const codec::Node& object,
                                                       MetadataConversion conversion,
                                                       std::string_view version);

// One object's PartialObjectMetadata (a watch event's object).
codec::Node PartialObjectMetadataOf(const codec::Node& object, std::string_view version);

// The Go type the apiserver names in its 406 for `object`: "*core.Pod", "*apps.DeploymentList".
std::string InternalGoType(const codec::Node& object);

}  // namespace podlimits::apiserver
