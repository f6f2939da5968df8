// The node agent's event recorder (node_agent.h "publish"): the events each monitor writes,
// and the agent's own (the scheduler's, the node's), posted as Event objects.
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "base/fs.h"
#include "base/uuid.h"
#include "kubelet/plan/pod_plan.h"
#include "nodeagent/api_event.h"
#include "nodeagent/managed_writes.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/object_fields.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;
using storage::ObjectKey;

namespace {

// The scheduler's events are kube-scheduler's writes, the others the kubelet's.
std::string_view EventManager(const EventSubject& subject) {
  return subject.component == "default-scheduler" ? kSchedulerManager : kKubeletManager;
}

}  // namespace

void NodeAgent::PostPodEvent(const ObjectKey& pod, const std::string& uid,
                             std::string_view component, std::string_view type,
                             std::string_view reason, const std::string& message) {
  (void)CreateEvent({pod.namespace_, pod.name, uid, options_.node_name, std::string(component)},
                    type, reason, message);
}

std::optional<std::string> NodeAgent::CreateEvent(const EventSubject& subject,
                                                  std::string_view type, std::string_view reason,
                                                  const std::string& message) {
  const MonitorEvent e = MonitorEventNow(
      {type == "Warning" ? kubelet::EventType::kWarning : kubelet::EventType::kNormal,
       std::string(reason), message});
  Node event = ApiEvent(subject, e);
  event.Ensure("metadata").Set("uid", Node::String(NewUuid()));
  event.Ensure("metadata").Set("creationTimestamp", Node::String(e.time));
  const std::string name = ApiEventName(subject, e);
  const std::string ns = codec::StringOf(event.FindPath({"metadata", "namespace"}));
  RecordManagedWrite("events", "", EventManager(subject), nullptr, event);
  auto created = store_.Create({"events", ns, name}, [&](std::int64_t rv) {
    return apiserver::RenderStoredObject(event, "Event", rv);
  });
  if (!created) return std::nullopt;
  return name;
}

// The kubelet's event recorder with its correlator: an event like one already posted for the
// pod (same type, reason and message) raises that one's count and lastTimestamp, as
// `kubectl describe` shows "(x3 over 2m)". How far the events file was published is kept beside
// it, so a restarted agent neither loses nor repeats any.
void NodeAgent::PublishEvents(const std::string& uid, KnownPod& known, const fs::path& dir) {
  if (!known.events_loaded) {
    known.events_loaded = true;
    if (auto text = ReadSmallFile(dir / "events.published", 64)) {
      try {
        known.event_offset = std::stoull(*text);
      } catch (...) {
      }
    }
    // The events an earlier agent posted for the pod, so repeats still count on them. Only a
    // pod an earlier agent published events for has any; they come from one index of the
    // store's events built the first time one is needed (a list of every event of the
    // namespace for each new pod cost a node that had churned thousands of pods more and more
    // memory and time, bench/serve_soak.py).
    if (known.event_offset > 0) {
      if (!earlier_events_) {
        earlier_events_.emplace();
        if (auto listed = store_.List("events", "", true)) {
          for (const auto& item : listed->items) {
            auto event = apiserver::ParseStoredObject(item.data);
            if (!event) continue;
            const std::string about = Str(*event, {"involvedObject", "uid"});
            if (!pods_.contains(about)) continue;
            (*earlier_events_)[about][fmt::format("{}\n{}\n{}", Str(*event, {"type"}),
                                                  Str(*event, {"reason"}),
                                                  Str(*event, {"message"}))] = item.key.name;
          }
        }
      }
      if (auto it = earlier_events_->find(uid); it != earlier_events_->end()) {
        known.posted_events = std::move(it->second);
        earlier_events_->erase(it);
      }
    }
  }
  const std::uint64_t before = known.event_offset;
  auto events = ReadMonitorEvents(dir, known.event_offset);
  if (events.empty()) return;
  EventSubject subject{known.key.namespace_, known.key.name, uid, options_.node_name};
  for (const auto& e : events) {
    const std::string similar = fmt::format("{}\n{}\n{}", kubelet::EventTypeName(e.event.type),
                                            e.event.reason, e.event.message);
    if (auto it = known.posted_events.find(similar); it != known.posted_events.end()) {
      const ObjectKey key{"events", known.key.namespace_, it->second};
      bool done = false;
      for (int attempt = 0; attempt < 3 && !done; ++attempt) {
        auto got = store_.Get(key);
        if (!got) break;
        auto event = apiserver::ParseStoredObject(got->data);
        if (!event) break;
        std::int64_t count = 1;
        if (const Node* c = event->Find("count"); c && c->kind == Node::Kind::kNumber) {
          count = std::stoll(c->scalar);
        }
        const Node live = *event;
        event->Set("count", Node::Int(count + 1));
        event->Set("lastTimestamp", Node::String(e.time));
        RecordManagedWrite("events", "", kKubeletManager, &live, *event);
        auto updated = store_.Update(key, got->revision, [&](std::int64_t rv) {
          return apiserver::RenderStoredObject(*event, "Event", rv);
        });
        done = updated.has_value() || !updated.error().Is(storage::kConflict);
      }
      if (done) continue;
    }
    Node event = ApiEvent(subject, e);
    event.Ensure("metadata").Set("uid", Node::String(NewUuid()));
    event.Ensure("metadata").Set("creationTimestamp", Node::String(e.time));
    const std::string name = ApiEventName(subject, e);
    RecordManagedWrite("events", "", kKubeletManager, nullptr, event);
    (void)store_.Create({"events", known.key.namespace_, name}, [&](std::int64_t rv) {
      return apiserver::RenderStoredObject(event, "Event", rv);
    });
    known.posted_events[similar] = name;
  }
  if (known.event_offset != before) {
    (void)WriteFileAtomically(dir / "events.published", std::to_string(known.event_offset) + "\n",
                              0600);
  }
}

}  // namespace podlimits::nodeagent
