// A REST response in the encoding the request negotiated (output_media_type.h). The handlers
// write JSON; here it becomes YAML (sigs.k8s.io/yaml's layout, keys in order, as kubectl
// prints it) or protobuf (api/protobuf_encode.h) — error Statuses included, as the apiserver
// writes errors through the same negotiated serializer. A body whose kind has no protobuf form
// (a metrics.k8s.io kind; a Table is never negotiated in protobuf) stays JSON, as a kind without
// a protobuf encoder is served by the apiserver. Streams (watches, logs) and WebSockets are
// left as they are: a watch encodes its own events (listwatch/watch_handler.h).
#pragma once

#include "apiserver/output_media_type.h"
#include "http/message.h"

namespace podlimits::apiserver {

http::HttpResponse EncodeNegotiated(http::HttpResponse response, const OutputMediaType& media);

}  // namespace podlimits::apiserver
