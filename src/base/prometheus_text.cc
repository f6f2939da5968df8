#include "base/prometheus_text.h"

#include <charconv>
#include <cmath>

namespace podlimits {
namespace {

std::string_view TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

// The help text may hold anything but a raw backslash or newline.
void AppendHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// A label value may hold anything but a raw backslash, double quote or newline.
void AppendLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string PrometheusFloat(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // The shortest digits that read back to `value`, laid out as fmt's "{}" (which the metrics
  // were first written with) lays them out: positional while the first digit's exponent is in
  // [-4, 16), else d.ddde±XX. The scientific form tells the exponent.
  char buf[64];
  const auto scientific = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string_view text(buf, static_cast<std::size_t>(scientific.ptr - buf));
  int exponent = 0;
  const std::string_view digits = text.substr(text.find('e') + 1);
  std::from_chars(digits.data() + (digits.front() == '+' ? 1 : 0), digits.data() + digits.size(),
                  exponent);
  if (exponent < -4 || exponent >= 16) return std::string(text);
  const auto fixed = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

void PrometheusText::Family(MetricName name, std::string_view help, MetricType type) {
  family_ = name.view();
  text_ += "# HELP ";
  text_ += family_;
  text_ += ' ';
  AppendHelp(text_, help);
  text_ += "\n# TYPE ";
  text_ += family_;
  text_ += ' ';
  text_ += TypeName(type);
  text_ += '\n';
}

void PrometheusText::Series(std::string_view suffix, std::initializer_list<MetricLabel> labels,
                            const MetricLabel* extra, std::string_view value) {
  text_ += family_;
  text_ += suffix;
  if (labels.size() > 0 || extra != nullptr) {
    char separator = '{';
    auto append = [&](const MetricLabel& label) {
      text_ += separator;
      text_ += label.name.view();
      text_ += "=\"";
      AppendLabelValue(text_, label.value);
      text_ += '"';
      separator = ',';
    };
    for (const MetricLabel& label : labels) append(label);
    if (extra != nullptr) append(*extra);
    text_ += '}';
  }
  text_ += ' ';
  text_ += value;
  text_ += '\n';
}

void PrometheusText::Sample(std::initializer_list<MetricLabel> labels, const SampleValue& value) {
  Series("", labels, nullptr, value.text());
}

void PrometheusText::Histogram(std::initializer_list<MetricLabel> labels,
                               std::span<const double> bounds,
                               std::span<const std::uint64_t> counts, double sum) {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    const std::string bound = i < bounds.size() ? PrometheusFloat(bounds[i]) : "+Inf";
    const MetricLabel le{"le", bound};
    Series("_bucket", labels, &le, std::to_string(cumulative));
  }
  Series("_sum", labels, nullptr, PrometheusFloat(sum));
  Series("_count", labels, nullptr, std::to_string(cumulative));
}

}  // namespace podlimits
