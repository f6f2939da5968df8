// kubectl's AGE column: apimachinery's HumanDuration, case by case.
#include "printers/human_duration.h"

#include <gtest/gtest.h>

namespace podlimits::printers {
namespace {

using std::chrono::seconds;

TEST(HumanDuration, AsApimachineryPrintsIt) {
  const std::vector<std::pair<long long, std::string>> cases = {
      {-2, "<invalid>"}, {-1, "0s"},         {0, "0s"},           {119, "119s"},
      {120, "2m"},       {125, "2m5s"},      {599, "9m59s"},      {600, "10m"},
      {10799, "179m"},   {10800, "3h"},      {4 * 3600 + 60, "4h1m"}, {8 * 3600, "8h"},
      {47 * 3600, "47h"}, {48 * 3600, "2d"}, {50 * 3600, "2d2h"}, {8 * 86400, "8d"},
      {729 * 86400, "729d"}, {730 * 86400, "2y"}, {731 * 86400, "2y1d"}, {9 * 365 * 86400, "9y"},
  };
  for (const auto& [s, want] : cases) EXPECT_EQ(HumanDuration(seconds(s)), want) << s;
}

TEST(HumanDuration, Timestamps) {
  auto t = ParseApiTime("2026-11-25T23:59:03Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatApiTime(*t), "2026-11-25T23:59:03Z");
  EXPECT_EQ(AgeSince("2026-11-25T23:59:03Z", *t + seconds(3725)), "62m");
  EXPECT_EQ(AgeSince("", *t), "<unknown>");
  EXPECT_FALSE(ParseApiTime("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(ParseApiTime("2026-11-25 23:59:03"));
}

}  // namespace
}  // namespace podlimits::printers
