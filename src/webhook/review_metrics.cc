#include "webhook/review_metrics.h"

#include <fmt/format.h>

namespace podlimits::webhook {

namespace {

constexpr std::array<const char*, 2> kPathNames = {"validate", "mutate"};
constexpr std::array<const char*, 3> kResultNames = {"allowed", "denied", "malformed"};

// Prometheus' float formatting: shortest round trip, +Inf spelt so.
std::string Bound(double v) { return fmt::format("{}", v); }

}  // namespace

void ReviewMetrics::Record(ReviewPath path, ReviewResult result, std::chrono::nanoseconds took) {
  PerPath& p = paths_[static_cast<std::size_t>(path)];
  p.results[static_cast<std::size_t>(result)].fetch_add(1, std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(took).count();
  std::size_t bucket = kBuckets.size();
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      bucket = i;
      break;
    }
  }
  p.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  p.nanos.fetch_add(static_cast<std::uint64_t>(took.count()), std::memory_order_relaxed);
}

std::string ReviewMetrics::Exposition() const {
  std::string out;
  out += "# HELP podlimits_webhook_reviews_total AdmissionReviews answered, by path and result.\n";
  out += "# TYPE podlimits_webhook_reviews_total counter\n";
  for (std::size_t p = 0; p < paths_.size(); ++p) {
    for (std::size_t r = 0; r < kResultNames.size(); ++r) {
      out += fmt::format("podlimits_webhook_reviews_total{{path=\"{}\",result=\"{}\"}} {}\n",
                         kPathNames[p], kResultNames[r],
                         paths_[p].results[r].load(std::memory_order_relaxed));
    }
  }
  out += "# HELP podlimits_webhook_review_duration_seconds Time to answer one AdmissionReview, "
         "from its body to the response's.\n";
  out += "# TYPE podlimits_webhook_review_duration_seconds histogram\n";
  for (std::size_t p = 0; p < paths_.size(); ++p) {
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b <= kBuckets.size(); ++b) {
      cumulative += paths_[p].buckets[b].load(std::memory_order_relaxed);
      out += fmt::format(
          "podlimits_webhook_review_duration_seconds_bucket{{path=\"{}\",le=\"{}\"}} {}\n",
          kPathNames[p], b < kBuckets.size() ? Bound(kBuckets[b]) : "+Inf", cumulative);
    }
    out += fmt::format("podlimits_webhook_review_duration_seconds_sum{{path=\"{}\"}} {}\n",
                       kPathNames[p],
                       Bound(static_cast<double>(paths_[p].nanos.load(std::memory_order_relaxed)) /
                             1e9));
    out += fmt::format("podlimits_webhook_review_duration_seconds_count{{path=\"{}\"}} {}\n",
                       kPathNames[p], cumulative);
  }
  return out;
}

}  // namespace podlimits::webhook
