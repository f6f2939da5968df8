// `kubectl logs`: the log file of a container of one of the node's pods (node_agent.h).
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "cri/container_log.h"
#include "nodeagent/object_fields.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;

Result<fs::path> NodeAgent::ContainerLogFile(const Node& pod, std::string_view container,
                                             bool previous) const {
  // A mirror pod's logs are its static pod's.
  std::string uid = Str(pod, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)});
  if (uid.empty()) uid = Str(pod, {"metadata", "uid"});
  const std::string name = Str(pod, {"metadata", "name"});
  const std::string ns = Str(pod, {"metadata", "namespace"});
  // Run k of a container writes k.log, k being its restartCount when it started: the current
  // (or, backing off, the last) run's file is restartCount.log, the one before it the previous.
  int restarts = -1;
  for (const char* list : {"initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"}) {
    const Node* statuses = pod.FindPath({"status", list});
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const Node& s : statuses->items) {
      if (Str(s, {"name"}) != container) continue;
      restarts = static_cast<int>(IntAt(s, {"restartCount"}).value_or(0));
      const bool ran = s.FindPath({"state", "running"}) || s.FindPath({"state", "terminated"});
      if (!previous && !ran && !s.FindPath({"lastState", "terminated"})) {
        const std::string reason = Str(s, {"state", "waiting", "reason"});
        return Failure(fmt::format("container \"{}\" in pod \"{}\" is waiting to start: {}",
                                   container, name, reason));
      }
    }
  }
  // No status for it (a pod the node refused, or not synced yet): the kubelet's
  // validateContainerLogStatus says so in these words.
  if (restarts < 0) {
    return Failure(
        fmt::format("container \"{}\" in pod \"{}\" is not available", container, name));
  }
  if (previous) {
    if (restarts == 0) {
      return Failure(fmt::format("previous terminated container \"{}\" in pod \"{}\" not found",
                                 container, name));
    }
    restarts -= 1;
  }
  return cri::ContainerLogFile(cri::PodLogDirectory(options_.pod_logs_dir, ns, name, uid),
                                   container, restarts);
}

}  // namespace podlimits::nodeagent
