// A pod's event as the kubelet's event recorder posts it: a core/v1 Event about the pod, from
// the kubelet on this node, named `<pod>.<hex of the event's Unix nanoseconds>` (the recorder's
// naming), so that publishing the same event twice is one object.
#pragma once

#include <string>

#include "codec/node.h"
#include "nodeagent/monitor_files.h"

namespace podlimits::nodeagent {

struct EventSubject {
  std::string namespace_, name, uid;
  std::string node_name;
  // Who reports: the kubelet (source.host is the node), or the scheduler ("default-scheduler",
  // no host) for Scheduled and FailedScheduling.
  std::string component = "kubelet";
  // "Pod", or "Node": the kubelet's nodeRef (uid = the node's name, no namespace), its events
  // kept in the default namespace.
  std::string kind = "Pod";
};

std::string ApiEventName(const EventSubject& pod, const MonitorEvent& event);
codec::Node ApiEvent(const EventSubject& pod, const MonitorEvent& event);

}  // namespace podlimits::nodeagent
