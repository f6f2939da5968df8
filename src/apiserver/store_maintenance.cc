#include "apiserver/store_maintenance.h"

#include "apiserver/human_duration.h"
#include "apiserver/stored_object.h"

namespace podlimits::apiserver {

StoreMaintenance::StoreMaintenance(ObjectStore& store, StoreMaintenanceOptions options)
    : store_(store), options_(std::move(options)) {
  if (!options_.clock) {
    options_.clock = [] {
      return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    };
  }
}

void StoreMaintenance::Start() {
  thread_ = std::thread([this] {
    auto next = std::chrono::steady_clock::now();
    while (!stopping_) {
      if (std::chrono::steady_clock::now() >= next) {
        RunOnce();
        next = std::chrono::steady_clock::now() + options_.period;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
}

void StoreMaintenance::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
}

int StoreMaintenance::RunOnce() {
  (void)store_.Compact(options_.keep_changes);
  int expired = 0;
  auto events = store_.List("events", "", true);
  if (!events) return 0;
  const auto now = options_.clock();
  for (const auto& item : events->items) {
    auto event = ParseStoredObject(item.data);
    if (!event) continue;
    std::string when;
    for (const char* field : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
      if (const api::Node* n = event->Find(field); n && n->IsString() && !n->scalar.empty()) {
        when = n->scalar;
        break;
      }
    }
    if (when.empty()) {
      if (const api::Node* n = event->FindPath({"metadata", "creationTimestamp"})) when = n->scalar;
    }
    auto at = ParseApiTime(when.substr(0, 19) + "Z");
    if (!at || now - *at < options_.event_ttl) continue;
    if (store_.Delete(item.key, item.revision, [&](std::int64_t rv) {
          return RenderStoredObject(*event, "Event", rv);
        })) {
      ++expired;
    }
  }
  return expired;
}

}  // namespace podlimits::apiserver
