// `kubectl get` columns of the workloads, as pkg/printers/internalversion prints them:
//
//   deployments  NAME READY UP-TO-DATE AVAILABLE AGE        (wide: CONTAINERS IMAGES SELECTOR)
//   replicasets  NAME DESIRED CURRENT READY AGE             (wide: the same three)
//   jobs         NAME STATUS COMPLETIONS DURATION AGE       (wide: the same three)
//   cronjobs     NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE
//                (wide: the same three, of spec.jobTemplate)
//
// The descriptions are the column definitions' (the types' swagger docs).
#include <fmt/format.h>

#include "api/label_selector.h"
#include "printers/human_duration.h"
#include "printers/printer.h"

namespace podlimits::printers {
namespace {

using codec::Node;

constexpr std::string_view kContainersDoc = "Names of each container in the template.";
constexpr std::string_view kImagesDoc = "Images referenced by each container in the template.";

std::int64_t IntAt(const Node& o, std::initializer_list<std::string_view> path) {
  return codec::IntOf(o.FindPath(path)).value_or(0);
}

// layoutContainerCells: the template's container names and images, comma-joined. A CronJob's
// template is its jobTemplate's.
std::vector<Node> WideCells(const Node& workload) {
  const Node* job_spec = workload.FindPath({"spec", "jobTemplate"});
  const Node& o = job_spec ? *job_spec : workload;
  std::string names, images;
  if (const Node* cs = o.FindPath({"spec", "template", "spec", "containers"}); cs && cs->IsArray()) {
    for (const Node& c : cs->items) {
      names += (names.empty() ? "" : ",") + codec::StringOf(c.Find("name"));
      images += (images.empty() ? "" : ",") + codec::StringOf(c.Find("image"));
    }
  }
  return {Node::String(names), Node::String(images),
          Node::String(api::FormatLabelSelector(o.FindPath({"spec", "selector"})))};
}

Node Name(const Node& o) { return Node::String(codec::StringOf(o.FindPath({"metadata", "name"}))); }
Node Age(const Node& o, std::chrono::sys_seconds now) {
  return Node::String(AgeSince(codec::StringOf(o.FindPath({"metadata", "creationTimestamp"})), now));
}

bool HasCondition(const Node& o, std::string_view type) {
  if (const Node* cs = o.FindPath({"status", "conditions"}); cs && cs->IsArray()) {
    for (const Node& c : cs->items) {
      if (codec::StringOf(c.Find("type")) == type && codec::StringOf(c.Find("status")) == "True") {
        return true;
      }
    }
  }
  return false;
}

// printJob's STATUS: the first of Complete, Failed, Terminating, Suspended, FailureTarget,
// else Running.
std::string JobStatus(const Node& o) {
  if (HasCondition(o, "Complete")) return "Complete";
  if (HasCondition(o, "Failed")) return "Failed";
  if (o.FindPath({"metadata", "deletionTimestamp"})) return "Terminating";
  if (HasCondition(o, "Suspended")) return "Suspended";
  if (HasCondition(o, "FailureTarget")) return "FailureTarget";
  return "Running";
}

std::string JobCompletions(const Node& o) {
  const std::int64_t succeeded = IntAt(o, {"status", "succeeded"});
  if (auto completions = codec::IntOf(o.FindPath({"spec", "completions"}))) {
    return fmt::format("{}/{}", succeeded, *completions);
  }
  const std::int64_t parallelism = IntAt(o, {"spec", "parallelism"});
  if (parallelism > 1) return fmt::format("{}/1 of {}", succeeded, parallelism);
  return fmt::format("{}/1", succeeded);
}

std::string JobDuration(const Node& o, std::chrono::sys_seconds now) {
  auto start = ParseApiTime(codec::StringOf(o.FindPath({"status", "startTime"})));
  if (!start) return "";
  auto end = ParseApiTime(codec::StringOf(o.FindPath({"status", "completionTime"})));
  return HumanDuration(end ? *end - *start : now - *start);
}

}  // namespace

std::optional<Printer> WorkloadPrinter(std::string_view resource) {
  const Column name{"Name", "string", "name", kNameDoc};
  const Column age{"Age", "string", "", kCreationDoc};
  const Column containers{"Containers", "string", "", kContainersDoc, 1};
  const Column images{"Images", "string", "", kImagesDoc, 1};
  // A Job's selector, which a CronJob's table shows as well (its Jobs' template's).
  const Column job_selector{"Selector", "string", "",
                            "A label query over pods that should match the pod count. Normally, "
                            "the system sets this field for you. More info: "
                            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                            "labels/#label-selectors",
                            1};
  auto row = [](std::vector<Node> cells, const Node& o) {
    for (Node& c : WideCells(o)) cells.push_back(std::move(c));
    return cells;
  };
  if (resource == "deployments") {
    return Printer{
        {name,
         {"Ready", "string", "", "Number of the pod with ready state"},
         {"Up-to-date", "string", "",
          "Total number of non-terminating pods targeted by this deployment that have the "
          "desired template spec."},
         {"Available", "string", "",
          "Total number of available non-terminating pods (ready for at least minReadySeconds) "
          "targeted by this deployment."},
         age, containers, images,
         {"Selector", "string", "",
          "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be "
          "the ones affected by this deployment. It must match the pod template's labels.",
          1}},
        [=](const Node& o, std::chrono::sys_seconds now) {
          return row({Name(o),
                      Node::String(fmt::format("{}/{}", IntAt(o, {"status", "readyReplicas"}),
                                               IntAt(o, {"spec", "replicas"}))),
                      Node::Int(IntAt(o, {"status", "updatedReplicas"})),
                      Node::Int(IntAt(o, {"status", "availableReplicas"})), Age(o, now)},
                     o);
        }};
  }
  if (resource == "replicasets") {
    return Printer{
        {name,
         {"Desired", "integer", "",
          "Replicas is the number of desired pods. This is a pointer to distinguish between "
          "explicit zero and unspecified. Defaults to 1. More info: "
          "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"},
         {"Current", "integer", "",
          "Replicas is the most recently observed number of non-terminating pods. More info: "
          "https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"},
         {"Ready", "integer", "",
          "The number of non-terminating pods targeted by this ReplicaSet with a Ready "
          "Condition."},
         age, containers, images,
         {"Selector", "string", "",
          "Selector is a label query over pods that should match the replica count. Label keys "
          "and values that must match in order to be controlled by this replica set. It must "
          "match the pod template's labels. More info: "
          "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
          "#label-selectors",
          1}},
        [=](const Node& o, std::chrono::sys_seconds now) {
          return row({Name(o), Node::Int(IntAt(o, {"spec", "replicas"})),
                      Node::Int(IntAt(o, {"status", "replicas"})),
                      Node::Int(IntAt(o, {"status", "readyReplicas"})), Age(o, now)},
                     o);
        }};
  }
  if (resource == "jobs") {
    return Printer{
        {name,
         {"Status", "string", "", "Status of the job."},
         {"Completions", "string", "",
          "The number of pods which reached phase Succeeded. The value increases monotonically "
          "for a given spec. However, it may decrease in reaction to scale down of elastic "
          "indexed jobs."},
         {"Duration", "string", "", "Time required to complete the job."},
         age, containers, images,
         job_selector},
        [=](const Node& o, std::chrono::sys_seconds now) {
          return row({Name(o), Node::String(JobStatus(o)), Node::String(JobCompletions(o)),
                      Node::String(JobDuration(o, now)), Age(o, now)},
                     o);
        }};
  }
  if (resource == "cronjobs") {
    return Printer{
        {name,
         {"Schedule", "string", "",
          "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."},
         {"Timezone", "string", "",
          "The time zone name for the given schedule, see "
          "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this "
          "will default to the time zone of the kube-controller-manager process. The set of "
          "valid time zone names and the time zone offset is loaded from the system-wide time "
          "zone database by the API server during CronJob validation and the controller manager "
          "during execution. If no system-wide time zone database can be found a bundled version "
          "of the database is used instead. If the time zone name becomes invalid during the "
          "lifetime of a CronJob or due to a change in host configuration, the controller will "
          "stop creating new new Jobs and will create a system event with the reason "
          "UnknownTimeZone. More information can be found in "
          "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"},
         {"Suspend", "boolean", "",
          "This flag tells the controller to suspend subsequent executions, it does not apply to "
          "already started executions.  Defaults to false."},
         {"Active", "integer", "", "A list of pointers to currently running jobs."},
         {"Last Schedule", "string", "",
          "Information when was the last time the job was successfully scheduled."},
         age, containers, images,
         job_selector},
        [=](const Node& o, std::chrono::sys_seconds now) {
          const Node* zone = o.FindPath({"spec", "timeZone"});
          const Node* suspend = o.FindPath({"spec", "suspend"});
          const Node* active = o.FindPath({"status", "active"});
          const Node* last = o.FindPath({"status", "lastScheduleTime"});
          // printBoolPtr: <unset> for nil, else True/False.
          const std::string suspended =
              suspend == nullptr || suspend->IsNull() ? "<unset>" : suspend->AsBool() ? "True" : "False";
          return row({Name(o), Node::String(codec::StringOf(o.FindPath({"spec", "schedule"}))),
                      Node::String(zone && !zone->IsNull() ? codec::StringOf(zone) : "<none>"),
                      Node::String(suspended),
                      Node::Int(active && active->IsArray() ? static_cast<std::int64_t>(active->items.size()) : 0),
                      Node::String(last && !last->IsNull() ? AgeSince(codec::StringOf(last), now) : "<none>"),
                      Age(o, now)},
                     o);
        }};
  }
  return std::nullopt;
}

}  // namespace podlimits::printers
