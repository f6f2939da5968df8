// A ResponseStream that keeps what a streamed response writes (a watch's events, one chunk
// each) and says the client has gone after `limit` of them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.h"

namespace podlimits::testing {

class StreamCollector : public http::ResponseStream {
 public:
  explicit StreamCollector(std::size_t limit) : limit_(limit) {}
  bool Write(std::string_view chunk) override {
    lines.emplace_back(chunk);
    return true;
  }
  bool Closed() override { return lines.size() >= limit_; }
  std::vector<std::string> lines;

 private:
  std::size_t limit_;
};

}  // namespace podlimits::testing
