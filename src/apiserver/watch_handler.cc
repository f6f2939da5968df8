#include "apiserver/watch_handler.h"

#include <fmt/format.h>

#include <set>

#include "apiserver/api_errors.h"
#include "apiserver/stored_object.h"
#include "codec/json_codec.h"
#include "printers/table.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

// How long a quiet watch waits before looking at its client again.
constexpr std::chrono::milliseconds kIdleCheck{500};

class Watch {
 public:
  Watch(storage::ObjectStore& store, WatchRequest request, WallClock clock)
      : store_(store), request_(std::move(request)), clock_(std::move(clock)) {}

  void Run(http::ResponseStream& out);

 private:
  bool Matches(const Node& object) const {
    const Node fields = SelectableFields(request_.resource, object);
    return request_.labels.Matches(object.FindPath({"metadata", "labels"})) &&
           request_.fields.Matches(&fields);
  }
  std::string Line(std::string_view type, const storage::StoredObject& object, const Node& tree) const {
    if (!request_.table) {
      return fmt::format(R"({{"type":"{}","object":{}}})", type, object.data) + "\n";
    }
    Node table = printers::BuildTable(request_.resource, {tree}, std::to_string(object.revision), clock_());
    return fmt::format(R"({{"type":"{}","object":{}}})", type, codec::EncodeJson(table, 0)) + "\n";
  }
  // Sends one change as the selectors make it look; false once the client is gone.
  bool Send(storage::WatchEventType type, const storage::StoredObject& object, http::ResponseStream& out);

  storage::ObjectStore& store_;
  WatchRequest request_;
  WallClock clock_;
  std::set<std::pair<std::string, std::string>> seen_;     // (namespace, name) of every change
  std::set<std::pair<std::string, std::string>> visible_;  // those the client has now
  std::int64_t waited_ = 0;  // the store's newest revision when last woken
};

std::optional<Node> Parse(const std::string& data) { return ParseStoredObject(data); }

bool Watch::Send(storage::WatchEventType type, const storage::StoredObject& object, http::ResponseStream& out) {
  auto tree = Parse(object.data);
  if (!tree) {
    // A damaged object ends the watch with the error that names it, as a list fails on it:
    // skipped, its change would be lost to the client without a word.
    const Node status = CorruptStoredObject(object).Status();
    out.Write(fmt::format(R"({{"type":"ERROR","object":{}}})", codec::EncodeJson(status, 0)) + "\n");
    return false;
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
  return out.Write(Line(name, object, *tree));
}

void Watch::Run(http::ResponseStream& out) {
  std::int64_t revision = 0;
  if (request_.from) {
    revision = *request_.from;
  } else {
    auto listed = store_.List(request_.resource, request_.namespace_, request_.all_namespaces);
    if (!listed) {
      out.Write(fmt::format(R"({{"type":"ERROR","object":{}}})",
                            codec::EncodeJson(InternalError(listed.error().error.Message()).Status(), 0)) +
                "\n");
      return;
    }
    revision = listed->revision;
    for (const auto& item : listed->items) {
      if (!Send(storage::WatchEventType::kAdded, item, out)) return;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + request_.timeout;
  while (std::chrono::steady_clock::now() < deadline && !out.Closed()) {
    auto changes = store_.ChangesSince(request_.resource, request_.namespace_,
                                       request_.all_namespaces, revision);
    if (!changes) {
      ApiError e = changes.error().kind == storage::StoreError::Kind::kGone
                       ? ResourceExpired(changes.error().error.detail)
                       : InternalError(changes.error().error.Message());
      out.Write(fmt::format(R"({{"type":"ERROR","object":{}}})", codec::EncodeJson(e.Status(), 0)) +
                "\n");
      return;
    }
    for (const auto& change : *changes) {
      revision = change.object.revision;
      if (!Send(change.type, change.object, out)) return;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    // The store's revision counts every resource: catch up to it even when nothing here moved.
    waited_ = store_.WaitForChange(std::max(revision, waited_), std::min(left, kIdleCheck));
  }
}

}  // namespace

http::HttpResponse ServeWatch(storage::ObjectStore& store, WatchRequest request, WallClock clock) {
  http::HttpResponse response;
  response.status = 200;
  response.content_type = "application/json";
  auto watch = std::make_shared<Watch>(store, std::move(request), std::move(clock));
  response.stream = [watch](http::ResponseStream& out) { watch->Run(out); };
  return response;
}

}  // namespace podlimits::apiserver
