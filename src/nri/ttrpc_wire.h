// The bytes between an NRI plugin and its runtime, in two layers.
//
// 1. NRI's multiplexer (github.com/containerd/nri pkg/net/multiplex): one unix socket carries
//    several logical byte streams. A frame is
//      conn id u32 BE | payload length u32 BE | payload
//    with a payload of at most 10 + 4 MiB (one whole ttrpc message); a longer write is cut into
//    several frames, so a ttrpc message may span frames and a frame may hold parts of two.
//    Connection 1 carries the Plugin service (the runtime calls the plugin), connection 2 the
//    Runtime service (the plugin calls RegisterPlugin). Id 0 is reserved.
//
// 2. ttrpc (github.com/containerd/ttrpc channel.go) on each logical stream: a message is
//      length u32 BE | stream id u32 BE | type u8 | flags u8 | payload
//    type 1 a Request {service, method, payload, timeout_nano, metadata}, type 2 a Response
//    {status google.rpc.Status {code, message}, payload}; a payload of at most 4 MiB. A client
//    numbers its calls with odd stream ids 1, 3, 5, ...; the answer carries the call's id.
//
// Readers take bytes as they arrive and hand out whole frames / messages; what breaks the rules
// (a reserved conn id, an oversized frame or message, an unknown message type, a malformed
// protobuf) is one error that names it. Nothing here touches a socket.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"

namespace podlimits::nri {

inline constexpr std::uint32_t kPluginServiceConn = 1;
inline constexpr std::uint32_t kRuntimeServiceConn = 2;
inline constexpr std::size_t kMuxHeaderLength = 8;
inline constexpr std::size_t kTtrpcHeaderLength = 10;
inline constexpr std::size_t kTtrpcMessageLengthMax = 4u << 20;
inline constexpr std::size_t kMuxPayloadMax = kTtrpcHeaderLength + kTtrpcMessageLengthMax;

enum class TtrpcType : std::uint8_t { kRequest = 1, kResponse = 2, kData = 3 };

struct MuxFrame {
  std::uint32_t conn = 0;
  std::string payload;
};

// Whole frames from the socket's byte stream.
class MuxReader {
 public:
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole frame, nullopt when more bytes are needed, an error for a broken frame (the
  // connection cannot be trusted after it).
  Result<std::optional<MuxFrame>> Next();
  // Bytes of a frame begun but not finished (a truncated frame when the socket closes).
  std::size_t Pending() const { return buffer_.size() - pos_; }

 private:
  std::string buffer_;
  std::size_t pos_ = 0;
};

// `data` as the frames of logical connection `conn`.
std::string MuxFrames(std::uint32_t conn, std::string_view data);

struct TtrpcMessage {
  std::uint32_t stream_id = 0;
  TtrpcType type = TtrpcType::kRequest;
  std::uint8_t flags = 0;
  std::string payload;
};

// Whole ttrpc messages from one logical connection's byte stream.
class TtrpcReader {
 public:
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  Result<std::optional<TtrpcMessage>> Next();
  std::size_t Pending() const { return buffer_.size() - pos_; }

 private:
  std::string buffer_;
  std::size_t pos_ = 0;
};

std::string TtrpcMessageBytes(std::uint32_t stream_id, TtrpcType type, std::string_view payload);

struct TtrpcRequest {
  std::string service;  // "nri.pkg.api.v1alpha1.Plugin"
  std::string method;   // "CreateContainer"
  std::string payload;
  std::int64_t timeout_nano = 0;
};
Result<TtrpcRequest> DecodeTtrpcRequest(std::string_view bytes);
std::string EncodeTtrpcRequest(const TtrpcRequest& request);

// gRPC's status codes the plugin answers with.
inline constexpr int kCodeOk = 0;
inline constexpr int kCodeInvalidArgument = 3;
inline constexpr int kCodeFailedPrecondition = 9;
inline constexpr int kCodeUnimplemented = 12;
inline constexpr int kCodeInternal = 13;

struct TtrpcResponse {
  int code = kCodeOk;
  std::string message;  // the error, when code != 0
  std::string payload;
};
Result<TtrpcResponse> DecodeTtrpcResponse(std::string_view bytes);
std::string EncodeTtrpcResponse(const TtrpcResponse& response);

}  // namespace podlimits::nri
