// The SPDY/3.1 frames a port-forward client sends (apiserver/spdy_frames.h): any bytes, in
// pieces of any size, give frames or an error, never a crash or a header block past its limit.
// Every frame read is written back and read again by a second reader, which must agree.
//
// Input: the first byte sets the piece size (1..256), the rest is the stream. A valid start is
// in the corpus: two SYN_STREAMs as kubectl sends them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "streaming/spdy_frames.h"

using namespace podlimits::streaming::spdy;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = static_cast<std::size_t>(data[0]) + 1;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  FrameReader reader;
  FrameWriter writer;
  FrameReader echo;
  while (!in.empty()) {
    reader.Feed(in.substr(0, piece));
    in.remove_prefix(std::min(piece, in.size()));
    while (true) {
      auto next = reader.Next();
      if (!next) return 0;  // not SPDY/3: the session would end here
      if (!*next) break;
      const Frame& f = **next;
      if (f.data.size() > kMaxPayload) std::abort();
      std::string again;
      switch (f.type) {
        case FrameType::kSynStream:
          again = writer.SynStream(f.stream_id, f.headers, f.fin());
          break;
        case FrameType::kSynReply:
          again = writer.SynReply(f.stream_id, f.headers, f.fin());
          break;
        case FrameType::kData:
          again = FrameWriter::Data(f.stream_id, f.data, f.fin());
          break;
        default:
          continue;
      }
      echo.Feed(again);
      auto back = echo.Next();
      if (!back || !*back || (*back)->type != f.type || (*back)->stream_id != f.stream_id ||
          (*back)->headers != f.headers || (*back)->data != f.data) {
        std::abort();
      }
    }
  }
  return 0;
}
