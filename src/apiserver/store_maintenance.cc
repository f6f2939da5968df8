#include "apiserver/store_maintenance.h"

#include <malloc.h>

#include "listwatch/stored_object.h"
#include "printers/human_duration.h"

namespace podlimits::apiserver {

namespace {
// Events read (and parsed) at a time by a round.
constexpr std::size_t kEventsPerPage = 256;
}  // namespace

StoreMaintenance::StoreMaintenance(storage::ObjectStore& store, StoreMaintenanceOptions options)
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
  const auto now = options_.clock();
  // A page at a time: a node that keeps an hour of events holds tens of thousands, and reading
  // them all at once would leave the daemon as large as that peak for good.
  storage::ObjectKey after{"events", "", ""};
  while (!stopping_) {
    auto page = store_.ListAfter("events", after, kEventsPerPage);
    if (!page || page->empty()) break;
    after = page->back().key;
    for (const auto& item : *page) {
      auto event = ParseStoredObject(item.data);
      if (!event) continue;
      std::string when;
      for (const char* field : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
        if (const codec::Node* n = event->Find(field); n && n->IsString() && !n->scalar.empty()) {
          when = n->scalar;
          break;
        }
      }
      if (when.empty()) {
        if (const codec::Node* n = event->FindPath({"metadata", "creationTimestamp"})) when = n->scalar;
      }
      auto at = printers::ParseApiTime(when.substr(0, 19) + "Z");
      if (!at || now - *at < options_.event_ttl) continue;
      if (store_.Delete(item.key, item.revision, [&](std::int64_t rv) {
            return RenderStoredObject(*event, "Event", rv);
          })) {
        ++expired;
      }
    }
    if (page->size() < kEventsPerPage) break;
  }
  // What this round, a large list for a client, or a burst of pods freed stays in malloc's
  // arenas (per thread, trimmed only from their top) unless it is given back.
  malloc_trim(0);
  return expired;
}

}  // namespace podlimits::apiserver
