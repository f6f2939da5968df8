// The Prometheus text writer (base/prometheus_text.h): float texts, escaping, family headers and
// histogram order, each as a table of named cases with the expected text written out.
#include "base/prometheus_text.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace podlimits {
namespace {

struct FloatCase {
  std::string name;
  double value;
  std::string want;
};

TEST(PrometheusText, FloatValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<FloatCase> cases = {
      {"zero", 0.0, "0"},
      {"negative zero keeps its sign, as Go prints it", -0.0, "-0"},
      {"integral value has no fraction or exponent", 1048576.0, "1048576"},
      {"large integral value still positional", 2500000000.0, "2500000000"},
      {"last positional power of ten", 1e15, "1000000000000000"},
      {"1e16 switches to an exponent", 1e16, "1e+16"},
      {"fraction, shortest round trip", 5007.9, "5007.9"},
      {"sum that is not exactly representable", 0.1 + 0.2, "0.30000000000000004"},
      {"smallest positional exponent", 0.0001, "0.0001"},
      {"below 1e-4 takes an exponent", 0.00001, "1e-05"},
      {"exponent with a fraction", 1.5e-7, "1.5e-07"},
      {"negative", -2.25, "-2.25"},
      {"unlimited rlimit as a float", 18446744073709551615.0, "1.8446744073709552e+19"},
      {"positive infinity", inf, "+Inf"},
      {"negative infinity", -inf, "-Inf"},
      {"not a number", std::numeric_limits<double>::quiet_NaN(), "NaN"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(PrometheusFloat(c.value), c.want) << c.name;
  }
}

TEST(PrometheusText, IntegerValuesAreWrittenAsIntegers) {
  EXPECT_EQ(SampleValue(std::uint64_t{18446744073709551615u}).text(), "18446744073709551615");
  EXPECT_EQ(SampleValue(std::int64_t{-3}).text(), "-3");
  EXPECT_EQ(SampleValue(10000000000000000).text(), "10000000000000000");
  EXPECT_EQ(SampleValue(2.0).text(), "2");
}

struct EscapeCase {
  std::string name;
  std::string label_value;
  std::string help;
  std::string want;
};

TEST(PrometheusText, Escaping) {
  const std::vector<EscapeCase> cases = {
      {"plain text unchanged", "pid.available", "Plain help.",
       "# HELP m Plain help.\n# TYPE m gauge\nm{l=\"pid.available\"} 1\n"},
      {"double quote escaped in a label value, not in help", "a\"b", "say \"max\"",
       "# HELP m say \"max\"\n# TYPE m gauge\nm{l=\"a\\\"b\"} 1\n"},
      {"backslash escaped in both", "C:\\x", "back\\slash",
       "# HELP m back\\\\slash\n# TYPE m gauge\nm{l=\"C:\\\\x\"} 1\n"},
      {"newline escaped in both", "two\nlines", "two\nlines",
       "# HELP m two\\nlines\n# TYPE m gauge\nm{l=\"two\\nlines\"} 1\n"},
      {"empty label value kept", "", "h", "# HELP m h\n# TYPE m gauge\nm{l=\"\"} 1\n"},
      {"UTF-8 passes through", "pod-ü", "h", "# HELP m h\n# TYPE m gauge\nm{l=\"pod-ü\"} 1\n"},
  };
  for (const auto& c : cases) {
    PrometheusText out;
    out.Family("m", c.help, MetricType::kGauge);
    out.Sample({{"l", c.label_value}}, 1);
    EXPECT_EQ(out.text(), c.want) << c.name;
  }
}

TEST(PrometheusText, FamilyHeadersOnceThenSamplesInOrder) {
  PrometheusText out;
  out.Family("requests_total", "Requests.", MetricType::kCounter);
  out.Sample({{"path", "/a"}, {"code", "200"}}, 3);
  out.Sample({{"path", "/b"}, {"code", "404"}}, 1);
  out.Family("up", "Whether it is up.", MetricType::kGauge);
  out.Sample(1);
  out.Family("not_known_yet", "A gauge with no sample.", MetricType::kGauge);
  EXPECT_EQ(out.text(),
            "# HELP requests_total Requests.\n"
            "# TYPE requests_total counter\n"
            "requests_total{path=\"/a\",code=\"200\"} 3\n"
            "requests_total{path=\"/b\",code=\"404\"} 1\n"
            "# HELP up Whether it is up.\n"
            "# TYPE up gauge\n"
            "up 1\n"
            "# HELP not_known_yet A gauge with no sample.\n"
            "# TYPE not_known_yet gauge\n");
}

struct HistogramCase {
  std::string name;
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;  // per bucket, the last +Inf's own
  double sum;
  bool labelled;
  std::string want;
};

TEST(PrometheusText, Histograms) {
  const std::vector<HistogramCase> cases = {
      {"buckets cumulative and ascending, +Inf last, then _sum and _count",
       {0.0001, 0.5, 2},
       {1, 0, 2, 1},
       5007.9,
       false,
       "h_bucket{le=\"0.0001\"} 1\n"
       "h_bucket{le=\"0.5\"} 1\n"
       "h_bucket{le=\"2\"} 3\n"
       "h_bucket{le=\"+Inf\"} 4\n"
       "h_sum 5007.9\n"
       "h_count 4\n"},
      {"labels first, le last in each bucket; _sum and _count without le",
       {1},
       {2, 0},
       0.25,
       true,
       "h_bucket{path=\"validate\",le=\"1\"} 2\n"
       "h_bucket{path=\"validate\",le=\"+Inf\"} 2\n"
       "h_sum{path=\"validate\"} 0.25\n"
       "h_count{path=\"validate\"} 2\n"},
      {"no bounds: only the +Inf bucket",
       {},
       {5},
       1e-05,
       false,
       "h_bucket{le=\"+Inf\"} 5\n"
       "h_sum 1e-05\n"
       "h_count 5\n"},
      {"empty histogram: zeros",
       {0.1},
       {0, 0},
       0,
       false,
       "h_bucket{le=\"0.1\"} 0\n"
       "h_bucket{le=\"+Inf\"} 0\n"
       "h_sum 0\n"
       "h_count 0\n"},
  };
  const std::string header = "# HELP h Durations.\n# TYPE h histogram\n";
  for (const auto& c : cases) {
    PrometheusText out;
    out.Family("h", "Durations.", MetricType::kHistogram);
    if (c.labelled) {
      out.Histogram({{"path", "validate"}}, c.bounds, c.counts, c.sum);
    } else {
      out.Histogram({}, c.bounds, c.counts, c.sum);
    }
    EXPECT_EQ(out.text(), header + c.want) << c.name;
  }
}

struct NameCase {
  std::string name;
  std::string_view text;
  bool metric;
  bool label;
};

// The checks MetricName and LabelName run when the program compiles.
TEST(PrometheusText, Names) {
  const std::vector<NameCase> cases = {
      {"snake case", "kubelet_running_pods", true, true},
      {"colon allowed in metric names only", "job:rate5m", true, false},
      {"leading underscore", "_x", true, true},
      {"double underscore reserved for labels", "__name__", true, false},
      {"leading digit", "5xx", false, false},
      {"digit after the first", "http2_streams", true, true},
      {"dot", "pid.available", false, false},
      {"dash", "pod-name", false, false},
      {"empty", "", false, false},
      {"space", "a b", false, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(IsMetricName(c.text), c.metric) << c.name;
    EXPECT_EQ(IsLabelName(c.text), c.label) << c.name;
  }
  static_assert(IsMetricName("podlimits_http_connections_open"));
  static_assert(!IsLabelName("le le"));
}

}  // namespace
}  // namespace podlimits
