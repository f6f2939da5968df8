#include "kubelet/status/pod_api_status.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "kubelet/status/condition_time.h"

namespace podlimits::kubelet {
namespace {

using codec::Node;

Node Str(std::string_view s) { return Node::String(std::string(s)); }

Node TerminatedNode(const TerminatedState& t) {
  Node n = Node::Object();
  n.Set("exitCode", Node::Int(t.exit_code));
  if (t.signal != 0) n.Set("signal", Node::Int(t.signal));
  if (!t.reason.empty()) n.Set("reason", Str(t.reason));
  if (!t.message.empty()) n.Set("message", Str(t.message));
  n.Set("startedAt", t.started_at.empty() ? Node::Null() : Str(t.started_at));
  n.Set("finishedAt", t.finished_at.empty() ? Node::Null() : Str(t.finished_at));
  if (!t.container_id.empty()) n.Set("containerID", Str(t.container_id));
  return n;
}

std::optional<TerminatedState> ReadTerminated(const Node* n) {
  if (n == nullptr || !n->IsObject()) return std::nullopt;
  auto text = [&](std::string_view key) {
    const Node* v = n->Find(key);
    return v != nullptr && v->IsString() ? std::string(v->Str()) : std::string();
  };
  auto number = [&](std::string_view key) {
    const Node* v = n->Find(key);
    return v != nullptr ? static_cast<int>(v->AsInt().value_or(0)) : 0;
  };
  TerminatedState t;
  t.exit_code = number("exitCode");
  t.signal = number("signal");
  t.reason = text("reason");
  t.message = text("message");
  t.started_at = text("startedAt");
  t.finished_at = text("finishedAt");
  t.container_id = text("containerID");
  return t;
}

Node ContainerStatusNode(const ContainerProgress& c) {
  Node n = Node::Object();
  n.Set("name", Str(c.name));
  Node state = Node::Object();
  switch (c.state) {
    case ContainerProgress::State::kWaiting: {
      Node waiting = Node::Object();
      if (!c.waiting_reason.empty()) waiting.Set("reason", Str(c.waiting_reason));
      if (!c.waiting_message.empty()) waiting.Set("message", Str(c.waiting_message));
      state.Set("waiting", std::move(waiting));
      break;
    }
    case ContainerProgress::State::kRunning: {
      Node running = Node::Object();
      running.Set("startedAt", Str(c.started_at));
      state.Set("running", std::move(running));
      break;
    }
    case ContainerProgress::State::kTerminated:
      state.Set("terminated", TerminatedNode(*c.terminated));
      break;
  }
  n.Set("state", std::move(state));
  Node last = Node::Object();
  if (c.last_terminated) last.Set("terminated", TerminatedNode(*c.last_terminated));
  n.Set("lastState", std::move(last));
  n.Set("ready", Node::Bool(c.ready));
  n.Set("restartCount", Node::Int(c.restart_count));
  n.Set("image", Str(c.image));
  n.Set("imageID", Str(c.image_id));
  if (!c.container_id.empty()) n.Set("containerID", Str(c.container_id));
  n.Set("started", Node::Bool(c.started));
  return n;
}


Node Condition(const Node* previous, std::string_view type, bool status, std::string_view reason,
               std::string_view message, std::string_view now) {
  const std::string_view value = status ? "True" : "False";
  Node n = Node::Object();
  n.Set("type", Str(type));
  n.Set("status", Str(value));
  n.Set("lastProbeTime", Node::Null());
  n.Set("lastTransitionTime",
        Str(ConditionTransitionTime(previous ? previous->Find("conditions") : nullptr, type,
                                    value, now)));
  if (!reason.empty()) n.Set("reason", Str(reason));
  if (!message.empty()) n.Set("message", Str(message));
  return n;
}

}  // namespace

std::vector<ContainerHistory> ContainerHistoryFromStatus(const Node& status) {
  std::vector<ContainerHistory> out;
  for (const char* list :
       {"initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"}) {
    const Node* statuses = status.Find(list);
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const Node& c : statuses->items) {
      const Node* name = c.Find("name");
      if (name == nullptr || !name->IsString()) continue;
      ContainerHistory h;
      h.name = std::string(name->Str());
      if (const Node* n = c.Find("restartCount")) {
        h.restart_count = static_cast<int>(n->AsInt().value_or(0));
      }
      h.was_running = c.FindPath({"state", "running"}) != nullptr;
      h.terminated = ReadTerminated(c.FindPath({"state", "terminated"}));
      h.last_terminated = ReadTerminated(c.FindPath({"lastState", "terminated"}));
      out.push_back(std::move(h));
    }
  }
  return out;
}

std::string RunningPodPhase(const PodProgress& progress, std::string_view restart_policy) {
  int running = 0, waiting = 0, stopped = 0, succeeded = 0;
  bool init_pending = false;
  for (const auto& c : progress.containers) {
    if (!c.init) continue;
    if (c.sidecar) continue;  // a restartable init container does not hold the phase
    const bool done = c.state == ContainerProgress::State::kTerminated && c.terminated &&
                      c.terminated->exit_code == 0;
    if (!done) init_pending = true;
  }
  for (const auto& c : progress.containers) {
    if (c.init || c.ephemeral) continue;  // ephemeral containers hold neither phase nor readiness
    switch (c.state) {
      case ContainerProgress::State::kRunning: ++running; break;
      case ContainerProgress::State::kTerminated:
        ++stopped;
        if (c.terminated && c.terminated->exit_code == 0) ++succeeded;
        break;
      case ContainerProgress::State::kWaiting:
        if (c.last_terminated) {
          ++stopped;
        } else {
          ++waiting;
        }
        break;
    }
  }
  if (init_pending && !progress.initialized) return "Pending";
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (restart_policy == "Always") return "Running";
    if (restart_policy == "OnFailure") return succeeded == stopped ? "Succeeded" : "Running";
    return succeeded == stopped ? "Succeeded" : "Failed";
  }
  return "Pending";
}

Node PodApiStatus(const PodProgress& progress, const PodStatusContext& context,
                  const Node* previous, std::string_view now) {
  const std::string phase = progress.final_phase.empty()
                                ? RunningPodPhase(progress, context.restart_policy)
                                : progress.final_phase;
  const bool completed = phase == "Succeeded" || phase == "Failed";
  std::vector<std::string> uninitialized, unready;
  for (const auto& c : progress.containers) {
    if (c.init && !c.sidecar && !progress.initialized) {
      const bool done = c.state == ContainerProgress::State::kTerminated && c.terminated &&
                        c.terminated->exit_code == 0;
      if (!done) uninitialized.push_back(c.name);
    }
    if ((!c.init || c.sidecar) && !c.ephemeral && !c.ready) unready.push_back(c.name);
  }
  Node status = Node::Object();
  status.Set("phase", Str(phase));
  Node conditions = Node::Array();
  conditions.items.push_back(Condition(previous, "PodReadyToStartContainers",
                                       progress.sandbox_ready && !progress.finished, "", "", now));
  const bool initialized = progress.initialized || uninitialized.empty();
  conditions.items.push_back(Condition(
      previous, "Initialized", initialized,
      initialized ? (completed && !progress.initialized ? "PodCompleted" : "")
                  : "ContainersNotInitialized",
      initialized ? "" : fmt::format("containers with incomplete status: [{}]",
                                     fmt::join(uninitialized, " ")),
      now));
  const bool ready = !completed && unready.empty();
  std::string reason, message;
  if (completed) {
    reason = "PodCompleted";
  } else if (!ready) {
    reason = "ContainersNotReady";
    message = fmt::format("containers with unready status: [{}]", fmt::join(unready, " "));
  }
  conditions.items.push_back(Condition(previous, "Ready", ready, reason, message, now));
  conditions.items.push_back(Condition(previous, "ContainersReady", ready, reason, message, now));
  conditions.items.push_back(Condition(previous, "PodScheduled", true, "", "", now));
  status.Set("conditions", std::move(conditions));
  if (!progress.reason.empty()) status.Set("reason", Str(progress.reason));
  if (!progress.message.empty()) status.Set("message", Str(progress.message));
  // hostIP/hostIPs and podIP/podIPs: the address, and the list of it.
  auto address = [&](std::string_view one, std::string_view list, const std::string& ip) {
    if (ip.empty()) return;
    status.Set(one, Str(ip));
    Node entry = Node::Object();
    entry.Set("ip", Str(ip));
    Node ips = Node::Array();
    ips.items.push_back(std::move(entry));
    status.Set(list, std::move(ips));
  };
  address("hostIP", "hostIPs", context.host_ip);
  if (progress.pod_ips.empty()) {
    address("podIP", "podIPs", context.pod_ip);
  } else {
    // The pod network's addresses, the primary one first (one per family).
    status.Set("podIP", Str(progress.pod_ips.front()));
    Node ips = Node::Array();
    for (const auto& ip : progress.pod_ips) {
      Node entry = Node::Object();
      entry.Set("ip", Str(ip));
      ips.items.push_back(std::move(entry));
    }
    status.Set("podIPs", std::move(ips));
  }
  if (!progress.start_time.empty()) status.Set("startTime", Str(progress.start_time));
  Node init = Node::Array(), apps = Node::Array(), ephemeral = Node::Array();
  for (const auto& c : progress.containers) {
    (c.init ? init : c.ephemeral ? ephemeral : apps).items.push_back(ContainerStatusNode(c));
  }
  if (!init.items.empty()) status.Set("initContainerStatuses", std::move(init));
  status.Set("containerStatuses", std::move(apps));
  if (!ephemeral.items.empty()) status.Set("ephemeralContainerStatuses", std::move(ephemeral));
  if (!context.qos_class.empty()) status.Set("qosClass", Str(context.qos_class));
  return status;
}

}  // namespace podlimits::kubelet
