#include "controllers/api_client.h"

#include <fmt/format.h>

#include <atomic>

#include "apiserver/api_handler.h"
#include "discovery/served_resources.h"
#include "codec/json_codec.h"
#include "listwatch/stored_object.h"
#include "printers/human_duration.h"

namespace podlimits::controllers {

using codec::Node;

ApiClient::ApiClient(storage::ObjectStore& store, apiserver::RestHandler& rest,
                     std::string component, Clock clock)
    : store_(store), rest_(rest), component_(std::move(component)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] { return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()); };
  }
}

std::string ApiClient::NowText() const { return printers::FormatApiTime(clock_()); }

std::vector<Object> ApiClient::List(std::string_view resource, std::string_view namespace_) const {
  std::vector<Object> out;
  auto listed = store_.List(std::string(resource), std::string(namespace_), namespace_.empty());
  if (!listed) return out;
  for (const auto& item : listed->items) {
    if (auto tree = apiserver::ParseStoredObject(item.data)) {
      out.push_back({std::move(*tree), item.revision});
    }
  }
  return out;
}

std::optional<Object> ApiClient::Get(std::string_view resource, std::string_view namespace_,
                                     std::string_view name) const {
  auto got = store_.Get({std::string(resource), std::string(namespace_), std::string(name)});
  if (!got) return std::nullopt;
  auto tree = apiserver::ParseStoredObject(got->data);
  if (!tree) return std::nullopt;
  return Object{std::move(*tree), got->revision};
}

std::string ApiClient::Answer::Message() const {
  if (auto tree = codec::ParseJsonStream(body); tree && tree->size() == 1) {
    if (const Node* m = (*tree)[0].Find("message"); m && m->IsString()) return m->scalar;
  }
  return body;
}

std::string ApiClient::Path(std::string_view resource, std::string_view namespace_,
                            std::string_view name, std::string_view subresource) const {
  const apiserver::ServedResource* r = apiserver::FindServedResourceByName(resource);
  std::string path = r == nullptr || r->group.empty() ? "/api/v1"
                                                       : "/apis/" + r->GroupVersion();
  if (!namespace_.empty()) path += fmt::format("/namespaces/{}", namespace_);
  path += "/" + std::string(resource);
  if (!name.empty()) path += "/" + std::string(name);
  if (!subresource.empty()) path += "/" + std::string(subresource);
  return path;
}

ApiClient::Answer ApiClient::Send(std::string method, std::string path, std::string content_type,
                                  std::string body) {
  http::HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  if (!content_type.empty()) request.headers["content-type"] = std::move(content_type);
  request.headers["accept"] = "application/json";
  request.body = std::move(body);
  request.user = "system:serviceaccount:kube-system:" + component_;
  // client-go's agent for a controller of kube-controller-manager (rest.AddUserAgent): the
  // apiserver's manager of its writes is the part before the first "/", kube-controller-manager.
  request.headers["user-agent"] =
      fmt::format("kube-controller-manager/{} (linux/amd64) kubernetes/podlimits/{}",
                  apiserver::kServedGitVersion, component_);
  auto response = rest_.Handle(request);
  if (!response) return {404, ""};
  return {response->status, std::move(response->body)};
}

ApiClient::Answer ApiClient::Create(std::string_view resource, std::string_view namespace_,
                                    const Node& object) {
  return Send("POST", Path(resource, namespace_), "application/json", codec::EncodeJson(object, 0));
}

ApiClient::Answer ApiClient::Update(std::string_view resource, const Node& object,
                                    std::string_view subresource) {
  return Send("PUT",
              Path(resource, codec::StringOf(object.FindPath({"metadata", "namespace"})),
                   codec::StringOf(object.FindPath({"metadata", "name"})), subresource),
              "application/json", codec::EncodeJson(object, 0));
}

ApiClient::Answer ApiClient::Patch(std::string_view resource, std::string_view namespace_,
                                   std::string_view name, std::string_view content_type,
                                   std::string_view patch) {
  return Send("PATCH", Path(resource, namespace_, name), std::string(content_type),
              std::string(patch));
}

ApiClient::Answer ApiClient::Delete(std::string_view resource, std::string_view namespace_,
                                    std::string_view name) {
  return Send("DELETE", Path(resource, namespace_, name), "application/json",
              R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})");
}

void ApiClient::Event(const Node& object, std::string_view type, std::string_view reason,
                      std::string_view message) {
  static std::atomic<std::uint64_t> sequence{0};
  const std::string ns = codec::StringOf(object.FindPath({"metadata", "namespace"}));
  const std::string name = codec::StringOf(object.FindPath({"metadata", "name"}));
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  Node event = Node::Object();
  event.Set("apiVersion", Node::String("v1"));
  event.Set("kind", Node::String("Event"));
  Node meta = Node::Object();
  // The recorder's name: the object's and the time in hex (a sequence keeps two apart).
  meta.Set("name", Node::String(fmt::format("{}.{:x}", name, nanos + sequence++)));
  meta.Set("namespace", Node::String(ns));
  event.Set("metadata", std::move(meta));
  Node involved = Node::Object();
  involved.Set("kind", Node::String(codec::StringOf(object.Find("kind"))));
  involved.Set("namespace", Node::String(ns));
  involved.Set("name", Node::String(name));
  involved.Set("uid", Node::String(codec::StringOf(object.FindPath({"metadata", "uid"}))));
  involved.Set("apiVersion", Node::String(codec::StringOf(object.Find("apiVersion"))));
  involved.Set("resourceVersion",
               Node::String(codec::StringOf(object.FindPath({"metadata", "resourceVersion"}))));
  event.Set("involvedObject", std::move(involved));
  event.Set("reason", Node::String(std::string(reason)));
  event.Set("message", Node::String(std::string(message)));
  Node source = Node::Object();
  source.Set("component", Node::String(component_));
  event.Set("source", std::move(source));
  event.Set("firstTimestamp", Node::String(NowText()));
  event.Set("lastTimestamp", Node::String(NowText()));
  event.Set("count", Node::Int(1));
  event.Set("type", Node::String(std::string(type)));
  event.Set("reportingComponent", Node::String(component_));
  event.Set("reportingInstance", Node::String(""));
  (void)Create("events", ns, event);
}

}  // namespace podlimits::controllers
