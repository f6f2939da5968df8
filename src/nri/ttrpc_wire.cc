#include "nri/ttrpc_wire.h"

#include <fmt/format.h>

#include "codec/protobuf_wire.h"

namespace podlimits::nri {
namespace {

using codec::protobuf::WireReader;
using codec::protobuf::WireWriter;

std::uint32_t BigEndian32(std::string_view b) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[0])) << 24 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[1])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[2])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[3]));
}

void PutBigEndian32(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v >> 24));
  out.push_back(static_cast<char>(v >> 16));
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}

// Drops what was consumed once it is most of the buffer, so a long connection's buffer does
// not grow with everything it ever read.
void Compact(std::string& buffer, std::size_t& pos) {
  if (pos > 0 && pos * 2 >= buffer.size()) {
    buffer.erase(0, pos);
    pos = 0;
  }
}

}  // namespace

Result<std::optional<MuxFrame>> MuxReader::Next() {
  std::string_view rest = std::string_view(buffer_).substr(pos_);
  if (rest.size() < kMuxHeaderLength) return std::nullopt;
  const std::uint32_t conn = BigEndian32(rest.substr(0, 4));
  const std::uint32_t length = BigEndian32(rest.substr(4, 4));
  if (conn == 0) return Failure("NRI mux frame for connection 0, which is reserved");
  if (length > kMuxPayloadMax) {
    return Failure(fmt::format("NRI mux frame of {} bytes for connection {}: more than the {} a "
                               "frame may carry",
                               length, conn, kMuxPayloadMax));
  }
  if (rest.size() - kMuxHeaderLength < length) return std::nullopt;
  MuxFrame frame{conn, std::string(rest.substr(kMuxHeaderLength, length))};
  pos_ += kMuxHeaderLength + length;
  Compact(buffer_, pos_);
  return frame;
}

std::string MuxFrames(std::uint32_t conn, std::string_view data) {
  std::string out;
  do {
    std::string_view chunk = data.substr(0, std::min(data.size(), kMuxPayloadMax));
    PutBigEndian32(out, conn);
    PutBigEndian32(out, static_cast<std::uint32_t>(chunk.size()));
    out.append(chunk);
    data.remove_prefix(chunk.size());
  } while (!data.empty());
  return out;
}

Result<std::optional<TtrpcMessage>> TtrpcReader::Next() {
  std::string_view rest = std::string_view(buffer_).substr(pos_);
  if (rest.size() < kTtrpcHeaderLength) return std::nullopt;
  const std::uint32_t length = BigEndian32(rest.substr(0, 4));
  const std::uint32_t stream = BigEndian32(rest.substr(4, 4));
  const auto type = static_cast<std::uint8_t>(rest[8]);
  if (length > kTtrpcMessageLengthMax) {
    // ttrpc's own words (channel.go), which a runtime's log shows for the same message.
    return Failure(fmt::format("ttrpc message length {} exceed maximum message size of {}",
                               length, kTtrpcMessageLengthMax));
  }
  if (type < 1 || type > 3) {
    return Failure(fmt::format("ttrpc message of unknown type {} on stream {}", type, stream));
  }
  if (rest.size() - kTtrpcHeaderLength < length) return std::nullopt;
  TtrpcMessage m{stream, static_cast<TtrpcType>(type), static_cast<std::uint8_t>(rest[9]),
                 std::string(rest.substr(kTtrpcHeaderLength, length))};
  pos_ += kTtrpcHeaderLength + length;
  Compact(buffer_, pos_);
  return m;
}

std::string TtrpcMessageBytes(std::uint32_t stream_id, TtrpcType type, std::string_view payload) {
  std::string out;
  out.reserve(kTtrpcHeaderLength + payload.size());
  PutBigEndian32(out, static_cast<std::uint32_t>(payload.size()));
  PutBigEndian32(out, stream_id);
  out.push_back(static_cast<char>(type));
  out.push_back(0);
  out.append(payload);
  return out;
}

Result<TtrpcRequest> DecodeTtrpcRequest(std::string_view bytes) {
  TtrpcRequest req;
  WireReader r(bytes);
  while (!r.done()) {
    auto tag = r.NextTag();
    if (!tag) return Failure("malformed ttrpc Request: bad field tag");
    std::optional<std::string_view> text;
    if (tag->wire == codec::protobuf::kBytes && tag->field <= 3) {
      if (!(text = r.Bytes())) return Failure("malformed ttrpc Request: truncated field");
      (tag->field == 1 ? req.service : tag->field == 2 ? req.method : req.payload) = *text;
    } else if (tag->field == 4 && tag->wire == codec::protobuf::kVarint) {
      auto v = r.Varint();
      if (!v) return Failure("malformed ttrpc Request: truncated timeout_nano");
      req.timeout_nano = static_cast<std::int64_t>(*v);
    } else if (!r.Skip(tag->wire)) {
      return Failure(fmt::format("malformed ttrpc Request: field {} cannot be skipped",
                                 tag->field));
    }
  }
  if (req.service.empty() || req.method.empty()) {
    return Failure("ttrpc Request without a service or method");
  }
  return req;
}

std::string EncodeTtrpcRequest(const TtrpcRequest& request) {
  WireWriter w;
  w.String(1, request.service);
  w.String(2, request.method);
  w.String(3, request.payload);
  w.Int(4, request.timeout_nano);
  return std::move(w).bytes();
}

Result<TtrpcResponse> DecodeTtrpcResponse(std::string_view bytes) {
  TtrpcResponse resp;
  WireReader r(bytes);
  while (!r.done()) {
    auto tag = r.NextTag();
    if (!tag) return Failure("malformed ttrpc Response: bad field tag");
    if (tag->field == 1 && tag->wire == codec::protobuf::kBytes) {
      auto status = r.Bytes();
      if (!status) return Failure("malformed ttrpc Response: truncated status");
      WireReader s(*status);
      while (!s.done()) {
        auto st = s.NextTag();
        if (!st) return Failure("malformed ttrpc Response: bad status field tag");
        if (st->field == 1 && st->wire == codec::protobuf::kVarint) {
          auto code = s.Varint();
          if (!code) return Failure("malformed ttrpc Response: truncated status code");
          resp.code = static_cast<int>(static_cast<std::int32_t>(*code));
        } else if (st->field == 2 && st->wire == codec::protobuf::kBytes) {
          auto m = s.Bytes();
          if (!m) return Failure("malformed ttrpc Response: truncated status message");
          resp.message = *m;
        } else if (!s.Skip(st->wire)) {
          return Failure("malformed ttrpc Response: bad status field");
        }
      }
    } else if (tag->field == 2 && tag->wire == codec::protobuf::kBytes) {
      auto p = r.Bytes();
      if (!p) return Failure("malformed ttrpc Response: truncated payload");
      resp.payload = *p;
    } else if (!r.Skip(tag->wire)) {
      return Failure("malformed ttrpc Response: a field cannot be skipped");
    }
  }
  return resp;
}

std::string EncodeTtrpcResponse(const TtrpcResponse& response) {
  WireWriter w;
  // Always present, code 0 included, as ttrpc's server writes it.
  WireWriter status;
  status.Int(1, response.code);
  status.String(2, response.message);
  w.Message(1, status.bytes());
  w.String(2, response.payload);
  return std::move(w).bytes();
}

}  // namespace podlimits::nri
