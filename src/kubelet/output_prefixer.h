// A container's output as `podlimits run` prints it: each line prefixed with the container's
// name, "[web] hello", so that the lines of several containers stay apart. Lines are written
// whole (one write(2) each), so lines of different containers never interleave mid-line; a last
// line without a newline is completed at end of stream.
#pragma once

#include <string>
#include <string_view>

namespace podlimits::kubelet {

class OutputPrefixer {
 public:
  // `out_fd`: where the prefixed lines go (stdout or stderr of podlimits).
  OutputPrefixer(std::string prefix, int out_fd) : prefix_(std::move(prefix)), out_fd_(out_fd) {}

  // Appends `data`; writes every line it completes.
  void Feed(std::string_view data);
  // Writes what is left, with a newline added.
  void Finish();

  // Bytes held while waiting for a newline; a line longer than this is written in pieces.
  static constexpr std::size_t kMaxLine = 64 * 1024;

 private:
  void WriteLine(std::string_view line);

  std::string prefix_;
  int out_fd_;
  std::string pending_;
};

// Reads what `fd` has now (non-blocking) and feeds it; returns false at end of stream or on a
// read error other than EAGAIN/EINTR.
bool PumpOnce(int fd, OutputPrefixer& prefixer);

}  // namespace podlimits::kubelet
