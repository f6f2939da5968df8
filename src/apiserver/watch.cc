// A watch (and watch-list) request turned into listwatch's WatchRequest.
#include "apiserver/rest_handler.h"

#include <fmt/format.h>

#include <algorithm>

#include "apiserver/rest_response.h"
#include "discovery/served_resources.h"
#include "base/numbers.h"
#include "field/field.h"
#include "listwatch/api_errors.h"
#include "listwatch/list_options.h"
#include "listwatch/selectors.h"
#include "listwatch/watch_handler.h"

namespace podlimits::apiserver {

http::HttpResponse RestHandler::Watch(const http::HttpRequest& request, const RequestInfo& info,
                                      const OutputMediaType& media) {
  const ServedResource& resource = *FindServedResource(info.group, info.resource);
  auto query = [&](const char* key) {
    auto it = request.query.find(key);
    return it == request.query.end() ? std::string() : it->second;
  };
  auto options = ParseListOptions(request);
  if (!options) return options.error().Response();
  WatchRequest watch;
  watch.resource = info.resource;
  watch.kind = resource.kind;
  watch.api_version = resource.GroupVersion();
  watch.namespace_ = resource.namespaced ? info.namespace_ : "";
  watch.all_namespaces = !resource.namespaced || info.namespace_.empty();
  watch.table = media.convert_kind == "Table";
  watch.protobuf = media.type == MediaType::kProtobuf && !watch.table;
  watch.metadata = MetadataConversionOf(media.convert_kind);
  if (watch.metadata != MetadataConversion::kNone) {
    watch.metadata_version = media.convert_version;
    watch.kind = "PartialObjectMetadata";  // of the bookmarks, which are converted too
    watch.api_version = "meta.k8s.io/" + media.convert_version;
  }
  auto labels = ParseLabelSelector(query("labelSelector"));
  if (!labels) return BadRequest(labels.error().Message()).Response();
  watch.labels = std::move(*labels);
  std::string field_selector = query("fieldSelector");
  if (!info.name.empty()) {
    // A watch of one object is a watch of its name (upstream's rewrite of GET name?watch).
    field_selector = "metadata.name=" + info.name +
                     (field_selector.empty() ? "" : "," + field_selector);
  }
  auto fields = ParseFieldSelector(field_selector, info.resource);
  if (!fields) return BadRequest(fields.error().Message()).Response();
  watch.fields = std::move(*fields);
  const std::string& rv = options->resource_version;
  if (!rv.empty() && rv != "0") {
    const std::optional<std::int64_t> from = ParseInt64(rv);
    if (!from || *from < 0) {
      return BadRequest(fmt::format("resourceVersion: Invalid value: {}: must be a decimal "
                                    "number",
                                    field::GoQuote(rv)))
          .Response();
    }
    watch.from = *from;
  }
  // Watch-list (watch_handler.h): the initial events whatever the resourceVersion, closed by
  // the initial-events-end bookmark when bookmarks are allowed.
  watch.send_initial_events = options->send_initial_events.value_or(false);
  watch.initial_events_end_bookmark = watch.send_initial_events && options->allow_watch_bookmarks;
  watch.bookmarks = options->allow_watch_bookmarks;
  if (options->send_initial_events == false && !watch.from) {
    // sendInitialEvents=false from "" or "0": the changes from now on, "now" fixed before the
    // answer so that the client's next write is after it.
    auto now = store_.Revision();
    if (!now) return InternalResponse(now.error());
    watch.from = *now;
  }
  if (const std::string t = query("timeoutSeconds"); !t.empty()) {
    const std::optional<std::int64_t> seconds = ParseInt64(t);
    if (!seconds || *seconds < 0) {
      return BadRequest(fmt::format("timeoutSeconds: Invalid value: {}", field::GoQuote(t)))
          .Response();
    }
    if (*seconds > 0) {
      watch.timeout = std::min<std::chrono::milliseconds>(watch.timeout,
                                                          std::chrono::seconds(*seconds));
    }
  }
  return ServeWatch(store_, std::move(watch), clock_);
}

}  // namespace podlimits::apiserver
