// Where a container's stdout and stderr go. The pod worker reads each container's pipes and
// feeds what it reads to a sink that its caller's ContainerOutput opened for that container and
// stream: `podlimits run` prints the lines prefixed with the container's name; the node agent
// keeps them as log files instead.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace podlimits::cri {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Bytes as the container wrote them, in order.
  virtual void Feed(std::string_view data) = 0;
  // End of the stream (the container exited or closed it).
  virtual void Finish() = 0;
};

enum class OutputStream { kStdout, kStderr };

class ContainerOutput {
 public:
  virtual ~ContainerOutput() = default;
  // A sink for one run of `container`'s `stream`; `restart` counts the container's runs from 0
  // (its restartCount when this run started).
  virtual std::unique_ptr<OutputSink> Open(std::string_view container, int restart,
                                           OutputStream stream) = 0;
};

// A container's output as `podlimits run` prints it: each line prefixed with the container's
// name, "[web] hello", so that the lines of several containers stay apart. Lines are written
// whole (one write(2) each), so lines of different containers never interleave mid-line; a last
// line without a newline is completed at end of stream.
class OutputPrefixer : public OutputSink {
 public:
  // `out_fd`: where the prefixed lines go (stdout or stderr of podlimits).
  OutputPrefixer(std::string prefix, int out_fd) : prefix_(std::move(prefix)), out_fd_(out_fd) {}

  // Appends `data`; writes every line it completes.
  void Feed(std::string_view data) override;
  // Writes what is left, with a newline added.
  void Finish() override;

  // Bytes held while waiting for a newline; a line longer than this is written in pieces.
  static constexpr std::size_t kMaxLine = 64 * 1024;

 private:
  void WriteLine(std::string_view line);

  std::string prefix_;
  int out_fd_;
  std::string pending_;
};

// Every container's stdout and stderr, prefixed with its name, to one descriptor.
class PrefixedOutput : public ContainerOutput {
 public:
  explicit PrefixedOutput(int out_fd) : out_fd_(out_fd) {}
  std::unique_ptr<OutputSink> Open(std::string_view container, int restart,
                                   OutputStream stream) override;

 private:
  int out_fd_;
};

// Reads what `fd` has now (non-blocking) and feeds it; returns false at end of stream or on a
// read error other than EAGAIN/EINTR.
bool PumpOnce(int fd, OutputSink& sink);

}  // namespace podlimits::cri
