// SPDY/3.1 framing (draft-mbelshe-httpbis-spdy-00 and the 3.1 revision), the wire under
// `kubectl port-forward`: kubectl 1.32 tunnels it inside a WebSocket ("SPDY/3.1+portforward.
// k8s.io", each binary message a piece of the byte stream) and speaks it through moby's
// spdystream, which is what this codec has to agree with.
//
// A frame is a control frame (bit 0 set, version 3, a type, flags, a 24-bit length) or a data
// frame (a 31-bit stream id, flags, a 24-bit length). Header blocks (SYN_STREAM, SYN_REPLY,
// HEADERS) are name/value pairs with 32-bit lengths, compressed by one zlib stream per direction
// for the whole connection, primed with the spec's dictionary and sync-flushed after each block
// (Debian's zlib does the deflate). Names are lowercase; a value holding several values joins
// them with NUL.
//
// Flow control (WINDOW_UPDATE, SETTINGS) is read and ignored, as spdystream does: neither side
// of kubectl's connection ever sends a window.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace podlimits::streaming::spdy {

enum class FrameType : std::uint16_t {
  kData = 0,  // not a control frame type: the marker for data frames
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9,
};

inline constexpr std::uint8_t kFlagFin = 0x01;  // data, SYN_STREAM, SYN_REPLY, HEADERS

// RST_STREAM status codes.
inline constexpr std::uint32_t kProtocolError = 1;
inline constexpr std::uint32_t kInvalidStream = 2;
inline constexpr std::uint32_t kRefusedStream = 3;
inline constexpr std::uint32_t kCancel = 5;

// The largest frame payload read (the length field's limit is 16 MiB; spdystream writes data in
// frames of at most 64 KiB) and the largest decompressed header block.
inline constexpr std::size_t kMaxPayload = 1 << 20;
inline constexpr std::size_t kMaxHeaderBlock = 256 << 10;

using Headers = std::vector<std::pair<std::string, std::string>>;

// The value of `name` (lowercase) in `headers`, or empty.
std::string_view HeaderValue(const Headers& headers, std::string_view name);

struct Frame {
  FrameType type = FrameType::kData;
  std::uint8_t flags = 0;
  std::uint32_t stream_id = 0;  // data, SYN_*, RST_STREAM, HEADERS, WINDOW_UPDATE; GOAWAY's last
  Headers headers;              // SYN_STREAM, SYN_REPLY, HEADERS
  std::string data;             // data frames
  std::uint32_t status = 0;     // RST_STREAM, GOAWAY
  std::uint32_t ping_id = 0;    // PING
  bool fin() const { return (flags & kFlagFin) != 0; }
};

// The SPDY/3 header dictionary (1423 bytes).
std::string_view HeaderDictionary();

// One direction's header compression state (a zlib deflate stream).
class HeaderCompressor {
 public:
  HeaderCompressor();
  ~HeaderCompressor();
  HeaderCompressor(const HeaderCompressor&) = delete;
  HeaderCompressor& operator=(const HeaderCompressor&) = delete;
  // The compressed block for `headers` (names lowercased; a name that repeats is sent once,
  // its values joined by NUL), sync-flushed.
  std::string Compress(const Headers& headers);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The other direction's (a zlib inflate stream, given the dictionary when it asks).
class HeaderDecompressor {
 public:
  HeaderDecompressor();
  ~HeaderDecompressor();
  HeaderDecompressor(const HeaderDecompressor&) = delete;
  HeaderDecompressor& operator=(const HeaderDecompressor&) = delete;
  Result<Headers> Decompress(std::string_view block);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Reads frames from a byte stream that arrives in pieces of any size.
class FrameReader {
 public:
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole frame; nullopt until enough bytes came; an error for a stream that is not
  // SPDY/3 (the connection cannot go on after one: the header stream is out of step).
  Result<std::optional<Frame>> Next();

 private:
  std::string buffer_;
  std::size_t offset_ = 0;
  HeaderDecompressor headers_;
};

// Writes frames; header blocks go through this direction's compressor.
class FrameWriter {
 public:
  std::string SynStream(std::uint32_t stream_id, const Headers& headers, bool fin);
  std::string SynReply(std::uint32_t stream_id, const Headers& headers, bool fin);
  static std::string Data(std::uint32_t stream_id, std::string_view data, bool fin);
  static std::string RstStream(std::uint32_t stream_id, std::uint32_t status);
  static std::string Ping(std::uint32_t id);
  static std::string GoAway(std::uint32_t last_good_stream_id, std::uint32_t status);

 private:
  HeaderCompressor headers_;
};

}  // namespace podlimits::streaming::spdy
