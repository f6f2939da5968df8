#include "validation/cron_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "field/field.h"

namespace podlimits::validation {
namespace {

constexpr std::uint64_t kStarBit = std::uint64_t{1} << 63;

struct Bounds {
  unsigned min, max;
  std::array<std::string_view, 12> names;  // index + names_base is the value
  unsigned names_base;
  std::size_t names_count;
};

constexpr Bounds kMinutes{0, 59, {}, 0, 0};
constexpr Bounds kHours{0, 23, {}, 0, 0};
constexpr Bounds kDom{1, 31, {}, 0, 0};
constexpr Bounds kMonths{
    1, 12, {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}, 1, 12};
constexpr Bounds kDow{0, 6, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}, 0, 7};

Error Fail(std::string message) { return Error{.detail = std::move(message)}; }

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// strings.Fields: runs of ASCII white space separate.
std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (i < s.size()) {
    while (i < s.size() && space(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !space(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// mustParseInt: strconv.Atoi, then not negative.
Result<unsigned> ParseInt(std::string_view expr) {
  std::string_view digits = expr;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  long long value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || end != digits.data() + digits.size() || ec == std::errc::invalid_argument) {
    return std::unexpected(Fail(fmt::format("failed to parse int from {}: strconv.Atoi: parsing {}: invalid syntax",
                                            expr, field::GoQuote(expr))));
  }
  if (ec == std::errc::result_out_of_range) {
    return std::unexpected(Fail(fmt::format(
        "failed to parse int from {}: strconv.Atoi: parsing {}: value out of range", expr, field::GoQuote(expr))));
  }
  if (negative) value = -value;
  if (value < 0) return std::unexpected(Fail(fmt::format("negative number ({}) not allowed: {}", value, expr)));
  return static_cast<unsigned>(std::min<long long>(value, 1u << 30));
}

Result<unsigned> ParseIntOrName(std::string_view expr, const Bounds& r) {
  std::string lower(expr);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < r.names_count; ++i) {
    if (r.names[i] == lower) return static_cast<unsigned>(i) + r.names_base;
  }
  return ParseInt(expr);
}

std::uint64_t Bits(unsigned min, unsigned max, unsigned step) {
  std::uint64_t bits = 0;
  for (unsigned i = min; i <= max; i += step) bits |= std::uint64_t{1} << i;
  return bits;
}

Result<std::uint64_t> ParseRange(std::string_view expr, const Bounds& r) {
  const auto range_and_step = Split(expr, '/');
  const auto low_and_high = Split(range_and_step[0], '-');
  const bool single = low_and_high.size() == 1;
  unsigned start = 0, end = 0, step = 1;
  std::uint64_t extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = r.min;
    end = r.max;
    extra = kStarBit;
  } else {
    auto s = ParseIntOrName(low_and_high[0], r);
    if (!s) return std::unexpected(s.error());
    start = *s;
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      auto e = ParseIntOrName(low_and_high[1], r);
      if (!e) return std::unexpected(e.error());
      end = *e;
    } else {
      return std::unexpected(Fail(fmt::format("too many hyphens: {}", expr)));
    }
  }
  if (range_and_step.size() == 2) {
    auto s = ParseInt(range_and_step[1]);
    if (!s) return std::unexpected(s.error());
    step = *s;
    // "N/step" means "N-max/step".
    if (single) end = r.max;
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return std::unexpected(Fail(fmt::format("too many slashes: {}", expr)));
  }
  if (start < r.min) {
    return std::unexpected(Fail(fmt::format("beginning of range ({}) below minimum ({}): {}", start, r.min, expr)));
  }
  if (end > r.max) {
    return std::unexpected(Fail(fmt::format("end of range ({}) above maximum ({}): {}", end, r.max, expr)));
  }
  if (start > end) {
    return std::unexpected(Fail(fmt::format("beginning of range ({}) beyond end of range ({}): {}", start, end, expr)));
  }
  if (step == 0) {
    return std::unexpected(Fail(fmt::format("step of range should be a positive number: {}", expr)));
  }
  return Bits(start, end, step) | extra;
}

Result<std::uint64_t> ParseField(std::string_view text, const Bounds& r) {
  std::uint64_t bits = 0;
  for (std::string_view expr : Split(text, ',')) {
    if (expr.empty()) continue;  // strings.FieldsFunc drops empty ranges
    auto b = ParseRange(expr, r);
    if (!b) return b;
    bits |= *b;
  }
  return bits;
}

// time.ParseDuration, in whole nanoseconds.
Result<long double> ParseGoDuration(std::string_view orig) {
  auto invalid = [&] { return std::unexpected(Fail("time: invalid duration " + field::GoQuote(orig))); };
  std::string_view s = orig;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0.0L;
  if (s.empty()) return invalid();
  long double total = 0;
  while (!s.empty()) {
    // [digits][.digits], at least one digit.
    std::size_t i = 0, digits = 0;
    auto scan = [&] {
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
    };
    scan();
    if (i < s.size() && s[i] == '.') {
      ++i;
      scan();
    }
    if (digits == 0) return invalid();
    std::string_view number = s.substr(0, i);
    s.remove_prefix(i);
    std::size_t j = 0;
    while (j < s.size() && s[j] != '.' && !std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    std::string_view unit = s.substr(0, j);
    s.remove_prefix(j);
    if (unit.empty()) return std::unexpected(Fail("time: missing unit in duration " + field::GoQuote(orig)));
    long double scale = 0;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") scale = 1e3L;
    else if (unit == "ms") scale = 1e6L;
    else if (unit == "s") scale = 1e9L;
    else if (unit == "m") scale = 60e9L;
    else if (unit == "h") scale = 3600e9L;
    else {
      return std::unexpected(Fail("time: unknown unit " + field::GoQuote(unit) + " in duration " +
                                  field::GoQuote(orig)));
    }
    total += std::stold(std::string(number)) * scale;
  }
  if (total > 9.223372036854775807e18L) return invalid();
  return negative ? -total : total;
}

struct Civil {
  long long year;
  int month, day, hour, minute, second;
};

long long FloorDiv(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

Civil ToCivil(std::int64_t unix, const TimeZone& zone) {
  const std::int64_t local = unix + zone.Lookup(unix).seconds;
  const long long days = FloorDiv(local, 86400);
  const long long secs = local - days * 86400;
  const std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  return {int(ymd.year()), int(unsigned(ymd.month())), int(unsigned(ymd.day())), int(secs / 3600),
          int(secs / 60 % 60), int(secs % 60)};
}

int Weekday(std::int64_t unix, const TimeZone& zone) {
  const std::int64_t local = unix + zone.Lookup(unix).seconds;
  return static_cast<int>(((FloorDiv(local, 86400) + 4) % 7 + 7) % 7);  // 1970-01-01: Thursday
}

// time.Date: the civil time normalised (month 13 is January of the next year, day 0 the last of
// the month before), in `zone` with Go's choice of offset around a transition.
std::int64_t FromCivil(long long year, long long month, long long day, long long hour,
                       long long minute, long long second, const TimeZone& zone) {
  const long long m0 = month - 1;
  year += FloorDiv(m0, 12);
  month = m0 - FloorDiv(m0, 12) * 12 + 1;
  const std::chrono::sys_days first = std::chrono::year_month_day{
      std::chrono::year{static_cast<int>(year)}, std::chrono::month{static_cast<unsigned>(month)},
      std::chrono::day{1}};
  std::int64_t unix = (first.time_since_epoch().count() + day - 1) * 86400LL + hour * 3600 +
                      minute * 60 + second;
  TimeZone::Offset offset = zone.Lookup(unix);
  if (offset.seconds != 0) {
    const std::int64_t utc = unix - offset.seconds;
    if (utc < offset.start || utc >= offset.end) offset = zone.Lookup(utc);
    unix -= offset.seconds;
  }
  return unix;
}

bool Has(std::uint64_t bits, int i) { return (bits >> i) & 1; }

}  // namespace

std::optional<std::chrono::sys_seconds> CronSchedule::Next(std::chrono::sys_seconds at) const {
  std::int64_t t = at.time_since_epoch().count();
  if (every_) return std::chrono::sys_seconds{std::chrono::seconds{t + *every_}};
  const TimeZone& z = zone_;
  // robfig's SpecSchedule.Next: the upcoming second, then each field from the month down;
  // a field that wraps starts the search again from the month.
  t += 1;
  bool added = false;
  const long long year_limit = ToCivil(t, z).year + 5;
  auto truncate_to = [&](int field) {
    if (added) return;
    added = true;
    const Civil c = ToCivil(t, z);
    switch (field) {
      case 0: t = FromCivil(c.year, c.month, 1, 0, 0, 0, z); break;
      case 1: t = FromCivil(c.year, c.month, c.day, 0, 0, 0, z); break;
      case 2: t = FromCivil(c.year, c.month, c.day, c.hour, 0, 0, z); break;
      default: t -= ((t % 60) + 60) % 60; break;
    }
  };
wrap:
  if (ToCivil(t, z).year > year_limit) return std::nullopt;
  while (!Has(month_, ToCivil(t, z).month)) {
    truncate_to(0);
    const Civil c = ToCivil(t, z);
    t = FromCivil(c.year, c.month + 1, c.day, c.hour, c.minute, c.second, z);
    if (ToCivil(t, z).month == 1) goto wrap;
  }
  for (;;) {
    const Civil c = ToCivil(t, z);
    const bool dom = Has(dom_, c.day);
    const bool dow = Has(dow_, Weekday(t, z));
    const bool match = (dom_ & kStarBit) || (dow_ & kStarBit) ? dom && dow : dom || dow;
    if (match) break;
    truncate_to(1);
    const Civil d = ToCivil(t, z);
    t = FromCivil(d.year, d.month, d.day + 1, d.hour, d.minute, d.second, z);
    // A DST change moves midnight: back to it.
    if (const int h = ToCivil(t, z).hour; h != 0) t += h > 12 ? (24 - h) * 3600LL : -h * 3600LL;
    if (ToCivil(t, z).day == 1) goto wrap;
  }
  while (!Has(hour_, ToCivil(t, z).hour)) {
    truncate_to(2);
    t += 3600;
    if (ToCivil(t, z).hour == 0) goto wrap;
  }
  while (!Has(minute_, ToCivil(t, z).minute)) {
    truncate_to(3);
    t += 60;
    if (ToCivil(t, z).minute == 0) goto wrap;
  }
  // The second field of a standard schedule is 0.
  if (ToCivil(t, z).second != 0) {
    if (!added) added = true;
    t += 60 - ToCivil(t, z).second;
    goto wrap;
  }
  return std::chrono::sys_seconds{std::chrono::seconds{t}};
}

Result<CronSchedule> ParseCronSchedule(std::string_view spec, const TimeZone& local) {
  if (spec.empty()) return std::unexpected(Fail("empty spec string"));
  CronSchedule out;
  out.zone_ = local;
  if (spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
    const std::size_t eq = spec.find('=');
    const std::size_t space = spec.find(' ');
    // robfig slices up to the first space; without one Go panics, which the apiserver's
    // handler answers 500 with. A readable refusal here.
    const std::string_view name =
        space == std::string_view::npos || space < eq ? spec.substr(eq + 1) : spec.substr(eq + 1, space - eq - 1);
    auto zone = LoadTimeZone(name);
    if (!zone) {
      return std::unexpected(Fail(fmt::format("provided bad location {}: {}", name, zone.error().detail)));
    }
    out.zone_ = std::move(*zone);
    spec = space == std::string_view::npos ? std::string_view() : spec.substr(space);
    while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.front()))) spec.remove_prefix(1);
    while (!spec.empty() && std::isspace(static_cast<unsigned char>(spec.back()))) spec.remove_suffix(1);
  }
  if (spec.starts_with('@')) {
    struct Descriptor {
      std::string_view name;
      std::uint64_t dom, month, dow, hour;
    };
    const std::uint64_t all_dom = Bits(1, 31, 1) | kStarBit, all_months = Bits(1, 12, 1) | kStarBit,
                        all_dow = Bits(0, 6, 1) | kStarBit, all_hours = Bits(0, 23, 1) | kStarBit;
    const Descriptor descriptors[] = {
        {"@yearly", 1 << 1, 1 << 1, all_dow, 1},      {"@annually", 1 << 1, 1 << 1, all_dow, 1},
        {"@monthly", 1 << 1, all_months, all_dow, 1}, {"@weekly", all_dom, all_months, 1, 1},
        {"@daily", all_dom, all_months, all_dow, 1},  {"@midnight", all_dom, all_months, all_dow, 1},
        {"@hourly", all_dom, all_months, all_dow, all_hours},
    };
    for (const Descriptor& d : descriptors) {
      if (spec == d.name) {
        out.minute_ = 1;
        out.hour_ = d.hour;
        out.dom_ = d.dom;
        out.month_ = d.month;
        out.dow_ = d.dow;
        return out;
      }
    }
    constexpr std::string_view kEvery = "@every ";
    if (spec.starts_with(kEvery)) {
      auto nanos = ParseGoDuration(spec.substr(kEvery.size()));
      if (!nanos) {
        return std::unexpected(Fail(fmt::format("failed to parse duration {}: {}", spec, nanos.error().detail)));
      }
      // Every(): at least a second, rounded down to whole seconds.
      out.every_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(*nanos / 1e9L)));
      return out;
    }
    return std::unexpected(Fail(fmt::format("unrecognized descriptor: {}", spec)));
  }
  const std::vector<std::string_view> fields = Fields(spec);
  if (fields.size() != 5) {
    std::string list;
    for (std::size_t i = 0; i < fields.size(); ++i) list += (i ? " " : "") + std::string(fields[i]);
    return std::unexpected(Fail(fmt::format("expected exactly 5 fields, found {}: [{}]", fields.size(), list)));
  }
  const Bounds* bounds[] = {&kMinutes, &kHours, &kDom, &kMonths, &kDow};
  std::uint64_t* targets[] = {&out.minute_, &out.hour_, &out.dom_, &out.month_, &out.dow_};
  for (std::size_t i = 0; i < 5; ++i) {
    auto bits = ParseField(fields[i], *bounds[i]);
    if (!bits) return std::unexpected(bits.error());
    *targets[i] = *bits;
  }
  return out;
}

TimeZone LocalTimeZone() {
  auto zone = LoadTimeZone("localtime", "/etc");
  return zone ? *zone : TimeZone{};
}

}  // namespace podlimits::validation
