#include "nodeagent/managed_writes.h"

#include "apiserver/apply.h"
#include "base/clock_text.h"

namespace podlimits::nodeagent {

void RecordManagedWrite(std::string_view resource, std::string_view subresource,
                        std::string_view manager, const codec::Node* live, codec::Node& next) {
  const apiserver::ServedResource* served = apiserver::FindServedResourceByName(resource);
  if (served == nullptr) return;
  const fieldmanager::WriteScope scope = apiserver::WriteScopeOf(*served, subresource, Rfc3339Now());
  // The managers are the stored object's: `next` is a copy of it, whose list is not a request's.
  codec::Node managed = fieldmanager::TrackUpdate(scope, live, next, nullptr, manager);
  codec::Node& meta = next.Ensure("metadata");
  if (managed.IsNull()) {
    meta.Erase("managedFields");
  } else {
    meta.Set("managedFields", std::move(managed));
  }
}

}  // namespace podlimits::nodeagent
