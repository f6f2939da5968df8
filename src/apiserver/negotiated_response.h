// A REST response in the encoding the request negotiated (output_media_type.h), as
// k8s.io/apiserver's transformResponseObject and WriteObjectNegotiated write it. The handlers
// write JSON; here it is converted as the Accept header's `as` asked (PartialObjectMetadata and
// PartialObjectMetadataList: listwatch/partial_object_metadata.h; a Table is built by the
// handlers) and becomes YAML (sigs.k8s.io/yaml's layout, keys in order, as kubectl prints it) or
// protobuf (api/protobuf_encode.h).
//
// Errors are written as the apiserver's ErrorNegotiated writes them: negotiated again without
// conversions (`error_media`; nullopt when nothing but a conversion was acceptable, and then the
// Status goes out as JSON whatever was asked, as WriteRawJSON does). A kind with no protobuf form
// never gets here as protobuf: negotiation left protobuf out for its endpoint (the metrics
// group's), so it was answered in the next acceptable type, or 406. An object the protobuf
// encoder fails on is the apiserver's SerializeObject fallback: a 500 Status whose message is
// the encoder's error, in protobuf — never the JSON a protobuf-only client did not accept.
// Streams (watches, logs) and WebSockets are left as they are: a watch encodes its own events
// (listwatch/watch_handler.h).
#pragma once

#include <optional>

#include "apiserver/output_media_type.h"
#include "http/message.h"

namespace podlimits::apiserver {

http::HttpResponse EncodeNegotiated(http::HttpResponse response, const OutputMediaType& media,
                                    const std::optional<OutputMediaType>& error_media);

}  // namespace podlimits::apiserver
