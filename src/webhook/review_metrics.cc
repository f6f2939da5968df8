#include "webhook/review_metrics.h"

#include "base/prometheus_text.h"

namespace podlimits::webhook {

namespace {

constexpr std::array<const char*, 2> kPathNames = {"validate", "mutate"};
constexpr std::array<const char*, 3> kResultNames = {"allowed", "denied", "malformed"};

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
  PrometheusText out;
  out.Family("podlimits_webhook_reviews_total", "AdmissionReviews answered, by path and result.",
             MetricType::kCounter);
  for (std::size_t p = 0; p < paths_.size(); ++p) {
    for (std::size_t r = 0; r < kResultNames.size(); ++r) {
      out.Sample({{"path", kPathNames[p]}, {"result", kResultNames[r]}},
                 paths_[p].results[r].load(std::memory_order_relaxed));
    }
  }
  out.Family("podlimits_webhook_review_duration_seconds",
             "Time to answer one AdmissionReview, from its body to the response's.",
             MetricType::kHistogram);
  for (std::size_t p = 0; p < paths_.size(); ++p) {
    std::array<std::uint64_t, kBuckets.size() + 1> counts{};
    for (std::size_t b = 0; b < counts.size(); ++b) {
      counts[b] = paths_[p].buckets[b].load(std::memory_order_relaxed);
    }
    const double seconds =
        static_cast<double>(paths_[p].nanos.load(std::memory_order_relaxed)) / 1e9;
    out.Histogram({{"path", kPathNames[p]}}, kBuckets, counts, seconds);
  }
  return std::move(out).text();
}

}  // namespace podlimits::webhook
