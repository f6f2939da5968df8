#include "runcwrap/runtime_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "base/clock_text.h"
#include "base/unique_fd.h"
#include "codec/json_codec.h"
#include "codec/node.h"
#include "field/field.h"

namespace podlimits::runcwrap {

std::string RuntimeLog::Line(std::string_view level, std::string_view message,
                             std::string_view time) const {
  if (format_ == "json") {
    codec::Node line = codec::Node::Object();
    line.Set("level", codec::Node::String(std::string(level)));
    line.Set("msg", codec::Node::String(std::string(message)));
    line.Set("time", codec::Node::String(std::string(time)));
    return codec::EncodeJson(line, 0);
  }
  return fmt::format("time={} level={} msg={}", field::GoQuote(time), level,
                     field::GoQuote(message));
}

void RuntimeLog::Write(std::string_view level, std::string_view message) const {
  if (!file_ || file_->empty()) return;
  UniqueFd fd(::open(file_->c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) {
    std::fprintf(stderr, "podlimits-runc: open log %s: %s\n", file_->c_str(), strerror(errno));
    return;
  }
  // One write(2) per line: the runtime appends to the same file, and O_APPEND keeps whole
  // lines apart.
  std::string line = Line(level, message, Rfc3339NanoNow()) + "\n";
  if (::write(fd.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    std::fprintf(stderr, "podlimits-runc: write log %s: %s\n", file_->c_str(), strerror(errno));
  }
}

void RuntimeLog::Error(std::string_view message) const {
  Write("error", message);
  std::fprintf(stderr, "podlimits-runc: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

}  // namespace podlimits::runcwrap
