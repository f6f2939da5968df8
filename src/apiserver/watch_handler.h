// Watches of a resource (`kubectl get -w`, `kubectl delete`'s wait, the node's own informers),
// as kube-apiserver serves them: a chunked stream of JSON watch events, one per line,
//
//   {"type":"ADDED"|"MODIFIED"|"DELETED","object":{...}}
//   {"type":"ERROR","object":{Status}}          the watch cannot go on (410 Expired)
//
// From a resourceVersion N: the changes after N, from the store's change log (a log compacted
// past N answers one ERROR event with 410 "too old resource version: N (M)", as the watch cache
// does). Without one (or "0"): every matching object as ADDED first, then the changes after it.
// Label and field selectors filter as upstream's: an object that starts matching arrives as
// ADDED, one that stops matching as DELETED. With kubectl's Table Accept header each event's
// object is a one-row Table. The stream ends at timeoutSeconds (default: upstream's range of
// 30 to 60 minutes, here a fixed 30), when the client goes or the server stops.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "http/https_server.h"
#include "storage/object_store.h"
#include "apiserver/selectors.h"

namespace podlimits::apiserver {

struct WatchRequest {
  std::string resource;
  std::string namespace_;
  bool all_namespaces = false;
  Selector labels;
  Selector fields;
  std::optional<std::int64_t> from;  // nullopt: begin with the current objects as ADDED
  std::chrono::seconds timeout{1800};
  bool table = false;
};

using WallClock = std::function<std::chrono::sys_seconds()>;

// The response whose stream runs the watch. `store` must outlive it.
http::HttpResponse ServeWatch(storage::ObjectStore& store, WatchRequest request, WallClock clock);

}  // namespace podlimits::apiserver
