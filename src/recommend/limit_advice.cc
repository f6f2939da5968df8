#include "recommend/limit_advice.h"

#include <fmt/format.h>

namespace podlimits::recommend {
namespace {

LimitAdvice Advise(std::int64_t peak, std::int64_t headroom_percent, std::int64_t min,
                   std::int64_t max) {
  LimitAdvice a;
  a.peak = peak;
  // ceil(peak * (100 + h) / 100) in integers.
  a.with_headroom = (peak * (100 + headroom_percent) + 99) / 100;
  a.limit = a.with_headroom;
  if (a.limit < min) {
    a.limit = min;
    a.bound = LimitAdvice::Bound::kRaisedToMinimum;
  } else if (a.limit > max) {
    a.limit = max;
    a.bound = LimitAdvice::Bound::kCappedAtMaximum;
  }
  return a;
}

}  // namespace

LimitAdvice AdvisePodPidLimit(std::int64_t peak, std::int64_t headroom_percent) {
  return Advise(peak, headroom_percent, kMinPodPidLimit, kMaxPodPidLimit);
}

LimitAdvice AdviseNofile(std::int64_t peak, std::int64_t headroom_percent) {
  return Advise(peak, headroom_percent, kMinNofile, kMaxNofile);
}

std::string Explain(const LimitAdvice& a, std::int64_t headroom_percent) {
  std::string text =
      fmt::format("peak {} + {}% = {}", a.peak, headroom_percent, a.with_headroom);
  switch (a.bound) {
    case LimitAdvice::Bound::kNone:
      break;
    case LimitAdvice::Bound::kRaisedToMinimum:
      text += fmt::format(", raised to the minimum {}", a.limit);
      break;
    case LimitAdvice::Bound::kCappedAtMaximum:
      text += fmt::format(", capped at the maximum {}: less headroom than asked", a.limit);
      break;
  }
  return text;
}

}  // namespace podlimits::recommend
