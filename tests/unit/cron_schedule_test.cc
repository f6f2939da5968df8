// robfig/cron v3's ParseStandard and SpecSchedule.Next, as the CronJob validation and controller
// use them. The expected times and messages were printed by robfig/cron v3 itself (Go 1.27,
// TZ=UTC) for the same inputs.
#include "validation/cron_schedule.h"

#include <gtest/gtest.h>

#include "printers/human_duration.h"

namespace podlimits::validation {
namespace {

struct NextCase {
  const char* spec;
  const char* from;
  const char* next;  // "" when robfig returns the zero time (never)
};

class CronScheduleNextTest : public ::testing::TestWithParam<NextCase> {};

TEST_P(CronScheduleNextTest, MatchesRobfig) {
  const NextCase& c = GetParam();
  auto schedule = ParseCronSchedule(c.spec);
  ASSERT_TRUE(schedule) << schedule.error().detail;
  auto next = schedule->Next(*printers::ParseApiTime(c.from));
  if (std::string_view(c.next).empty()) {
    EXPECT_FALSE(next) << printers::FormatApiTime(*next);
  } else {
    ASSERT_TRUE(next);
    EXPECT_EQ(printers::FormatApiTime(*next), c.next);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, CronScheduleNextTest,
    ::testing::Values(
        NextCase{"*/1 * * * *", "2026-11-29T09:34:20Z", "2026-11-29T09:35:00Z"},
        NextCase{"0 * * * *", "2026-11-29T09:34:20Z", "2026-11-29T10:00:00Z"},
        NextCase{"30 6-16/4 * * 1-5", "2026-11-28T00:00:00Z", "2026-11-30T06:30:00Z"},
        NextCase{"30 6-16/4 * * 1-5", "2026-11-30T14:30:00Z", "2026-12-01T06:30:00Z"},
        NextCase{"@hourly", "2026-11-29T09:34:20Z", "2026-11-29T10:00:00Z"},
        NextCase{"@daily", "2026-11-29T09:34:20Z", "2026-11-30T00:00:00Z"},
        NextCase{"@midnight", "2026-11-29T00:00:00Z", "2026-11-30T00:00:00Z"},
        NextCase{"@weekly", "2026-11-29T09:34:20Z", "2026-12-06T00:00:00Z"},
        NextCase{"@monthly", "2026-11-29T09:34:20Z", "2026-12-01T00:00:00Z"},
        NextCase{"@yearly", "2026-11-29T09:34:20Z", "2027-01-01T00:00:00Z"},
        NextCase{"@annually", "2026-11-29T09:34:20Z", "2027-01-01T00:00:00Z"},
        NextCase{"@every 1h30m", "2026-11-29T09:34:20Z", "2026-11-29T11:04:20Z"},
        NextCase{"@every 500ms", "2026-11-29T09:34:20Z", "2026-11-29T09:34:21Z"},
        NextCase{"0 0 1,15 * sun", "2026-11-29T09:34:20Z", "2026-12-01T00:00:00Z"},
        NextCase{"0 0 1,15 * *", "2026-11-29T09:34:20Z", "2026-12-01T00:00:00Z"},
        NextCase{"0 0 * JAN-Mar *", "2026-11-29T09:34:20Z", "2027-01-01T00:00:00Z"},
        NextCase{"0 0 29 2 *", "2026-11-29T09:34:20Z", "2028-02-29T00:00:00Z"},
        NextCase{"0 0 30 2 *", "2026-11-29T09:34:20Z", ""},
        NextCase{"59 23 31 12 ?", "2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"},
        NextCase{"TZ=Europe/Berlin 0 9 * * *", "2026-11-29T09:34:20Z", "2026-11-30T08:00:00Z"},
        NextCase{"CRON_TZ=America/New_York 0 9 * * *", "2026-11-29T09:34:20Z", "2026-11-29T14:00:00Z"},
        // 02:30 does not exist on the day summer time starts: the next day's.
        NextCase{"TZ=Europe/Berlin 30 2 * * *", "2027-03-27T12:00:00Z", "2027-03-29T00:30:00Z"},
        NextCase{"TZ=Europe/Berlin 30 2 * * *", "2027-10-30T12:00:00Z", "2027-10-31T00:30:00Z"},
        NextCase{"TZ=Europe/Berlin 0 0 * * *", "2027-03-27T12:00:00Z", "2027-03-27T23:00:00Z"},
        NextCase{"  5   4  *  *  *  ", "2026-11-29T09:34:20Z", "2026-11-30T04:05:00Z"}));

struct ErrorCase {
  const char* spec;
  const char* message;
};

class CronScheduleErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CronScheduleErrorTest, RobfigMessage) {
  auto schedule = ParseCronSchedule(GetParam().spec);
  ASSERT_FALSE(schedule);
  EXPECT_EQ(schedule.error().detail, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Refused, CronScheduleErrorTest,
    ::testing::Values(
        ErrorCase{"error", "expected exactly 5 fields, found 1: [error]"},
        ErrorCase{"", "empty spec string"},
        ErrorCase{"60 * * * *", "end of range (60) above maximum (59): 60"},
        ErrorCase{"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
        ErrorCase{"@fortnightly", "unrecognized descriptor: @fortnightly"},
        ErrorCase{"@every 1x", "failed to parse duration @every 1x: time: unknown unit \"x\" in duration \"1x\""},
        ErrorCase{"@every", "unrecognized descriptor: @every"},
        ErrorCase{"@every ", "failed to parse duration @every : time: invalid duration \"\""},
        ErrorCase{"*/0 * * * *", "step of range should be a positive number: */0"},
        ErrorCase{"a * * * *", "failed to parse int from a: strconv.Atoi: parsing \"a\": invalid syntax"},
        ErrorCase{"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
        ErrorCase{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
        ErrorCase{"1/2/3 * * * *", "too many slashes: 1/2/3"},
        ErrorCase{"-1 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"},
        ErrorCase{"TZ=Mars/Olympus 0 * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
        ErrorCase{"0 0 32 * *", "end of range (32) above maximum (31): 32"},
        ErrorCase{"0 0 * 13 *", "end of range (13) above maximum (12): 13"},
        ErrorCase{"0 0 * * 7", "end of range (7) above maximum (6): 7"},
        ErrorCase{"0 0 0 * *", "beginning of range (0) below minimum (1): 0"},
        ErrorCase{"0 24 * * *", "end of range (24) above maximum (23): 24"},
        ErrorCase{"99999999999999999999 * * * *",
                  "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
                  "\"99999999999999999999\": value out of range"},
        ErrorCase{"@every 1.5.h", "failed to parse duration @every 1.5.h: time: missing unit in duration \"1.5.h\""},
        ErrorCase{"@every h", "failed to parse duration @every h: time: invalid duration \"h\""}));

TEST(TimeZoneTest, LoadsAsGoDoes) {
  struct Case {
    const char* name;
    const char* error;  // "" when it loads
  } cases[] = {
      {"", ""},
      {"UTC", ""},
      {"Europe/Berlin", ""},
      {"Mars/Olympus", "unknown time zone Mars/Olympus"},
      {"../etc/passwd", "time: invalid location name"},
      {"/etc/localtime", "time: invalid location name"},
  };
  for (const Case& c : cases) {
    auto zone = LoadTimeZone(c.name);
    if (std::string_view(c.error).empty()) {
      EXPECT_TRUE(zone) << c.name << ": " << zone.error().detail;
    } else {
      ASSERT_FALSE(zone) << c.name;
      EXPECT_EQ(zone.error().detail, c.error) << c.name;
    }
  }
  // Berlin: +1 in winter, +2 from 2027-03-28T01:00:00Z.
  auto berlin = LoadTimeZone("Europe/Berlin");
  ASSERT_TRUE(berlin);
  EXPECT_EQ(berlin->Lookup(printers::ParseApiTime("2026-11-29T00:00:00Z")->time_since_epoch().count()).seconds, 3600);
  EXPECT_EQ(berlin->Lookup(printers::ParseApiTime("2027-03-28T01:00:00Z")->time_since_epoch().count()).seconds, 7200);
}

}  // namespace
}  // namespace podlimits::validation
