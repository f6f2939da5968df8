#include "controllers/cron_job_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "codec/json_codec.h"
#include "controllers/conditions.h"
#include "controllers/owned_objects.h"
#include "printers/human_duration.h"

namespace podlimits::controllers {

using codec::Node;
using std::chrono::sys_seconds;

namespace {

std::string NameOf(const Node& o) { return codec::StringOf(o.FindPath({"metadata", "name"})); }
std::string UidOf(const Node& o) { return codec::StringOf(o.FindPath({"metadata", "uid"})); }

// The finished condition of a Job (Complete or Failed, status True), "" while it runs.
std::string FinishedCondition(const Node& job) {
  const Node* status = job.Find("status");
  if (status == nullptr) return "";
  if (ConditionTrue(*status, "Complete")) return "Complete";
  if (ConditionTrue(*status, "Failed")) return "Failed";
  return "";
}

bool InActive(const Node& status, std::string_view uid) {
  if (const Node* active = status.Find("active"); active && active->IsArray()) {
    for (const Node& ref : active->items) {
      if (codec::StringOf(ref.Find("uid")) == uid) return true;
    }
  }
  return false;
}

bool InActiveByName(const Node& status, std::string_view name) {
  if (const Node* active = status.Find("active"); active && active->IsArray()) {
    for (const Node& ref : active->items) {
      if (codec::StringOf(ref.Find("name")) == name) return true;
    }
  }
  return false;
}

void RemoveFromActive(Node& status, std::string_view uid) {
  Node* active = status.Find("active");
  if (active == nullptr || !active->IsArray()) return;
  std::erase_if(active->items, [&](const Node& ref) { return codec::StringOf(ref.Find("uid")) == uid; });
  if (active->items.empty()) status.Erase("active");
}

// getRef: the Job's ObjectReference.
Node JobReference(const Node& job) {
  Node ref = Node::Object();
  ref.Set("kind", Node::String("Job"));
  ref.Set("namespace", Node::String(codec::StringOf(job.FindPath({"metadata", "namespace"}))));
  ref.Set("name", Node::String(NameOf(job)));
  ref.Set("uid", Node::String(UidOf(job)));
  ref.Set("apiVersion", Node::String("batch/v1"));
  ref.Set("resourceVersion", Node::String(codec::StringOf(job.FindPath({"metadata", "resourceVersion"}))));
  return ref;
}

// Go's RFC 3339 of `t` in `zone` ("Z" for a zero offset).
std::string Rfc3339In(sys_seconds t, const validation::TimeZone& zone) {
  const std::int64_t offset = zone.Lookup(t.time_since_epoch().count()).seconds;
  std::string local = printers::FormatApiTime(t + std::chrono::seconds(offset));
  if (offset == 0) return local;
  local.pop_back();  // the "Z"
  const std::int64_t a = offset < 0 ? -offset : offset;
  return local + fmt::format("{}{:02}:{:02}", offset < 0 ? '-' : '+', a / 3600, a / 60 % 60);
}

// time.RFC1123Z of a UTC time: "Sun, 29 Nov 2026 09:34:00 +0000".
std::string Rfc1123Z(sys_seconds t) {
  const auto days = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day ymd{days};
  const std::chrono::hh_mm_ss hms{t - days};
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return fmt::format("{}, {:02} {} {} {:02}:{:02}:{:02} +0000",
                     kDays[std::chrono::weekday{days}.c_encoding()], unsigned(ymd.day()),
                     kMonths[unsigned(ymd.month()) - 1], int(ymd.year()), hms.hours().count(),
                     hms.minutes().count(), hms.seconds().count());
}

}  // namespace

ScheduleDecision MostRecentScheduleTime(const validation::CronSchedule& schedule,
                                        sys_seconds earliest, sys_seconds now) {
  ScheduleDecision out;
  const auto t1 = schedule.Next(earliest);
  // A schedule that never comes (robfig's zero time for both) is as two activations at the same
  // time: invalid.
  if (!t1) {
    out.invalid = true;
    return out;
  }
  if (now < *t1) return out;
  const auto t2 = schedule.Next(*t1);
  if (!t2 || now < *t2) {
    out.most_recent = t1;
    return out;
  }
  const std::int64_t between = (*t2 - *t1).count();
  if (between < 1) {
    out.invalid = true;
    return out;
  }
  // Upstream's estimate: the number of intervals since t1, then a scan from one interval before
  // the estimated last so that irregular schedules (30 6-16/4 * * 1-5) come out exact.
  const std::int64_t missed = (now - *t1).count() / between + 1;
  std::optional<sys_seconds> t = schedule.Next(*t1 + std::chrono::seconds((missed - 2) * between));
  for (; t && *t <= now; t = schedule.Next(*t)) out.most_recent = t;
  out.missed = missed > 100 ? ScheduleDecision::Missed::kMany : ScheduleDecision::Missed::kFew;
  return out;
}

std::string CronJobName(std::string_view cron_job, sys_seconds scheduled) {
  return fmt::format("{}-{}", cron_job, scheduled.time_since_epoch().count() / 60);
}

void CronJobController::SyncAll() {
  std::set<std::string> uids;
  for (const Object& cron_job : api_.List("cronjobs")) {
    uids.insert(UidOf(cron_job.tree));
    Sync(cron_job);
  }
  // What was reported about CronJobs that are gone is forgotten with them.
  std::erase_if(reported_, [&](const std::string& key) { return !uids.contains(key.substr(0, key.find('/'))); });
}

void CronJobController::EventOnce(const Node& cron_job, std::string_view type,
                                  std::string_view reason, const std::string& message) {
  if (!reported_.insert(fmt::format("{}/{}/{}", UidOf(cron_job), reason, message)).second) return;
  api_.Event(cron_job, type, reason, message);
}

bool CronJobController::DeleteJob(const Node& cron_job, const Node& job, Node& status) {
  ApiClient::Answer answer = api_.Delete("jobs", codec::StringOf(job.FindPath({"metadata", "namespace"})), NameOf(job));
  if (!answer.ok() && answer.status != 404) {
    api_.Event(cron_job, "Warning", "FailedDelete", "Deleted job: " + answer.Message());
    return false;
  }
  RemoveFromActive(status, UidOf(job));
  api_.Event(cron_job, "Normal", "SuccessfulDelete", "Deleted job " + NameOf(job));
  return true;
}

void CronJobController::Sync(const Object& object) {
  const Node& cj = object.tree;
  const std::string ns = codec::StringOf(cj.FindPath({"metadata", "namespace"}));
  const std::string uid = UidOf(cj);
  Node status = cj.Find("status") && cj.Find("status")->IsObject() ? *cj.Find("status") : Node::Object();
  const Node old_status = status;
  const sys_seconds now = api_.Now();

  // 1. The Jobs it controls.
  std::vector<Object> jobs;
  for (Object& job : api_.List("jobs", ns)) {
    if (ControlledBy(job.tree, uid)) jobs.push_back(std::move(job));
  }
  std::set<std::string> children;
  for (const Object& o : jobs) {
    const Node& job = o.tree;
    children.insert(UidOf(job));
    const bool found = InActive(status, UidOf(job));
    const std::string finished = FinishedCondition(job);
    if (!found && finished.empty()) {
      EventOnce(cj, "Warning", "UnexpectedJob",
                "Saw a job that the controller did not create or forgot: " + NameOf(job));
    } else if (found && !finished.empty()) {
      RemoveFromActive(status, UidOf(job));
      api_.Event(cj, "Normal", "SawCompletedJob",
                 fmt::format("Saw completed job: {}, condition: {}", NameOf(job), finished));
    } else if (finished == "Complete") {
      const std::string completed = codec::StringOf(job.FindPath({"status", "completionTime"}));
      auto at = printers::ParseApiTime(completed);
      auto last = printers::ParseApiTime(codec::StringOf(status.Find("lastSuccessfulTime")));
      if (at && (!last || *at > *last)) status.Set("lastSuccessfulTime", Node::String(completed));
    }
  }
  if (const Node* active = old_status.Find("active"); active && active->IsArray()) {
    for (const Node& ref : active->items) {
      const std::string job_uid = codec::StringOf(ref.Find("uid"));
      if (children.contains(job_uid)) continue;
      if (!api_.Get("jobs", ns, codec::StringOf(ref.Find("name")))) {
        api_.Event(cj, "Normal", "MissingJob", "Active job went missing: " + codec::StringOf(ref.Find("name")));
        RemoveFromActive(status, job_uid);
      }
    }
  }

  // 2.-5. A new Job when one is due.
  [&] {
    if (cj.FindPath({"metadata", "deletionTimestamp"})) return;
    const Node* zone_node = cj.FindPath({"spec", "timeZone"});
    validation::TimeZone zone = local_zone_;
    if (zone_node && !zone_node->IsNull()) {
      const std::string name = codec::StringOf(zone_node);
      auto loaded = validation::LoadTimeZone(name);
      if (!loaded) {
        EventOnce(cj, "Warning", "UnknownTimeZone",
                  fmt::format("invalid timeZone: {}: {}", field::GoQuote(name), loaded.error().detail));
        return;
      }
      zone = std::move(*loaded);
    }
    if (const Node* s = cj.FindPath({"spec", "suspend"}); s && s->AsBool()) return;
    std::string schedule_text = codec::StringOf(cj.FindPath({"spec", "schedule"}));
    if (schedule_text.find("TZ") != std::string::npos) {
      EventOnce(cj, "Warning", "UnsupportedSchedule",
                fmt::format("CRON_TZ or TZ used in schedule {} is not officially supported, see "
                            "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ "
                            "for more details",
                            field::GoQuote(schedule_text)));
    }
    auto schedule = validation::ParseCronSchedule(schedule_text, zone);
    if (!schedule) {
      EventOnce(cj, "Warning", "UnparseableSchedule",
                fmt::format("unparseable schedule: {} : {}", field::GoQuote(schedule_text), schedule.error().detail));
      return;
    }
    auto earliest = printers::ParseApiTime(codec::StringOf(status.Find("lastScheduleTime")));
    if (!earliest) earliest = printers::ParseApiTime(codec::StringOf(cj.FindPath({"metadata", "creationTimestamp"})));
    if (!earliest) return;
    const std::optional<std::int64_t> deadline = codec::IntOf(cj.FindPath({"spec", "startingDeadlineSeconds"}));
    if (deadline && now - std::chrono::seconds(*deadline) > *earliest) *earliest = now - std::chrono::seconds(*deadline);
    const ScheduleDecision decision = MostRecentScheduleTime(*schedule, *earliest, now);
    if (decision.invalid) {
      EventOnce(cj, "Warning", "InvalidSchedule",
                fmt::format("invalid schedule: {} : time difference between two schedules is less than 1 second",
                            schedule_text));
      return;
    }
    if (!decision.most_recent) return;
    const sys_seconds scheduled = *decision.most_recent;
    if (decision.missed == ScheduleDecision::Missed::kMany) {
      EventOnce(cj, "Warning", "TooManyMissedTimes",
                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew");
    }
    if (deadline && scheduled + std::chrono::seconds(*deadline) < now) {
      EventOnce(cj, "Warning", "MissSchedule", "Missed scheduled time to start a job: " + Rfc1123Z(scheduled));
      return;
    }
    const std::string job_name = CronJobName(NameOf(cj), scheduled);
    if (InActiveByName(status, job_name) ||
        printers::ParseApiTime(codec::StringOf(status.Find("lastScheduleTime"))) == scheduled) {
      return;
    }
    const std::string policy = codec::StringOf(cj.FindPath({"spec", "concurrencyPolicy"}));
    const Node* active = status.Find("active");
    const bool has_active = active && active->IsArray() && !active->items.empty();
    if (policy == "Forbid" && has_active) {
      EventOnce(cj, "Normal", "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is Forbid");
      return;
    }
    if (policy == "Replace" && has_active) {
      const Node refs = *active;
      for (const Node& ref : refs.items) {
        auto job = api_.Get("jobs", ns, codec::StringOf(ref.Find("name")));
        if (!job) continue;
        if (!DeleteJob(cj, job->tree, status)) return;
      }
    }
    // getJobFromTemplate2.
    Node job = Node::Object();
    job.Set("apiVersion", Node::String("batch/v1"));
    job.Set("kind", Node::String("Job"));
    Node meta = Node::Object();
    meta.Set("name", Node::String(job_name));
    meta.Set("namespace", Node::String(ns));
    const Node* tmeta = cj.FindPath({"spec", "jobTemplate", "metadata"});
    if (const Node* labels = tmeta ? tmeta->Find("labels") : nullptr; labels && labels->IsObject()) {
      meta.Set("labels", *labels);
    }
    Node annotations = Node::Object();
    if (const Node* a = tmeta ? tmeta->Find("annotations") : nullptr; a && a->IsObject()) annotations = *a;
    annotations.Set("batch.kubernetes.io/cronjob-scheduled-timestamp", Node::String(Rfc3339In(scheduled, zone)));
    meta.Set("annotations", std::move(annotations));
    Node refs = Node::Array();
    refs.items.push_back(ControllerReference(cj));
    meta.Set("ownerReferences", std::move(refs));
    job.Set("metadata", std::move(meta));
    const Node* tspec = cj.FindPath({"spec", "jobTemplate", "spec"});
    job.Set("spec", tspec ? *tspec : Node::Object());
    ApiClient::Answer answer = api_.Create("jobs", ns, job);
    std::optional<Node> created;
    if (answer.ok()) {
      if (auto parsed = codec::ParseJsonStream(answer.body); parsed && parsed->size() == 1) created = (*parsed)[0];
      api_.Event(cj, "Normal", "SuccessfulCreate", "Created job " + job_name);
    } else if (answer.status == 409) {
      // Made before and not recorded (the status write lost): taken in if it is ours.
      auto existing = api_.Get("jobs", ns, job_name);
      if (!existing || !ControlledBy(existing->tree, uid) || InActive(status, UidOf(existing->tree))) return;
      created = existing->tree;
    } else {
      EventOnce(cj, "Warning", "FailedCreate", "Error creating job: " + answer.Message());
      return;
    }
    if (!created) return;
    status.Ensure("active", Node::Kind::kArray).items.push_back(JobReference(*created));
    status.Set("lastScheduleTime", Node::String(printers::FormatApiTime(scheduled)));
  }();

  // 6. The history limits, over the Jobs listed at the start.
  for (const auto& [condition, key] : {std::pair{"Complete", "successfulJobsHistoryLimit"},
                                       std::pair{"Failed", "failedJobsHistoryLimit"}}) {
    const std::optional<std::int64_t> limit = codec::IntOf(cj.FindPath({"spec", key}));
    if (!limit) continue;
    std::vector<const Node*> finished;
    for (const Object& o : jobs) {
      if (FinishedCondition(o.tree) == condition && !o.tree.FindPath({"metadata", "deletionTimestamp"})) {
        finished.push_back(&o.tree);
      }
    }
    if (static_cast<std::int64_t>(finished.size()) <= *limit) continue;
    // byJobStartTime: by status.startTime (none last), then name.
    std::sort(finished.begin(), finished.end(), [](const Node* a, const Node* b) {
      auto ta = printers::ParseApiTime(codec::StringOf(a->FindPath({"status", "startTime"})));
      auto tb = printers::ParseApiTime(codec::StringOf(b->FindPath({"status", "startTime"})));
      if (ta.has_value() != tb.has_value()) return ta.has_value();
      if (ta != tb) return *ta < *tb;
      return NameOf(*a) < NameOf(*b);
    });
    const std::size_t excess = finished.size() - static_cast<std::size_t>(*limit);
    for (std::size_t i = 0; i < excess; ++i) DeleteJob(cj, *finished[i], status);
  }

  // 7. The status.
  if (codec::EncodeJsonSorted(status) == codec::EncodeJsonSorted(old_status)) return;
  Node next = cj;
  next.Set("status", std::move(status));
  next.Ensure("metadata").Set("resourceVersion", Node::String(std::to_string(object.revision)));
  (void)api_.Update("cronjobs", next, "status");
}

}  // namespace podlimits::controllers
