#include "controllers/job_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "codec/json_codec.h"
#include "controllers/conditions.h"
#include "controllers/owned_objects.h"
#include "printers/human_duration.h"

namespace podlimits::controllers {

using codec::Node;

namespace {

// When a failed pod finished: its containers' latest finishedAt.
std::optional<std::chrono::sys_seconds> FinishedAt(const Node& pod) {
  std::optional<std::chrono::sys_seconds> latest;
  if (const Node* statuses = pod.FindPath({"status", "containerStatuses"}); statuses && statuses->IsArray()) {
    for (const Node& c : statuses->items) {
      auto t = printers::ParseApiTime(codec::StringOf(c.FindPath({"state", "terminated", "finishedAt"})));
      if (t && (!latest || *t > *latest)) latest = t;
    }
  }
  return latest;
}

}  // namespace

void JobController::SyncAll() {
  for (const Object& job : api_.List("jobs")) Sync(job);
}

void JobController::Sync(const Object& object) {
  const Node& job = object.tree;
  if (job.FindPath({"metadata", "deletionTimestamp"})) return;
  const std::string ns = codec::StringOf(job.FindPath({"metadata", "namespace"}));
  const std::string uid = codec::StringOf(job.FindPath({"metadata", "uid"}));
  Node status = job.Find("status") && job.Find("status")->IsObject() ? *job.Find("status")
                                                                     : Node::Object();
  const Node old_status = status;
  const bool finished = ConditionTrue(status, "Complete") || ConditionTrue(status, "Failed");
  std::vector<Object> active;
  std::int64_t succeeded = 0, failed = 0, ready = 0;
  std::optional<std::chrono::sys_seconds> last_failure;
  for (Object& pod : OwnedPods(api_, ns, uid)) {
    const std::string phase = codec::StringOf(pod.tree.FindPath({"status", "phase"}));
    if (phase == "Succeeded") {
      ++succeeded;
    } else if (phase == "Failed") {
      ++failed;
      auto at = FinishedAt(pod.tree).value_or(api_.Now());
      if (!last_failure || at > *last_failure) last_failure = at;
    } else if (IsPodActive(pod.tree)) {
      if (IsPodReady(pod.tree)) ++ready;
      active.push_back(std::move(pod));
    }
  }
  auto delete_active = [&] {
    for (const Object& pod : active) {
      (void)api_.Delete("pods", ns, codec::StringOf(pod.tree.FindPath({"metadata", "name"})));
    }
  };
  const std::string now = api_.NowText();
  if (finished) {
    if (ConditionTrue(status, "Failed")) delete_active();
    return;
  }
  if (!status.Find("startTime")) status.Set("startTime", Node::String(now));
  const std::int64_t backoff_limit = codec::IntOf(job.FindPath({"spec", "backoffLimit"})).value_or(6);
  const std::optional<std::int64_t> completions = codec::IntOf(job.FindPath({"spec", "completions"}));
  const std::int64_t parallelism = codec::IntOf(job.FindPath({"spec", "parallelism"})).value_or(1);
  const bool suspended = job.FindPath({"spec", "suspend"}) && job.FindPath({"spec", "suspend"})->AsBool();
  std::optional<std::pair<std::string, std::string>> failure;  // reason, message
  if (failed > backoff_limit) {
    failure.emplace("BackoffLimitExceeded", "Job has reached the specified backoff limit");
  } else if (auto deadline = codec::IntOf(job.FindPath({"spec", "activeDeadlineSeconds"}))) {
    auto started = printers::ParseApiTime(codec::StringOf(status.Find("startTime")));
    if (started && api_.Now() - *started >= std::chrono::seconds(*deadline)) {
      failure.emplace("DeadlineExceeded", "Job was active longer than specified deadline");
    }
  }
  const bool complete = completions ? succeeded >= *completions : succeeded > 0 && active.empty();
  if (failure) {
    delete_active();
    SetCondition(status, {"FailureTarget", "True", failure->first, failure->second}, now, true);
    SetCondition(status, {"Failed", "True", failure->first, failure->second}, now, true);
    api_.Event(job, "Warning", failure->first, failure->second);
    active.clear();
  } else if (complete) {
    SetCondition(status, {"SuccessCriteriaMet", "True", "CompletionsReached",
                          "Reached expected number of succeeded pods"},
                 now, true);
    SetCondition(status, {"Complete", "True", "CompletionsReached",
                          "Reached expected number of succeeded pods"},
                 now, true);
    status.Set("completionTime", Node::String(now));
    api_.Event(job, "Normal", "Completed", "Job completed");
  } else if (!suspended) {
    std::int64_t want = parallelism;
    if (completions) want = std::min(want, *completions - succeeded);
    std::int64_t missing = want - static_cast<std::int64_t>(active.size());
    if (missing > 0 && failed > 0 && last_failure) {
      // The pod failure back-off: 10 s, doubled per failure, at most 6 minutes.
      const std::int64_t seconds = std::min<std::int64_t>(360, 10LL << std::min<std::int64_t>(failed - 1, 6));
      if (*last_failure + std::chrono::seconds(seconds) > api_.Now()) missing = 0;
    }
    const Node pod = PodFromTemplate(job);
    for (std::int64_t i = 0; i < missing; ++i) {
      ApiClient::Answer answer = api_.Create("pods", ns, pod);
      if (!answer.ok()) {
        api_.Event(job, "Warning", "FailedCreate", "Error creating: " + answer.Message());
        break;
      }
      auto created = codec::ParseJsonStream(answer.body);
      std::string name;
      if (created && created->size() == 1) name = codec::StringOf((*created)[0].FindPath({"metadata", "name"}));
      api_.Event(job, "Normal", "SuccessfulCreate", "Created pod: " + name);
      if (created && created->size() == 1) active.push_back({std::move((*created)[0]), 0});
    }
  }
  auto set_count = [&](std::string_view key, std::int64_t v, bool always = false) {
    if (v == 0 && !always) {
      status.Erase(key);
    } else {
      status.Set(key, Node::Int(v));
    }
  };
  set_count("active", static_cast<std::int64_t>(active.size()));
  set_count("succeeded", succeeded);
  set_count("failed", failed);
  set_count("terminating", 0, true);
  set_count("ready", ready, true);
  status.Set("uncountedTerminatedPods", Node::Object());
  if (codec::EncodeJsonSorted(status) == codec::EncodeJsonSorted(old_status)) return;
  Node next = job;
  next.Set("status", std::move(status));
  next.Ensure("metadata").Set("resourceVersion", Node::String(std::to_string(object.revision)));
  (void)api_.Update("jobs", next, "status");
}

}  // namespace podlimits::controllers
