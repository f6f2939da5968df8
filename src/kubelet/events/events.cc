#include "kubelet/events/events.h"

#include <fmt/format.h>

#include <algorithm>

namespace podlimits::kubelet {

std::string_view EventTypeName(EventType type) {
  return type == EventType::kWarning ? "Warning" : "Normal";
}

std::string FormatEventLine(const Event& e) {
  return fmt::format("  {}  {}  {}", EventTypeName(e.type), e.reason, e.message);
}

std::string RenderEventsTable(const std::vector<Event>& events) {
  if (events.empty()) return "Events:  <none>\n";
  // kubectl's tabwriter pads each column to its widest cell plus two spaces.
  std::size_t type_w = std::string_view("Type").size();
  std::size_t reason_w = std::string_view("Reason").size();
  for (const auto& e : events) {
    type_w = std::max(type_w, EventTypeName(e.type).size());
    reason_w = std::max(reason_w, e.reason.size());
  }
  std::string out = "Events:\n";
  auto row = [&](std::string_view type, std::string_view reason, std::string_view message) {
    out += fmt::format("  {:<{}}  {:<{}}  {}\n", type, type_w, reason, reason_w, message);
  };
  row("Type", "Reason", "Message");
  row("----", "------", "-------");
  for (const auto& e : events) row(EventTypeName(e.type), e.reason, e.message);
  return out;
}

void EventRecorder::Record(Event e) {
  std::lock_guard lock(mu_);
  // The sink runs under the lock so concurrent events print in the order they are stored.
  if (sink_) sink_(e);
  events_.push_back(std::move(e));
}

std::vector<Event> EventRecorder::Events() const {
  std::lock_guard lock(mu_);
  return events_;
}

}  // namespace podlimits::kubelet
