#include "printers/human_duration.h"

#include <fmt/format.h>

#include <cstdio>

namespace podlimits::printers {

std::string HumanDuration(std::chrono::seconds d) {
  const long long seconds = d.count();
  // Up to a second in the future is "now", a clock's skew; more is invalid.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return fmt::format("{}s", seconds);
  const long long minutes = seconds / 60;
  if (minutes < 10) {
    const long long s = seconds % 60;
    return s == 0 ? fmt::format("{}m", minutes) : fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 60 * 3) return fmt::format("{}m", minutes);
  const long long hours = seconds / 3600;
  if (hours < 8) {
    const long long m = minutes % 60;
    return m == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    const long long h = hours % 24;
    return h == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    const long long dy = (hours / 24) % 365;
    return dy == 0 ? fmt::format("{}y", hours / 24 / 365)
                   : fmt::format("{}y{}d", hours / 24 / 365, dy);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

std::optional<std::chrono::sys_seconds> ParseApiTime(std::string_view text) {
  int y, mo, d, h, mi, s;
  char z = 0;
  if (text.size() != 20 ||
      std::sscanf(std::string(text).c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi,
                  &s, &z) != 7 ||
      z != 'Z') {
    return std::nullopt;
  }
  using namespace std::chrono;
  const year_month_day date{year{y}, month{static_cast<unsigned>(mo)},
                            day{static_cast<unsigned>(d)}};
  if (!date.ok() || h > 23 || mi > 59 || s > 60) return std::nullopt;
  return sys_days{date} + hours{h} + minutes{mi} + seconds{s};
}

std::string FormatApiTime(std::chrono::sys_seconds t) {
  using namespace std::chrono;
  const sys_days day = floor<days>(t);
  const year_month_day date{day};
  const hh_mm_ss<seconds> time{t - day};
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                     time.hours().count(), time.minutes().count(), time.seconds().count());
}

std::string AgeSince(std::string_view timestamp, std::chrono::sys_seconds now) {
  auto t = ParseApiTime(timestamp);
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

}  // namespace podlimits::printers
