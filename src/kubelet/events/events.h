// Pod events as the kubelet records them (Normal/Warning, reason, message) and their rendering
// the way `kubectl describe` prints the Events section.
//
// The recorder only collects and prints: podlimits has no apiserver to post events to, so `run`
// prints each event as it happens (a sink) and `-o json` reports the collected list.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace podlimits::kubelet {

enum class EventType { kNormal, kWarning };

std::string_view EventTypeName(EventType type);  // "Normal" / "Warning"

struct Event {
  EventType type = EventType::kNormal;
  std::string reason;   // CamelCase, e.g. "PIDLimitCapped"
  std::string message;  // one line

  bool operator==(const Event&) const = default;
};

// Reasons podlimits' node half emits (upstream names where upstream has one).
inline constexpr std::string_view kReasonPIDLimitCapped = "PIDLimitCapped";  // KEP-6063
// podlimits' own: the pod's limits.pid is its cgroup's pids.max (not capped), said where
// `kubectl describe pod` shows it; upstream shows the effective limit nowhere but the cgroup.
inline constexpr std::string_view kReasonPIDLimitApplied = "PIDLimitApplied";
inline constexpr std::string_view kReasonFailedNodeDeclaredFeaturesCheck =
    "FailedNodeDeclaredFeaturesCheck";  // KEP-5474 / KEP-5328
// podlimits' own: a pod asks a ulimit above what this node can grant.
inline constexpr std::string_view kReasonUlimitExceedsNodeCeiling = "UlimitExceedsNodeCeiling";
// podlimits' own: a pod sets a field this node does not apply (field_coverage.h).
inline constexpr std::string_view kReasonUnsupportedPodField = "UnsupportedPodField";
// podlimits' own: a resource accepted under `unenforcedResources: Warn`.
inline constexpr std::string_view kReasonResourceNotEnforced = "ResourceNotEnforced";
// podlimits' own: nofile -1 granted as more than 1048576 descriptors (seed 000's nofile trap).
inline constexpr std::string_view kReasonUlimitNofileLarge = "UlimitNofileLarge";
// podlimits' own: `-1` (unlimited) granted as this node's finite ceiling.
inline constexpr std::string_view kReasonUlimitClamped = "UlimitClamped";

// One event as a streaming line, in the column order of `kubectl describe`:
// "  Warning  PIDLimitCapped  Requested PID limit ...".
std::string FormatEventLine(const Event& e);

// The `kubectl describe` Events section for a finished list: a header and aligned columns
// (Type, Reason, Message), or "Events:  <none>" when empty.
std::string RenderEventsTable(const std::vector<Event>& events);

// Collects events in order; optionally forwards each to a sink as it is recorded. Safe to call
// from several threads (the runtime's output pumps and the signal path record concurrently).
class EventRecorder {
 public:
  using Sink = std::function<void(const Event&)>;

  EventRecorder() = default;
  explicit EventRecorder(Sink sink) : sink_(std::move(sink)) {}

  void Record(Event e);
  void Eventf(EventType type, std::string_view reason, std::string message) {
    Record(Event{type, std::string(reason), std::move(message)});
  }
  std::vector<Event> Events() const;

 private:
  Sink sink_;
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

}  // namespace podlimits::kubelet
