// One event of a watch answered in protobuf (Accept: application/vnd.kubernetes.protobuf;
// stream=watch, or the plain protobuf type on a watch), framed as the apiserver's watch encoder
// writes it: its stream serializer (apimachinery's protobuf RawSerializer) writes the
// metav1.WatchEvent {string type = 1; RawExtension object = 2} bare, without the "k8s\0"
// envelope, through the LengthDelimitedFramer (a 4-byte big-endian length, then the message);
// the event's object.raw (RawExtension {bytes raw = 1}) is the object encoded with the
// envelope, as a GET would answer it (protobuf_encode.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

#include "api/schema.h"
#include "codec/node.h"

namespace podlimits::api {

// `type`: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (whose object is a Status).
Result<std::string> ProtobufWatchFrame(std::string_view type, const codec::Node& object,
                                       const Schema& schema);

// The frames of `stream` in order, each the WatchEvent's type and its object's envelope; a
// stream that ends inside a frame, or a frame that is no WatchEvent, fails. For tests.
struct ProtobufWatchEvent {
  std::string type;
  std::string object;  // "k8s\0" + runtime.Unknown
};
Result<std::vector<ProtobufWatchEvent>> SplitProtobufWatchFrames(std::string_view stream);

}  // namespace podlimits::api
