// Go's time.ParseDuration and Duration.String, as the KubeletConfiguration's durations need them.
#include <gtest/gtest.h>

#include "codec/go_duration.h"

namespace podlimits::codec {
namespace {

using std::chrono::nanoseconds;

TEST(GoDuration, Parse) {
  struct Case {
    const char* in;
    std::int64_t ns;
    const char* error;  // nullptr: parses
  };
  const Case cases[] = {
      {"0", 0, nullptr},
      {"-0", 0, nullptr},
      {"5m", 300'000'000'000, nullptr},
      {"5m0s", 300'000'000'000, nullptr},
      {"1.5h", 5'400'000'000'000, nullptr},
      {"2h45m", 9'900'000'000'000, nullptr},
      {"-1.5s", -1'500'000'000, nullptr},
      {"+30s", 30'000'000'000, nullptr},
      {"300ms", 300'000'000, nullptr},
      {"1us", 1000, nullptr},
      {"1\u00b5s", 1000, nullptr},
      {"1\u03bcs", 1000, nullptr},
      {".5s", 500'000'000, nullptr},
      {"1.s", 1'000'000'000, nullptr},
      {"9223372036854775807ns", 9223372036854775807LL, nullptr},
      {"", 0, "time: invalid duration \"\""},
      {"-", 0, "time: invalid duration \"-\""},
      {"s", 0, "time: invalid duration \"s\""},
      {".s", 0, "time: invalid duration \".s\""},
      {"1", 0, "time: missing unit in duration \"1\""},
      {"1d", 0, "time: unknown unit \"d\" in duration \"1d\""},
      {"1m1", 0, "time: missing unit in duration \"1m1\""},
      {"9223372036854775808ns", 0, "time: invalid duration \"9223372036854775808ns\""},
      {"3000000h", 0, "time: invalid duration \"3000000h\""},
      {" 1s", 0, "time: invalid duration \" 1s\""},
  };
  for (const auto& c : cases) {
    auto d = ParseGoDuration(c.in);
    if (c.error == nullptr) {
      ASSERT_TRUE(d) << c.in << ": " << d.error().Message();
      EXPECT_EQ(d->count(), c.ns) << c.in;
    } else {
      ASSERT_FALSE(d) << c.in;
      EXPECT_EQ(d.error().Message(), c.error) << c.in;
    }
  }
}

TEST(GoDuration, Format) {
  EXPECT_EQ(FormatGoDuration(nanoseconds(0)), "0s");
  EXPECT_EQ(FormatGoDuration(std::chrono::minutes(5)), "5m0s");
  EXPECT_EQ(FormatGoDuration(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatGoDuration(std::chrono::milliseconds(300)), "300ms");
  EXPECT_EQ(FormatGoDuration(nanoseconds(1500)), "1.5\u00b5s");
  EXPECT_EQ(FormatGoDuration(nanoseconds(7)), "7ns");
  EXPECT_EQ(FormatGoDuration(std::chrono::hours(2) + std::chrono::minutes(45)), "2h45m0s");
  EXPECT_EQ(FormatGoDuration(-std::chrono::seconds(90)), "-1m30s");
}

}  // namespace
}  // namespace podlimits::codec
