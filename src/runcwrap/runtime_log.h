// podlimits-runc's messages, written where the shim reads the runtime's: the file runc's --log
// option names, in its --log-format (json: one {"level","msg","time"} object per line, as
// containerd's shim parses it to report "OCI runtime create failed: MSG"; text: logrus's
// `time="..." level=... msg="..."`). Errors also go to stderr, which CRI-O's conmon and a
// person at a terminal read. Without --log, stderr alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace podlimits::runcwrap {

class RuntimeLog {
 public:
  RuntimeLog(std::optional<std::string> file, std::string format)
      : file_(std::move(file)), format_(std::move(format)) {}

  void Info(std::string_view message) const { Write("info", message); }
  void Warning(std::string_view message) const { Write("warning", message); }
  // Also printed on stderr as `podlimits-runc: MESSAGE`.
  void Error(std::string_view message) const;

  // The line for one message (without the newline), in the log's format.
  std::string Line(std::string_view level, std::string_view message,
                   std::string_view time) const;

 private:
  void Write(std::string_view level, std::string_view message) const;

  std::optional<std::string> file_;
  std::string format_;
};

}  // namespace podlimits::runcwrap
