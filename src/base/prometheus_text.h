// The Prometheus text exposition format (version 0.0.4), written for values computed when
// scraped: the kubelet's registry, the node agent's gauges, the process collector's figures,
// the webhook's and the HTTPS listener's counters all go through this one writer.
//
//   # HELP NAME HELP-TEXT                 once per family, before its samples (\ and newline
//   # TYPE NAME counter|gauge|histogram   escaped in the help text)
//   NAME{LABEL="VALUE",...} VALUE         label values with \, " and newline escaped
//   NAME_bucket{...,le="BOUND"} N         a histogram: cumulative buckets in ascending order,
//   NAME_sum{...} S                       the last le="+Inf", then _sum and _count
//   NAME_count{...} N
//
// Values: integers as integers; floats in the shortest text that reads back to the same
// double, without an exponent for 1e-4 <= |v| < 1e16 ("0.0001", "1048576", "5007.9", "1e-05",
// "1e+16"), and the format's +Inf, -Inf and NaN.
//
// Names are checked when the program compiles: a metric name must match
// [a-zA-Z_:][a-zA-Z0-9_:]* and a label name [a-zA-Z_][a-zA-Z0-9_]* without a leading "__"
// (reserved for Prometheus itself); a constant that does not fails to build, so no scrape can
// ever produce text Prometheus refuses.
//
// Written here rather than with Debian's prometheus-cpp: bookworm's prometheus-cpp-dev 1.0.1
// ships only shared objects (no .a), and podlimits is one static binary; its development package
// also brings civetweb and libcurl along.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace podlimits {

constexpr bool IsMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

constexpr bool IsLabelName(std::string_view name) {
  return IsMetricName(name) && name.find(':') == std::string_view::npos && !name.starts_with("__");
}

// A metric family's name, checked at compile time (a constant that is not one does not build).
class MetricName {
 public:
  consteval MetricName(std::string_view name) : name_(name) {
    if (!IsMetricName(name)) throw "not a Prometheus metric name";
  }
  consteval MetricName(const char* name) : MetricName(std::string_view(name)) {}
  std::string_view view() const { return name_; }

 private:
  std::string_view name_;
};

// A label's name, checked at compile time as MetricName is.
class LabelName {
 public:
  consteval LabelName(const char* name) : name_(name) {
    if (!IsLabelName(name_)) throw "not a Prometheus label name (or one reserved by it)";
  }
  std::string_view view() const { return name_; }

 private:
  std::string_view name_;
};

struct MetricLabel {
  LabelName name;
  std::string_view value;  // any text: the writer escapes it
};

enum class MetricType { kCounter, kGauge, kHistogram };

// A float as the exposition format writes it (see the top of this file).
std::string PrometheusFloat(double value);

// One sample's value, as text: integers as such, floats by PrometheusFloat.
class SampleValue {
 public:
  template <std::integral T>
  SampleValue(T value) : text_(std::to_string(value)) {}
  SampleValue(double value) : text_(PrometheusFloat(value)) {}
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

class PrometheusText {
 public:
  // Starts a family: its # HELP and # TYPE lines. The samples written next are its own, until
  // the next Family. A family with no samples is only its two lines (a gauge not known yet).
  void Family(MetricName name, std::string_view help, MetricType type);

  // One sample of the current counter or gauge family.
  void Sample(std::initializer_list<MetricLabel> labels, const SampleValue& value);
  void Sample(const SampleValue& value) { Sample({}, value); }

  // One series of the current histogram family. `counts` has one count per bucket, not
  // cumulative, bounds.size() + 1 of them: the last is the +Inf bucket's own. `bounds` ascend.
  void Histogram(std::initializer_list<MetricLabel> labels, std::span<const double> bounds,
                 std::span<const std::uint64_t> counts, double sum);

  const std::string& text() const& { return text_; }
  std::string text() && { return std::move(text_); }

 private:
  void Series(std::string_view suffix, std::initializer_list<MetricLabel> labels,
              const MetricLabel* extra, std::string_view value);

  std::string family_;
  std::string text_;
};

}  // namespace podlimits
