// Watches of a resource (`kubectl get -w`, `kubectl delete`'s wait, the node's own informers),
// as kube-apiserver serves them: a chunked stream of JSON watch events, one per line,
//
//   {"type":"ADDED"|"MODIFIED"|"DELETED","object":{...}}
//   {"type":"BOOKMARK","object":{"kind":K,"apiVersion":V,"metadata":{"resourceVersion":R}}}
//   {"type":"ERROR","object":{Status}}          the watch cannot go on (410 Expired)
//
// From a resourceVersion N: the changes after N, from the store's change log (a log compacted
// past N answers one ERROR event with 410 "too old resource version: N (M)", as the watch cache
// does). Without one (or "0"): every matching object as ADDED first, then the changes after it.
//
// Watch-list (client-go's informers since 1.35: sendInitialEvents=true, resourceVersionMatch=
// NotOlderThan, allowWatchBookmarks=true), as kube-apiserver 1.36's cacher serves it: the state
// at N or later (the store's current one: NotOlderThan) as ADDED events, then, with bookmarks
// allowed, one BOOKMARK whose object carries metadata.annotations["k8s.io/initial-events-end"]
// = "true" and that state's resourceVersion (the informer is synced when it arrives), then the
// changes after it. sendInitialEvents=false starts with the changes after N, or after now
// without one (the handler resolves "now" before answering, so a write after the answer is
// seen). With allowWatchBookmarks, a BOOKMARK about every minute and one 2 s before the
// timeout, at the resourceVersion the watch has caught up to, as the cacher's
// nextBookmarkTime schedules them, so a client can resume from there.
// Label and field selectors filter as upstream's: an object that starts matching arrives as
// ADDED, one that stops matching as DELETED. With kubectl's Table Accept header each event's
// object is a one-row Table. The stream ends at timeoutSeconds (default: upstream's range of
// 30 to 60 minutes, here a fixed 30), when the client goes or the server stops.
// Metadata-only clients (as=PartialObjectMetadata) get each object, bookmarks included, as its
// PartialObjectMetadata (listwatch/partial_object_metadata.h); an ERROR's Status is not converted.
// In protobuf (WatchRequest::protobuf, negotiated by the caller), each event is instead a frame
// of apimachinery's protobuf stream serializer (api/protobuf_watch_event.h), the same events in
// the same order, served as application/vnd.kubernetes.protobuf;stream=watch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "http/https_server.h"
#include "listwatch/partial_object_metadata.h"
#include "storage/object_store.h"
#include "listwatch/selectors.h"

namespace podlimits::apiserver {

// The cacher's bookmarkFrequency: a watch that allows bookmarks gets one about this often.
inline constexpr std::chrono::milliseconds kBookmarkPeriod{60'000};
// And one this long before its timeout, so the client resumes from as late as possible.
inline constexpr std::chrono::milliseconds kBookmarkBeforeTimeout{2'000};

struct WatchRequest {
  std::string resource;
  std::string kind;         // of the BOOKMARK events' object ("ConfigMap")
  std::string api_version;  // and its apiVersion ("v1")
  std::string namespace_;
  bool all_namespaces = false;
  Selector labels;
  Selector fields;
  std::optional<std::int64_t> from;  // nullopt: begin with the current objects as ADDED
  // sendInitialEvents=true: the current objects as ADDED first even with `from` (NotOlderThan).
  bool send_initial_events = false;
  // sendInitialEvents=true with allowWatchBookmarks: the k8s.io/initial-events-end BOOKMARK.
  bool initial_events_end_bookmark = false;
  // allowWatchBookmarks: periodic BOOKMARKs.
  bool bookmarks = false;
  std::chrono::milliseconds bookmark_period = kBookmarkPeriod;
  std::chrono::milliseconds timeout{1'800'000};
  bool table = false;
  bool protobuf = false;  // length-prefixed protobuf WatchEvents instead of JSON lines
  // as=PartialObjectMetadata: each event's object is its PartialObjectMetadata in
  // meta.k8s.io/`metadata_version` (the caller names that kind in `kind` and `api_version`, for
  // the bookmarks). as=PartialObjectMetadataList: the apiserver's watch encoder fails on the
  // first event's object (not a list, then not of meta.k8s.io's scheme) and ends the stream;
  // so does this one, before writing it.
  MetadataConversion metadata = MetadataConversion::kNone;
  std::string metadata_version;
};

using WallClock = std::function<std::chrono::sys_seconds()>;

// The response whose stream runs the watch. `store` must outlive it.
http::HttpResponse ServeWatch(storage::ObjectStore& store, WatchRequest request, WallClock clock);

}  // namespace podlimits::apiserver
