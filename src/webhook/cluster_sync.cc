#include "webhook/cluster_sync.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>

#include "admission/chain.h"
#include "api/decode.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "webhook/cluster_limit_range.h"

namespace podlimits::webhook {
namespace {

using codec::Node;

const char* Path(bool limit_ranges) {
  return limit_ranges ? "/api/v1/limitranges" : "/api/v1/namespaces";
}

// The object decoded as the webhook decodes its --config, fields it does not know ignored (the
// cluster may be newer than podlimits' schema).
Result<Node> Decode(std::string_view kind, Node object) {
  auto decoded = api::DecodeObject(api::Schema::Objects(), kind, std::move(object), "cluster", 0,
                                   api::FieldValidation::kIgnore);
  if (auto* err = std::get_if<api::DecodeError>(&decoded)) return Failure(err->message);
  return std::move(std::get<api::DecodedObject>(decoded).tree);
}

}  // namespace

ClusterSync::ClusterSync(ClusterAccess access, ReviewPolicy base, PolicyStore& store, Logger log)
    : access_(std::move(access)), base_(std::move(base)), store_(store), log_(std::move(log)) {}

ClusterSync::~ClusterSync() { Stop(); }

Result<Node> ClusterSync::CheckLimitRange(Node object,
                                                              const ReviewPolicy& base) {
  object.Set("apiVersion", Node::String("v1"));
  object.Set("kind", Node::String("LimitRange"));
  field::ErrorList errors = TranslateClusterLimitRange(object);
  const std::string name = codec::StringOf(object.FindPath({"metadata", "name"}));
  if (!errors.empty()) {
    return Failure(
        fmt::format("LimitRange {} is invalid: {}", field::GoQuote(name), field::Aggregate(errors)));
  }
  auto decoded = Decode("LimitRange", std::move(object));
  if (!decoded) return Failure(fmt::format("LimitRange {}: {}", field::GoQuote(name), decoded.error().Message()));
  // Checked as `admit` checks one: the seeds' rules for a pod PID default and bounds.
  std::vector<api::DecodeResult> stream;
  stream.push_back(api::DecodedObject{"LimitRange", *decoded, "cluster", 0, {}});
  auto outcomes = admission::RunChain(std::move(stream), base.chain);
  if (outcomes.size() == 1 && !outcomes[0].admitted) return Failure(outcomes[0].message);
  return decoded;
}

void ClusterSync::Start() {
  for (Kind kind : {Kind::kNamespaces, Kind::kLimitRanges}) {
    clients_.push_back(std::make_unique<KubeClient>(access_));
    threads_.emplace_back([this, kind] { Run(kind); });
  }
}

void ClusterSync::Stop() {
  stopping_ = true;
  for (auto& c : clients_) c->Interrupt();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

void ClusterSync::Run(Kind kind) {
  KubeClient& client = *clients_[kind == Kind::kNamespaces ? 0 : 1];
  auto backoff = std::chrono::seconds(1);
  while (!stopping_) {
    if (ListAndWatch(kind, client)) {
      backoff = std::chrono::seconds(1);
      continue;
    }
    // Interruptible sleep: Stop() sets stopping_ and the loop checks it every 100 ms.
    const auto until = std::chrono::steady_clock::now() + backoff;
    while (!stopping_ && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    backoff = std::min(backoff * 2, std::chrono::seconds(30));
  }
}

// One list and the watches that follow it; false after a failure (the caller backs off).
bool ClusterSync::ListAndWatch(Kind kind, KubeClient& client) {
  const bool ranges = kind == Kind::kLimitRanges;
  const std::string what = ranges ? "limitranges" : "namespaces";
  std::map<std::string, Node> listed;  // by namespace/name
  std::string rv, cont;
  do {
    std::string target = fmt::format("{}?limit=500{}", Path(ranges),
                                     cont.empty() ? "" : "&continue=" + cont);
    auto answer = client.Get(target);
    if (!answer) {
      if (!stopping_) log_(fmt::format("list {}: {}", what, answer.error().Message()));
      return false;
    }
    if (answer->status != 200) {
      log_(fmt::format("list {}: HTTP {}: {}", what, answer->status, answer->body.substr(0, 300)));
      return false;
    }
    auto parsed = codec::ParseJsonStream(answer->body);
    if (!parsed || parsed->size() != 1) {
      log_(fmt::format("list {}: the answer is not one JSON object", what));
      return false;
    }
    Node& list = (*parsed)[0];
    rv = codec::StringOf(list.FindPath({"metadata", "resourceVersion"}));
    cont = codec::StringOf(list.FindPath({"metadata", "continue"}));
    if (Node* items = list.Find("items"); items && items->IsArray()) {
      for (Node& item : items->items) {
        const std::string key = codec::StringOf(item.FindPath({"metadata", "namespace"})) + "/" +
                                codec::StringOf(item.FindPath({"metadata", "name"}));
        listed[key] = std::move(item);
      }
    }
  } while (!cont.empty());
  {
    std::lock_guard lock(mu_);
    if (ranges) {
      ranges_.clear();
      broken_.clear();
    } else {
      namespaces_.clear();
    }
  }
  for (auto& [key, object] : listed) Apply(kind, "ADDED", std::move(object));
  {
    std::lock_guard lock(mu_);
    if (!listed_[ranges]) log_(fmt::format("listed {} {} at resourceVersion {}", listed.size(), what, rv));
    listed_[ranges] = true;
  }
  Publish();

  // Watch from there until the server says the version is gone or the connection fails.
  while (!stopping_) {
    bool relist = false;
    auto status = client.Stream(
        fmt::format("{}?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion={}",
                    Path(ranges), rv),
        [&](std::string_view line) {
          auto parsed = codec::ParseJsonStream(line);
          if (!parsed || parsed->size() != 1) return;
          Node& event = (*parsed)[0];
          const std::string type = codec::StringOf(event.Find("type"));
          Node* object = event.Find("object");
          if (object == nullptr) return;
          if (type == "ERROR") {
            // 410 Gone: the version is compacted away; anything else: start over too.
            log_(fmt::format("watch {}: {}", what, codec::StringOf(object->Find("message"))));
            relist = true;
            return;
          }
          if (auto v = codec::StringOf(object->FindPath({"metadata", "resourceVersion"})); !v.empty()) rv = v;
          if (type == "BOOKMARK") return;
          Apply(kind, type, std::move(*object));
          Publish();
        });
    if (!status) {
      if (!stopping_) log_(fmt::format("watch {}: {}", what, status.error().Message()));
      return false;
    }
    if (relist || *status == 410) return true;
    if (*status != 200) {
      log_(fmt::format("watch {}: HTTP {}", what, *status));
      return false;
    }
  }
  return true;
}

void ClusterSync::Apply(Kind kind, const std::string& type, Node object) {
  const std::string ns = codec::StringOf(object.FindPath({"metadata", "namespace"}));
  const std::string name = codec::StringOf(object.FindPath({"metadata", "name"}));
  if (type == "DELETED") {
    std::lock_guard lock(mu_);
    if (kind == Kind::kNamespaces) {
      namespaces_.erase(name);
    } else {
      ranges_[ns].erase(name);
      broken_[ns].erase(name);
    }
    return;
  }
  if (kind == Kind::kNamespaces) {
    auto decoded = Decode("Namespace", std::move(object));
    std::lock_guard lock(mu_);
    if (decoded) {
      namespaces_[name] = std::move(*decoded);
    } else {
      log_(fmt::format("namespace {}: {}", name, decoded.error().Message()));
    }
    return;
  }
  auto checked = CheckLimitRange(std::move(object), base_);
  std::lock_guard lock(mu_);
  if (checked) {
    ranges_[ns][name] = std::move(*checked);
    broken_[ns].erase(name);
  } else {
    ranges_[ns].erase(name);
    broken_[ns][name] = checked.error().Message();
    log_(fmt::format("namespace {}: {}; pods there that use a podlimits field are refused until "
                     "it is fixed",
                     ns, checked.error().Message()));
  }
}

void ClusterSync::Publish() {
  auto policy = std::make_shared<ReviewPolicy>(base_);
  bool ready = false;
  {
    std::lock_guard lock(mu_);
    policy->namespaces = namespaces_;
    policy->limit_ranges.clear();
    for (const auto& [ns, by_name] : ranges_) {
      for (const auto& [name, lr] : by_name) policy->limit_ranges[ns].push_back(lr);
    }
    for (const auto& [ns, by_name] : broken_) {
      if (!by_name.empty()) policy->unusable_limit_ranges[ns] = by_name.begin()->second;
    }
    ready = listed_[0] && listed_[1];
  }
  store_.Publish(std::move(policy));
  if (ready && !store_.Ready()) {
    store_.SetReady(true);
    log_("ready: namespaces and limitranges listed");
  }
}

}  // namespace podlimits::webhook
