#include "api/protobuf_watch_event.h"

#include <cstdint>

#include "api/protobuf_encode.h"
#include "codec/protobuf_wire.h"

namespace podlimits::api {

Result<std::string> ProtobufWatchFrame(std::string_view type, const codec::Node& object,
                                       const Schema& schema) {
  auto envelope = EncodeProtobufObject(object, schema);
  if (!envelope) return envelope;
  codec::protobuf::WireWriter raw_extension;
  raw_extension.Message(1, *envelope);
  codec::protobuf::WireWriter event;
  event.Message(1, type);
  event.Message(2, raw_extension.bytes());
  const std::string& message = event.bytes();
  const auto n = static_cast<std::uint32_t>(message.size());
  std::string frame;
  frame.reserve(4 + message.size());
  for (int shift : {24, 16, 8, 0}) frame.push_back(static_cast<char>((n >> shift) & 0xff));
  frame += message;
  return frame;
}

Result<std::vector<ProtobufWatchEvent>> SplitProtobufWatchFrames(std::string_view stream) {
  std::vector<ProtobufWatchEvent> events;
  while (!stream.empty()) {
    if (stream.size() < 4) return Failure("protobuf watch stream ends inside a frame length");
    std::uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(stream[i]);
    if (stream.size() - 4 < n) return Failure("protobuf watch stream ends inside a frame");
    codec::protobuf::WireReader r(stream.substr(4, n));
    stream.remove_prefix(4 + n);
    ProtobufWatchEvent event;
    while (!r.done()) {
      auto tag = r.NextTag();
      if (!tag || tag->wire != codec::protobuf::kBytes) return Failure("malformed WatchEvent");
      auto bytes = r.Bytes();
      if (!bytes) return Failure("malformed WatchEvent");
      if (tag->field == 1) event.type = std::string(*bytes);
      if (tag->field != 2) continue;
      codec::protobuf::WireReader ext(*bytes);
      while (!ext.done()) {
        auto t = ext.NextTag();
        if (!t || t->wire != codec::protobuf::kBytes) return Failure("malformed RawExtension");
        auto raw = ext.Bytes();
        if (!raw) return Failure("malformed RawExtension");
        if (t->field == 1) event.object = std::string(*raw);
      }
    }
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace podlimits::api
