// A ResponseStream that keeps what a streamed response writes, one event per entry (a watch
// writes its events in batches: JSON lines, or protobuf's length-prefixed frames), and says the
// client has gone after `limit` of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.h"

namespace podlimits::testing {

class StreamCollector : public http::ResponseStream {
 public:
  enum class Framing { kLines, kLengthPrefixed };
  explicit StreamCollector(std::size_t limit, Framing framing = Framing::kLines)
      : limit_(limit), framing_(framing) {}
  bool Write(std::string_view chunk) override {
    ++writes;
    pending_.append(chunk);
    for (std::size_t size = Next(); size != 0; size = Next()) {
      lines.push_back(pending_.substr(0, size));
      pending_.erase(0, size);
    }
    return true;
  }
  bool Closed() override { return lines.size() >= limit_; }
  std::vector<std::string> lines;  // the events, each with its newline or length prefix
  std::size_t writes = 0;          // the chunks they came in

 private:
  // The size of the first whole event pending, 0 when there is none yet.
  std::size_t Next() const {
    if (framing_ == Framing::kLines) {
      const std::size_t end = pending_.find('\n');
      return end == std::string::npos ? 0 : end + 1;
    }
    if (pending_.size() < 4) return 0;
    std::uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(pending_[i]);
    return pending_.size() - 4 < n ? 0 : 4 + std::size_t{n};
  }
  std::size_t limit_;
  Framing framing_;
  std::string pending_;
};

}  // namespace podlimits::testing
