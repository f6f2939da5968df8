// The webhook's /metrics: how many reviews it answered and how (allowed, denied, malformed)
// and how long answering took, per path, in the Prometheus text format (base/prometheus_text.h).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace podlimits::webhook {

enum class ReviewPath { kValidate, kMutate };
enum class ReviewResult { kAllowed, kDenied, kMalformed };

class ReviewMetrics {
 public:
  // Upper bounds of the latency histogram's buckets, in seconds (+Inf besides).
  static constexpr std::array<double, 9> kBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                     0.005,  0.01,    0.025,  0.1};

  void Record(ReviewPath path, ReviewResult result, std::chrono::nanoseconds took);
  std::string Exposition() const;

 private:
  struct PerPath {
    std::array<std::atomic<std::uint64_t>, 3> results{};
    std::array<std::atomic<std::uint64_t>, kBuckets.size() + 1> buckets{};  // not cumulative
    std::atomic<std::uint64_t> nanos{0};
  };
  std::array<PerPath, 2> paths_;
};

}  // namespace podlimits::webhook
