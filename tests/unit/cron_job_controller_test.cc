// The CronJob controller over the REST handler, with the controllers' clock moved by the test
// (no sleeping): which Jobs it makes and when, their names and annotations, the concurrency
// policies, the history limits, missed schedules, and the CronJob's validation and defaults.
#include "controllers/cron_job_controller.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workload_controllers_fixture.h"

namespace podlimits::controllers {
namespace {

using codec::Node;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kCronJobs = "/apis/batch/v1/namespaces/default/cronjobs";

// A CronJob "backup" with `spec` members added (JSON text without the braces).
std::string CronJob(std::string_view extra = "", std::string_view schedule = "*/1 * * * *") {
  return fmt::format(
      R"({{"apiVersion":"batch/v1","kind":"CronJob","metadata":{{"name":"backup"}},)"
      R"("spec":{{"schedule":"{}",{}"jobTemplate":{{"metadata":{{"labels":{{"app":"backup"}}}},)"
      R"("spec":{{"template":{{"spec":{{"restartPolicy":"Never",)"
      R"("containers":[{{"name":"c","image":"busybox"}}]}}}}}}}}}}}})",
      schedule, extra.empty() ? "" : std::string(extra) + ",");
}

class CronJobControllerTest : public WorkloadControllersTest {
 protected:
  void At(std::string_view time) { now_ = *printers::ParseApiTime(time); }
  void RoundAt(std::string_view time) {
    At(time);
    controllers_->SyncOnce();
  }
  std::vector<std::string> JobNames() {
    std::vector<std::string> names;
    for (const Node& job : Items("jobs")) {
      if (!job.FindPath({"metadata", "deletionTimestamp"})) {
        names.push_back(codec::StringOf(job.FindPath({"metadata", "name"})));
      }
    }
    return names;
  }
  // "Reason: message" of every event about the CronJob, oldest first.
  std::vector<std::string> CronJobEvents() {
    std::vector<std::string> out;
    for (const Node& e : Items("events")) {
      if (codec::StringOf(e.FindPath({"involvedObject", "kind"})) != "CronJob") continue;
      out.push_back(codec::StringOf(e.Find("reason")) + ": " + codec::StringOf(e.Find("message")));
    }
    return out;
  }
  Node Stored() { return Get(std::string(kCronJobs) + "/backup"); }
};

TEST_F(CronJobControllerTest, CreatesTheJobOfEachScheduledMinuteOnce) {
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob()).status, 201);
  RoundAt("2026-11-25T12:00:30Z");
  EXPECT_TRUE(JobNames().empty());
  RoundAt("2026-11-25T12:01:05Z");
  RoundAt("2026-11-25T12:01:30Z");
  ASSERT_THAT(JobNames(), ElementsAre("backup-29926801"));
  const Node job = Items("jobs")[0];
  EXPECT_EQ(codec::StringOf(job.FindPath({"metadata", "annotations", "batch.kubernetes.io/cronjob-scheduled-timestamp"})),
            "2026-11-25T12:01:00Z");
  EXPECT_EQ(codec::StringOf(job.FindPath({"metadata", "labels", "app"})), "backup");
  const Node& ref = job.FindPath({"metadata", "ownerReferences"})->items[0];
  EXPECT_EQ(codec::StringOf(ref.Find("kind")), "CronJob");
  EXPECT_TRUE(ref.Find("controller")->AsBool());
  // The Job's own defaults and generated selector, from the API.
  EXPECT_EQ(codec::IntOf(job.FindPath({"spec", "backoffLimit"})), 6);
  EXPECT_TRUE(job.FindPath({"spec", "selector", "matchLabels", "batch.kubernetes.io/controller-uid"}));
  Node cj = Stored();
  EXPECT_EQ(codec::StringOf(cj.FindPath({"status", "lastScheduleTime"})), "2026-11-25T12:01:00Z");
  ASSERT_EQ(cj.FindPath({"status", "active"})->items.size(), 1u);
  EXPECT_EQ(codec::StringOf(cj.FindPath({"status", "active"})->items[0].Find("name")), "backup-29926801");

  // The Job's pod succeeds: the controller sees the Job completed, then its completion time.
  RunPods("Succeeded");
  RoundAt("2026-11-25T12:01:40Z");  // the Job completes
  RoundAt("2026-11-25T12:01:45Z");  // it leaves status.active
  RoundAt("2026-11-25T12:01:50Z");  // its completion time is the last successful one
  cj = Stored();
  EXPECT_FALSE(cj.FindPath({"status", "active"}));
  EXPECT_EQ(codec::StringOf(cj.FindPath({"status", "lastSuccessfulTime"})), "2026-11-25T12:01:40Z");
  EXPECT_THAT(CronJobEvents(), ElementsAre("SuccessfulCreate: Created job backup-29926801",
                                           "SawCompletedJob: Saw completed job: backup-29926801, condition: Complete"));
}

struct PolicyCase {
  const char* name;
  const char* policy;
  std::vector<std::string> jobs;    // after the second minute
  std::vector<std::string> events;  // all of them
};

class CronJobPolicyTest : public CronJobControllerTest,
                          public ::testing::WithParamInterface<PolicyCase> {};

TEST_P(CronJobPolicyTest, SecondMinuteWhileTheFirstJobRuns) {
  const PolicyCase& c = GetParam();
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob(fmt::format(R"("concurrencyPolicy":"{}")", c.policy))).status, 201);
  RoundAt("2026-11-25T12:01:05Z");
  RunPods();
  RoundAt("2026-11-25T12:02:05Z");
  RoundAt("2026-11-25T12:02:10Z");
  EXPECT_EQ(JobNames(), c.jobs);
  EXPECT_EQ(CronJobEvents(), c.events);
  EXPECT_EQ(Stored().FindPath({"status", "active"})->items.size(), c.jobs.size());
}

INSTANTIATE_TEST_SUITE_P(
    ConcurrencyPolicies, CronJobPolicyTest,
    ::testing::Values(
        PolicyCase{"AllowRunsBoth", "Allow", {"backup-29926801", "backup-29926802"},
                   {"SuccessfulCreate: Created job backup-29926801", "SuccessfulCreate: Created job backup-29926802"}},
        PolicyCase{"ForbidSkipsWhileOneRuns", "Forbid", {"backup-29926801"},
                   {"SuccessfulCreate: Created job backup-29926801",
                    "JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is "
                    "Forbid"}},
        PolicyCase{"ReplaceDeletesTheRunningOne", "Replace", {"backup-29926802"},
                   {"SuccessfulCreate: Created job backup-29926801", "SuccessfulDelete: Deleted job backup-29926801",
                    "SuccessfulCreate: Created job backup-29926802"}}),
    [](const ::testing::TestParamInfo<PolicyCase>& info) { return std::string(info.param.name); });

TEST_F(CronJobControllerTest, HistoryLimitKeepsTheNewestFinishedJobs) {
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob(R"("successfulJobsHistoryLimit":1)")).status, 201);
  for (const char* minute : {"2026-11-25T12:01:05Z", "2026-11-25T12:02:05Z"}) {
    RoundAt(minute);
    RunPods("Succeeded");
    controllers_->SyncOnce();  // the Job completes
    controllers_->SyncOnce();  // the CronJob sees it
  }
  controllers_->SyncOnce();
  EXPECT_THAT(JobNames(), ElementsAre("backup-29926802"));
  EXPECT_THAT(CronJobEvents(), ::testing::Contains("SuccessfulDelete: Deleted job backup-29926801"));
}

struct MissedCase {
  const char* name;
  std::string spec;
  const char* now;
  std::vector<std::string> jobs;
  std::vector<std::string> events;
  const char* schedule = "*/1 * * * *";
};

class CronJobMissedTest : public CronJobControllerTest,
                          public ::testing::WithParamInterface<MissedCase> {};

TEST_P(CronJobMissedTest, OneRoundLate) {
  const MissedCase& c = GetParam();
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob(c.spec, c.schedule)).status, 201);
  RoundAt(c.now);
  EXPECT_EQ(JobNames(), c.jobs);
  EXPECT_EQ(CronJobEvents(), c.events);
}

INSTANTIATE_TEST_SUITE_P(
    MissedSchedules, CronJobMissedTest,
    ::testing::Values(
        MissedCase{"ManyMissedTheLatest", "", "2026-11-25T15:20:05Z", {"backup-29927000"},
                   {"TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                    "or check clock skew",
                    "SuccessfulCreate: Created job backup-29927000"}},
        MissedCase{"FewMissedOnlyTheLatest", "", "2026-11-25T12:03:30Z", {"backup-29926803"},
                   {"SuccessfulCreate: Created job backup-29926803"}},
        MissedCase{"PastStartingDeadlineNone", R"("startingDeadlineSeconds":10)", "2026-11-25T12:01:30Z", {}, {}},
        MissedCase{"WithinStartingDeadline", R"("startingDeadlineSeconds":10)", "2026-11-25T12:01:09Z",
                   {"backup-29926801"}, {"SuccessfulCreate: Created job backup-29926801"}},
        MissedCase{"Suspended", R"("suspend":true)", "2026-11-25T12:05:00Z", {}, {}},
        MissedCase{"NeverComes", "", "2026-11-25T12:05:00Z", {},
                   {"InvalidSchedule: invalid schedule: 0 0 30 2 * : time difference between two schedules is less "
                    "than 1 second"},
                   "0 0 30 2 *"}),
    [](const ::testing::TestParamInfo<MissedCase>& info) { return std::string(info.param.name); });

TEST_F(CronJobControllerTest, TimeZoneOfTheScheduleAndTheAnnotation) {
  // 13:01 in Berlin (UTC+1 in November) is 12:01 UTC.
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob(R"("timeZone":"Europe/Berlin")", "1 13 * * *")).status, 201);
  RoundAt("2026-11-25T12:00:59Z");
  EXPECT_TRUE(JobNames().empty());
  RoundAt("2026-11-25T12:01:00Z");
  ASSERT_THAT(JobNames(), ElementsAre("backup-29926801"));
  EXPECT_EQ(codec::StringOf(Items("jobs")[0].FindPath(
                {"metadata", "annotations", "batch.kubernetes.io/cronjob-scheduled-timestamp"})),
            "2026-11-25T13:01:00+01:00");
}

TEST_F(CronJobControllerTest, ManualJobFromTheCronJobIsUnexpectedOnce) {
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob()).status, 201);
  const Node cj = Stored();
  // What `kubectl create job --from=cronjob/backup` sends.
  const std::string manual = fmt::format(
      R"({{"apiVersion":"batch/v1","kind":"Job","metadata":{{"name":"manual","annotations":{{"cronjob.kubernetes.io/instantiate":"manual"}},)"
      R"("ownerReferences":[{{"apiVersion":"batch/v1","kind":"CronJob","name":"backup","uid":"{}","controller":true}}]}},)"
      R"("spec":{{"template":{{"spec":{{"restartPolicy":"Never","containers":[{{"name":"c","image":"busybox"}}]}}}}}}}})",
      codec::StringOf(cj.FindPath({"metadata", "uid"})));
  ASSERT_EQ(Call("POST", "/apis/batch/v1/namespaces/default/jobs", manual).status, 201);
  RoundAt("2026-11-25T12:00:10Z");
  RoundAt("2026-11-25T12:00:20Z");
  EXPECT_THAT(CronJobEvents(), ElementsAre("UnexpectedJob: Saw a job that the controller did not create or forgot: manual"));
  // Deleting the CronJob takes its Jobs with it.
  ASSERT_EQ(Call("DELETE", std::string(kCronJobs) + "/backup").status, 200);
  controllers_->SyncOnce();
  EXPECT_TRUE(JobNames().empty());
}

TEST_F(CronJobControllerTest, ScheduleDecisions) {
  auto every_minute = validation::ParseCronSchedule("*/1 * * * *");
  ASSERT_TRUE(every_minute);
  auto at = [](const char* t) { return *printers::ParseApiTime(t); };
  struct Case {
    const char* name;
    const char* earliest;
    const char* now;
    const char* most_recent;  // "" for none
    ScheduleDecision::Missed missed;
  } cases[] = {
      {"not yet", "2026-11-25T12:00:00Z", "2026-11-25T12:00:59Z", "", ScheduleDecision::Missed::kNone},
      {"the first", "2026-11-25T12:00:00Z", "2026-11-25T12:01:00Z", "2026-11-25T12:01:00Z", ScheduleDecision::Missed::kNone},
      {"two: the later", "2026-11-25T12:00:00Z", "2026-11-25T12:02:30Z", "2026-11-25T12:02:00Z", ScheduleDecision::Missed::kFew},
      {"101", "2026-11-25T12:00:00Z", "2026-11-25T13:41:00Z", "2026-11-25T13:41:00Z", ScheduleDecision::Missed::kMany},
      {"100", "2026-11-25T12:00:00Z", "2026-11-25T13:40:59Z", "2026-11-25T13:40:00Z", ScheduleDecision::Missed::kFew},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ScheduleDecision d = MostRecentScheduleTime(*every_minute, at(c.earliest), at(c.now));
    EXPECT_EQ(d.most_recent ? printers::FormatApiTime(*d.most_recent) : "", c.most_recent);
    EXPECT_EQ(d.missed, c.missed);
  }
  auto never = validation::ParseCronSchedule("0 0 30 2 *");
  ASSERT_TRUE(never);
  const ScheduleDecision none = MostRecentScheduleTime(*never, at("2026-11-25T12:00:00Z"), at("2030-01-01T00:00:00Z"));
  EXPECT_FALSE(none.most_recent);
  EXPECT_TRUE(none.invalid);
  EXPECT_EQ(CronJobName("backup", at("2026-11-25T12:01:00Z")), "backup-29926801");
}

TEST_F(CronJobControllerTest, DefaultsAndValidation) {
  ASSERT_EQ(Call("POST", std::string(kCronJobs), CronJob()).status, 201);
  const Node cj = Stored();
  EXPECT_EQ(codec::StringOf(cj.FindPath({"spec", "concurrencyPolicy"})), "Allow");
  EXPECT_FALSE(cj.FindPath({"spec", "suspend"})->AsBool());
  EXPECT_EQ(codec::IntOf(cj.FindPath({"spec", "successfulJobsHistoryLimit"})), 3);
  EXPECT_EQ(codec::IntOf(cj.FindPath({"spec", "failedJobsHistoryLimit"})), 1);
  EXPECT_EQ(codec::StringOf(cj.FindPath({"spec", "jobTemplate", "spec", "template", "spec", "dnsPolicy"})), "ClusterFirst");
  EXPECT_FALSE(cj.FindPath({"spec", "jobTemplate", "spec", "backoffLimit"}));
  auto table = Call("GET", std::string(kCronJobs), "", std::string(apiserver::kTableAccept));
  EXPECT_THAT(table.body, HasSubstr(R"("cells":["backup","*/1 * * * *","<none>","False",0,"<none>","0s")"));

  const std::string long_name(53, 'a');
  struct Case {
    const char* name;
    std::string body;
    std::string message;
  } cases[] = {
      {"schedule", CronJob("", "error"),
       R"(spec.schedule: Invalid value: \"error\": expected exactly 5 fields, found 1: [error])"},
      {"schedule required", CronJob("", ""), R"(spec.schedule: Required value)"},
      {"TZ in the schedule", CronJob("", "TZ=UTC 0 * * * *"),
       R"(spec.schedule: Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead)"},
      {"unknown time zone", CronJob(R"("timeZone":"Mars/Olympus")"),
       R"(spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus)"},
      {"Local", CronJob(R"("timeZone":"Local")"),
       R"(spec.timeZone: Invalid value: \"Local\": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones)"},
      {"empty time zone", CronJob(R"("timeZone":"")"),
       R"(spec.timeZone: Invalid value: \"\": timeZone must be nil or non-empty string)"},
      {"concurrency policy", CronJob(R"("concurrencyPolicy":"Sometimes")"),
       R"(spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\")"},
      {"starting deadline", CronJob(R"("startingDeadlineSeconds":-1)"),
       R"(spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0)"},
      {"history limit", CronJob(R"("failedJobsHistoryLimit":-1)"),
       R"(spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0)"},
      {"name length",
       CronJob().replace(CronJob().find("\"backup\""), 8, "\"" + long_name + "\""),
       R"(metadata.name: Invalid value: \")" + long_name + R"(\": must be no more than 52 characters)"},
      {"restart policy", [] {
         std::string b = CronJob();
         b.replace(b.find("Never"), 5, "Always");
         return b;
       }(),
       R"(spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\")"},
      {"a seed's ulimit in the template", [] {
         std::string b = CronJob();
         b.replace(b.find(R"("image":"busybox")"), 17,
                   R"("image":"busybox","securityContext":{"ulimits":[{"name":"nofile","soft":2048,"hard":1024}]})");
         return b;
       }(),
       "spec.jobTemplate.spec.template.spec.containers[0].securityContext.ulimits[0]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Call("POST", std::string(kCronJobs), c.body);
    EXPECT_EQ(r.status, 422);
    EXPECT_THAT(r.body, HasSubstr(R"(CronJob.batch \")"));
    EXPECT_THAT(r.body, HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace podlimits::controllers
