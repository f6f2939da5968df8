#include "api/workload_defaults.h"

#include "api/defaults.h"

namespace podlimits::api {
namespace {

using codec::Node;

void Default(Node& obj, std::string_view key, Node value) {
  if (const Node* n = obj.Find(key); n == nullptr || n->IsNull()) obj.Set(key, std::move(value));
}

void DefaultTemplate(Node& spec) { SetDefaultsPodTemplate(spec.Ensure("template")); }

}  // namespace

void SetDefaultsDeployment(Node& deployment) {
  Node& spec = deployment.Ensure("spec");
  Default(spec, "replicas", Node::Int(1));
  Node& strategy = spec.Ensure("strategy");
  Default(strategy, "type", Node::String("RollingUpdate"));
  if (StringOf(strategy.Find("type")) == "RollingUpdate") {
    Node& rolling = strategy.Ensure("rollingUpdate");
    Default(rolling, "maxUnavailable", Node::String("25%"));
    Default(rolling, "maxSurge", Node::String("25%"));
  }
  Default(spec, "revisionHistoryLimit", Node::Int(10));
  Default(spec, "progressDeadlineSeconds", Node::Int(600));
  DefaultTemplate(deployment.Ensure("spec"));
}

void SetDefaultsReplicaSet(Node& replica_set) {
  Node& spec = replica_set.Ensure("spec");
  Default(spec, "replicas", Node::Int(1));
  DefaultTemplate(spec);
}

void SetDefaultsJob(Node& job) {
  Node& spec = job.Ensure("spec");
  const Node* completions = spec.Find("completions");
  const Node* parallelism = spec.Find("parallelism");
  // "For a non-parallel job, you can leave both unset. When both are unset, both are
  // defaulted to 1."
  if ((completions == nullptr || completions->IsNull()) &&
      (parallelism == nullptr || parallelism->IsNull())) {
    spec.Set("completions", Node::Int(1));
  }
  Default(spec, "parallelism", Node::Int(1));
  if (spec.Find("backoffLimitPerIndex") && !spec.Find("backoffLimitPerIndex")->IsNull()) {
    Default(spec, "backoffLimit", Node::Int(2147483647));
  } else {
    Default(spec, "backoffLimit", Node::Int(6));
  }
  Default(spec, "completionMode", Node::String("NonIndexed"));
  Default(spec, "suspend", Node::Bool(false));
  const bool failure_policy = spec.Find("podFailurePolicy") && !spec.Find("podFailurePolicy")->IsNull();
  Default(spec, "podReplacementPolicy",
          Node::String(failure_policy ? "Failed" : "TerminatingOrFailed"));
  DefaultTemplate(spec);
  // The Job's labels default to its template's.
  const Node* template_labels = job.FindPath({"spec", "template", "metadata", "labels"});
  const Node* labels = job.FindPath({"metadata", "labels"});
  if (template_labels && template_labels->IsObject() &&
      (labels == nullptr || !labels->IsObject() || labels->members.empty())) {
    Node copy = *template_labels;
    job.Ensure("metadata").Set("labels", std::move(copy));
  }
}

void SetDefaultsCronJob(Node& cron_job) {
  Node& spec = cron_job.Ensure("spec");
  Default(spec, "concurrencyPolicy", Node::String("Allow"));
  Default(spec, "suspend", Node::Bool(false));
  Default(spec, "successfulJobsHistoryLimit", Node::Int(3));
  Default(spec, "failedJobsHistoryLimit", Node::Int(1));
  // Only the pod template within: a JobTemplateSpec is not a Job, so the Job's own defaults
  // (completions, backoffLimit, ...) come when the controller creates the Job.
  DefaultTemplate(spec.Ensure("jobTemplate").Ensure("spec"));
}

bool SetDefaultsWorkload(Node& object, std::string_view kind) {
  if (kind == "Deployment") {
    SetDefaultsDeployment(object);
  } else if (kind == "ReplicaSet") {
    SetDefaultsReplicaSet(object);
  } else if (kind == "Job") {
    SetDefaultsJob(object);
  } else if (kind == "CronJob") {
    SetDefaultsCronJob(object);
  } else {
    return false;
  }
  return true;
}

bool IsWorkloadKind(std::string_view kind) {
  return kind == "Deployment" || kind == "ReplicaSet" || kind == "Job" || kind == "CronJob";
}

}  // namespace podlimits::api

namespace podlimits::api {

void GenerateJobSelector(codec::Node& job, std::string_view uid) {
  using codec::Node;
  if (const Node* manual = job.FindPath({"spec", "manualSelector"}); manual && manual->AsBool()) {
    return;
  }
  const std::string name = StringOf(job.FindPath({"metadata", "name"}));
  Node& labels = job.Ensure("spec").Ensure("template").Ensure("metadata").Ensure("labels");
  for (const char* key : {"batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name",
                          "controller-uid", "job-name"}) {
    const bool is_uid = std::string_view(key).ends_with("controller-uid");
    if (!labels.Find(key)) labels.Set(key, Node::String(std::string(is_uid ? uid : name)));
  }
  Node& match = job.Ensure("spec").Ensure("selector").Ensure("matchLabels");
  if (!match.Find("batch.kubernetes.io/controller-uid")) {
    match.Set("batch.kubernetes.io/controller-uid", Node::String(std::string(uid)));
  }
  const Node* own = job.FindPath({"metadata", "labels"});
  if (own == nullptr || !own->IsObject() || own->members.empty()) {
    Node copy = *job.FindPath({"spec", "template", "metadata", "labels"});
    job.Ensure("metadata").Set("labels", std::move(copy));
  }
}

}  // namespace podlimits::api
