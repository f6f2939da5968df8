// A terminated container's status message, as the kubelet makes it: the file the container wrote
// at terminationMessagePath (its first 4096 bytes), or with terminationMessagePolicy
// FallbackToLogsOnError and a failed exit the last 80 lines of its output (at most 2048 bytes),
// which TailKeepingSink keeps while the container runs.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "api/objects.h"
#include "cri/container_output.h"

namespace podlimits::kubelet {

// The kubelet's bounds for a termination message: the file's first 4096 bytes; from the logs
// (FallbackToLogsOnError) the last 80 lines, at most 2048 bytes.
inline constexpr std::size_t kMaxTerminationMessage = 4096;
inline constexpr std::size_t kMaxTerminationLogBytes = 2048;
inline constexpr std::size_t kMaxTerminationLogLines = 80;

// Passes output on and keeps its last kMaxTerminationLogBytes.
class TailKeepingSink : public cri::OutputSink {
 public:
  TailKeepingSink(std::unique_ptr<cri::OutputSink> inner, std::string* tail)
      : inner_(std::move(inner)), tail_(tail) {}
  void Feed(std::string_view data) override {
    inner_->Feed(data);
    tail_->append(data);
    if (tail_->size() > kMaxTerminationLogBytes) {
      tail_->erase(0, tail_->size() - kMaxTerminationLogBytes);
    }
  }
  void Finish() override { inner_->Finish(); }

 private:
  std::unique_ptr<cri::OutputSink> inner_;
  std::string* tail_;
};

// What the kubelet puts in a terminated container's status message.
std::string TerminationMessage(const api::Container& c, const std::filesystem::path& file,
                               int exit_code, const std::string& log_tail);

}  // namespace podlimits::kubelet
