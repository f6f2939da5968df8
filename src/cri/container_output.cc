#include "cri/container_output.h"

#include <unistd.h>

#include <cerrno>

namespace podlimits::cri {

void OutputPrefixer::WriteLine(std::string_view line) {
  std::string out;
  out.reserve(prefix_.size() + line.size() + 1);
  out += prefix_;
  out += line;
  out += '\n';
  std::string_view rest = out;
  while (!rest.empty()) {
    ssize_t n = write(out_fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // our own stdout is gone: nothing sensible left to do with the line
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputPrefixer::Feed(std::string_view data) {
  while (!data.empty()) {
    auto nl = data.find('\n');
    if (nl == std::string_view::npos) {
      pending_.append(data);
      while (pending_.size() >= kMaxLine) {
        WriteLine(std::string_view(pending_).substr(0, kMaxLine));
        pending_.erase(0, kMaxLine);
      }
      return;
    }
    if (pending_.empty()) {
      WriteLine(data.substr(0, nl));
    } else {
      pending_.append(data.substr(0, nl));
      WriteLine(pending_);
      pending_.clear();
    }
    data.remove_prefix(nl + 1);
  }
}

void OutputPrefixer::Finish() {
  if (pending_.empty()) return;
  WriteLine(pending_);
  pending_.clear();
}

std::unique_ptr<OutputSink> PrefixedOutput::Open(std::string_view container, int, OutputStream) {
  return std::make_unique<OutputPrefixer>("[" + std::string(container) + "] ", out_fd_);
}

bool PumpOnce(int fd, OutputSink& sink) {
  char buf[16384];
  // A bounded number of reads, so one chatty container cannot starve the others' pipes.
  for (int reads = 0; reads < 16; ++reads) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      sink.Feed(std::string_view(buf, static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;  // EOF or error
  }
  return true;
}

}  // namespace podlimits::cri
