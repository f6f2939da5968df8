#include "listwatch/watch_handler.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "api/protobuf_watch_event.h"
#include "api/schema.h"
#include "listwatch/api_errors.h"
#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "printers/table.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

// How long a quiet watch waits before looking at its client again.
constexpr std::chrono::milliseconds kIdleCheck{500};

// Events are written in batches of about this many bytes: each write is a hand-off to the
// connection's io thread and a TLS record, which for 1,000 pods' initial events one by one cost
// more than encoding them (a context switch per event, the serve profile in docs/benchmarks.md).
// Small enough that the client decodes one batch while the next is encoded.
constexpr std::size_t kBatchBytes = 32 * 1024;

// The watch's stream, written in batches: what is pending goes out when it reaches kBatchBytes
// and whenever the watch is about to wait (Flush), as the apiserver's watch server flushes once
// its queue of events is empty, so an event never waits for a later one.
class BatchedStream : public http::ResponseStream {
 public:
  explicit BatchedStream(http::ResponseStream& out) : out_(out) {}
  bool Write(std::string_view event) override {
    pending_.append(event);
    return pending_.size() < kBatchBytes || Flush();
  }
  bool Closed() override { return out_.Closed(); }
  bool Flush() {
    if (pending_.empty()) return true;
    const bool written = out_.Write(pending_);
    pending_.clear();
    return written;
  }

 private:
  http::ResponseStream& out_;
  std::string pending_;
};

class Watch {
 public:
  Watch(storage::ObjectStore& store, WatchRequest request, WallClock clock)
      : store_(store), request_(std::move(request)), clock_(std::move(clock)) {}

  void Run(http::ResponseStream& out) {
    BatchedStream batched(out);
    Follow(batched);
    batched.Flush();
  }

 private:
  void Follow(BatchedStream& out);
  bool Matches(const Node& object) const {
    const Node fields = SelectableFields(request_.resource, object);
    return request_.labels.Matches(object.FindPath({"metadata", "labels"})) &&
           request_.fields.Matches(&fields);
  }
  // `tree`: the object parsed, for a Table or protobuf (nullptr for JSON, which sends the
  // stored bytes).
  std::string Line(std::string_view type, const storage::StoredObject& object, const Node* tree) const {
    if (request_.table) {
      Node table = printers::BuildTable(request_.resource, {*tree}, std::to_string(object.revision), clock_());
      return Event(type, table);
    }
    if (request_.metadata == MetadataConversion::kPartialObjectMetadata) {
      return Event(type, PartialObjectMetadataOf(*tree, request_.metadata_version));
    }
    if (request_.protobuf) return Event(type, *tree);
    return fmt::format(R"({{"type":"{}","object":{}}})", type, object.data) + "\n";
  }
  // One event in the stream's encoding: a JSON line or a protobuf frame. An object that has no
  // protobuf form (it fits no schema: nothing stored should) ends the stream with the error.
  std::string Event(std::string_view type, const Node& object) const {
    if (request_.protobuf) {
      auto frame = api::ProtobufWatchFrame(type, object, api::Schema::Objects());
      if (frame) return std::move(*frame);
      auto error = api::ProtobufWatchFrame(
          "ERROR", InternalError(frame.error().Message()).Status(), api::Schema::Objects());
      return error ? std::move(*error) : std::string();
    }
    return fmt::format(R"({{"type":"{}","object":{}}})", type, codec::EncodeJson(object, 0)) + "\n";
  }
  // Sends one change as the selectors make it look; false once the client is gone.
  bool Send(storage::WatchEventType type, const storage::StoredObject& object, http::ResponseStream& out);
  // A BOOKMARK at `revision`, the initial-events-end one when `initial_events_end`.
  bool SendBookmark(std::int64_t revision, bool initial_events_end, http::ResponseStream& out) const;

  storage::ObjectStore& store_;
  WatchRequest request_;
  WallClock clock_;
  std::set<std::pair<std::string, std::string>> seen_;     // (namespace, name) of every change
  std::set<std::pair<std::string, std::string>> visible_;  // those the client has now
  std::int64_t waited_ = 0;  // the store's newest revision when last woken
};

std::optional<Node> Parse(const std::string& data) { return ParseStoredObject(data); }

bool Watch::Send(storage::WatchEventType type, const storage::StoredObject& object, http::ResponseStream& out) {
  // The tree is built only where something reads it: the selectors, a Table row, protobuf. A
  // JSON event without selectors is the stored bytes as they are, checked without a tree.
  const bool selects = !request_.labels.requirements.empty() || !request_.fields.requirements.empty();
  std::optional<Node> tree;
  if (request_.metadata == MetadataConversion::kPartialObjectMetadataList) return false;
  const bool damaged = selects || request_.table || request_.protobuf ||
                               request_.metadata != MetadataConversion::kNone
                           ? !(tree = Parse(object.data))
                           : StoredJsonProblem(object.data).has_value();
  if (damaged) {
    // A damaged object ends the watch with the error that names it, as a list fails on it:
    // skipped, its change would be lost to the client without a word.
    out.Write(Event("ERROR", CorruptStoredObject(object).Status()));
    return false;
  }
  if (!selects) {
    // Everything matches: the client has exactly what the store had, so each change is the
    // store's own (an ADDED is of an object that did not exist).
    return out.Write(Line(storage::WatchEventTypeName(type), object, tree ? &*tree : nullptr));
  }
  const auto key = std::make_pair(object.key.namespace_, object.key.name);
  const bool matches = Matches(*tree);
  // What the client had before this change: known for an object this watch has sent; for one
  // it has not, the change's own object decides (a watch from N cannot see the state at N).
  bool had;
  if (seen_.insert(key).second) {
    had = type != storage::WatchEventType::kAdded && matches;
  } else {
    had = visible_.contains(key);
  }
  std::string_view name;
  if (type == storage::WatchEventType::kDeleted) {
    if (!had) return true;
    visible_.erase(key);
    name = "DELETED";
  } else if (matches) {
    name = had ? "MODIFIED" : "ADDED";
    visible_.insert(key);
  } else {
    if (!had) return true;
    visible_.erase(key);  // it no longer matches: gone from the client's view
    name = "DELETED";
  }
  return out.Write(Line(name, object, &*tree));
}

bool Watch::SendBookmark(std::int64_t revision, bool initial_events_end,
                         http::ResponseStream& out) const {
  // The cacher's bookmark object is an empty object of the kind with only the resourceVersion
  // (and the annotation) set; client-go reads nothing else of it.
  if (request_.metadata == MetadataConversion::kPartialObjectMetadataList) return false;
  if (request_.protobuf) {
    Node object = Node::Object();
    object.Set("kind", Node::String(request_.kind));
    object.Set("apiVersion", Node::String(request_.api_version));
    Node& meta = object.Ensure("metadata");
    meta.Set("resourceVersion", Node::String(std::to_string(revision)));
    if (initial_events_end) {
      meta.Ensure("annotations").Set("k8s.io/initial-events-end", Node::String("true"));
    }
    return out.Write(Event("BOOKMARK", object));
  }
  const std::string annotations =
      initial_events_end ? R"(,"annotations":{"k8s.io/initial-events-end":"true"})" : "";
  return out.Write(fmt::format(R"({{"type":"BOOKMARK","object":{{"kind":"{}","apiVersion":"{}",)"
                               R"("metadata":{{"resourceVersion":"{}"{}}}}}}})",
                               request_.kind, request_.api_version, revision, annotations) +
                   "\n");
}

void Watch::Follow(BatchedStream& out) {
  std::int64_t revision = 0;
  if (request_.from && !request_.send_initial_events) {
    revision = *request_.from;
  } else {
    auto listed = store_.List(request_.resource, request_.namespace_, request_.all_namespaces);
    if (!listed) {
      out.Write(Event("ERROR", InternalError(listed.error().Message()).Status()));
      return;
    }
    revision = listed->revision;
    for (const auto& item : listed->items) {
      if (!Send(storage::WatchEventType::kAdded, item, out)) return;
    }
    if (request_.initial_events_end_bookmark && !SendBookmark(revision, true, out)) return;
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + request_.timeout;
  // nextBookmarkTime: a period from now, or 2 s before the deadline when that is sooner; none
  // once that has passed.
  auto next_bookmark_after = [&](Clock::time_point now) -> std::optional<Clock::time_point> {
    if (!request_.bookmarks) return std::nullopt;
    const auto pretimeout = deadline - kBookmarkBeforeTimeout;
    const auto at = std::min(now + request_.bookmark_period, pretimeout);
    if (at < now) return std::nullopt;
    return at;
  };
  std::optional<Clock::time_point> next_bookmark = next_bookmark_after(Clock::now());
  while (Clock::now() < deadline && !out.Closed()) {
    // Every change up to the store's revision when last woken is sent once this read's changes
    // are: a bookmark may name that revision even when nothing here moved.
    const std::int64_t caught_up = std::max(revision, waited_);
    auto changes = store_.ChangesSince(request_.resource, request_.namespace_,
                                       request_.all_namespaces, revision);
    if (!changes) {
      ApiError e = changes.error().Is(storage::kExpired)
                       ? ResourceExpired(changes.error().detail)
                       : InternalError(changes.error().Message());
      out.Write(Event("ERROR", e.Status()));
      return;
    }
    for (const auto& change : *changes) {
      revision = change.object.revision;
      if (!Send(change.type, change.object, out)) return;
    }
    const auto now = Clock::now();
    if (next_bookmark && now >= *next_bookmark) {
      if (!SendBookmark(std::max(revision, caught_up), false, out)) return;
      next_bookmark = next_bookmark_after(now);
    }
    auto until = deadline;
    if (next_bookmark) until = std::min(until, *next_bookmark);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - now);
    if (now >= deadline) break;
    if (!out.Flush() || out.Closed()) return;
    // The store's revision counts every resource: catch up to it even when nothing here moved.
    waited_ = store_.WaitForChange(std::max(revision, waited_),
                                   std::clamp(left, std::chrono::milliseconds(0), kIdleCheck));
  }
}

}  // namespace

http::HttpResponse ServeWatch(storage::ObjectStore& store, WatchRequest request, WallClock clock) {
  http::HttpResponse response;
  response.status = 200;
  response.content_type = request.protobuf ? "application/vnd.kubernetes.protobuf;stream=watch"
                                           : "application/json";
  auto watch = std::make_shared<Watch>(store, std::move(request), std::move(clock));
  response.stream = [watch](http::ResponseStream& out) { watch->Run(out); };
  return response;
}

}  // namespace podlimits::apiserver
