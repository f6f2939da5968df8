#include "discovery/discovery.h"

#include <string>

#include "discovery/served_resources.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

Node Strings(const std::vector<std::string_view>& values) {
  Node list = Node::Array();
  for (auto v : values) list.items.push_back(Node::String(std::string(v)));
  return list;
}

http::HttpResponse Json(const Node& body, std::string content_type = "application/json") {
  return {200, std::move(content_type), codec::EncodeJson(body, 0), {}};
}

// The aggregated version the client accepts, "v2" before "v2beta1", or "" for legacy.
std::string AggregatedVersion(const http::HttpRequest& request) {
  auto it = request.headers.find("accept");
  if (it == request.headers.end()) return "";
  const std::string& accept = it->second;
  for (std::string_view version : {"v2", "v2beta1"}) {
    // Each media range: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList".
    std::size_t pos = 0;
    while ((pos = accept.find("g=apidiscovery.k8s.io", pos)) != std::string::npos) {
      std::size_t end = accept.find(',', pos);
      std::string_view range(accept.data() + pos,
                             (end == std::string::npos ? accept.size() : end) - pos);
      if (range.find("v=" + std::string(version) + ";") != std::string_view::npos &&
          range.find("as=APIGroupDiscoveryList") != std::string_view::npos) {
        return std::string(version);
      }
      pos += 1;
    }
  }
  return "";
}

// The one version a served group has (its resources').
std::string_view GroupVersion(std::string_view group) {
  for (const ServedResource& r : ServedResources()) {
    if (r.group == group) return r.version;
  }
  return "v1";
}

Node ResponseKind(std::string_view group, std::string_view version, std::string_view kind) {
  Node k = Node::Object();
  k.Set("group", Node::String(std::string(group)));
  k.Set("version", Node::String(std::string(version)));
  k.Set("kind", Node::String(std::string(kind)));
  return k;
}

// One group's entry of aggregated discovery ("" is the core group, whose entry has no name).
Node AggregatedGroup(std::string_view group_name) {
  Node resources = Node::Array();
  for (const ServedResource& r : ServedResources()) {
    if (r.group != group_name) continue;
    Node d = Node::Object();
    d.Set("resource", Node::String(std::string(r.name)));
    d.Set("responseKind", ResponseKind(r.group, r.version, r.kind));
    d.Set("scope", Node::String(r.namespaced ? "Namespaced" : "Cluster"));
    d.Set("singularResource", Node::String(std::string(r.singular)));
    d.Set("verbs", Strings(r.verbs));
    if (!r.short_names.empty()) d.Set("shortNames", Strings(r.short_names));
    if (!r.categories.empty()) d.Set("categories", Strings(r.categories));
    if (!r.subresources.empty()) {
      Node subs = Node::Array();
      for (const ServedSubresource& s : r.subresources) {
        Node sub = Node::Object();
        sub.Set("subresource", Node::String(std::string(s.name)));
        sub.Set("responseKind", s.version.empty() ? ResponseKind(r.group, r.version, s.kind)
                                                  : ResponseKind(s.group, s.version, s.kind));
        sub.Set("verbs", Strings(s.verbs));
        subs.items.push_back(std::move(sub));
      }
      d.Set("subresources", std::move(subs));
    }
    resources.items.push_back(std::move(d));
  }
  Node version = Node::Object();
  version.Set("version", Node::String(std::string(GroupVersion(group_name))));
  version.Set("resources", std::move(resources));
  version.Set("freshness", Node::String("Current"));
  Node group = Node::Object();
  Node metadata = Node::Object();
  if (!group_name.empty()) metadata.Set("name", Node::String(std::string(group_name)));
  metadata.Set("creationTimestamp", Node::Null());
  group.Set("metadata", std::move(metadata));
  Node versions = Node::Array();
  versions.items.push_back(std::move(version));
  group.Set("versions", std::move(versions));
  return group;
}

http::HttpResponse AggregatedList(const std::string& version, bool core) {
  Node list = Node::Object();
  list.Set("kind", Node::String("APIGroupDiscoveryList"));
  list.Set("apiVersion", Node::String("apidiscovery.k8s.io/" + version));
  list.Set("metadata", Node::Object());
  Node items = Node::Array();
  if (core) {
    items.items.push_back(AggregatedGroup(""));
  } else {
    for (std::string_view g : ServedGroups()) items.items.push_back(AggregatedGroup(g));
  }
  list.Set("items", std::move(items));
  return Json(list,
              "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList");
}

http::HttpResponse LegacyApiVersions(const http::HttpRequest& request) {
  Node root = Node::Object();
  root.Set("kind", Node::String("APIVersions"));
  Node versions = Node::Array();
  versions.items.push_back(Node::String("v1"));
  root.Set("versions", std::move(versions));
  Node address = Node::Object();
  address.Set("clientCIDR", Node::String("0.0.0.0/0"));
  auto host = request.headers.find("host");
  address.Set("serverAddress",
              Node::String(host != request.headers.end() ? host->second : "127.0.0.1:6443"));
  Node addresses = Node::Array();
  addresses.items.push_back(std::move(address));
  root.Set("serverAddressByClientCIDRs", std::move(addresses));
  return Json(root);
}

// A group of /apis as legacy discovery describes it (APIGroup), with its one version.
Node LegacyGroup(std::string_view name) {
  const std::string v(GroupVersion(name));
  Node version = Node::Object();
  version.Set("groupVersion", Node::String(std::string(name) + "/" + v));
  version.Set("version", Node::String(v));
  Node group = Node::Object();
  group.Set("name", Node::String(std::string(name)));
  Node versions = Node::Array();
  versions.items.push_back(version);
  group.Set("versions", std::move(versions));
  group.Set("preferredVersion", std::move(version));
  return group;
}

http::HttpResponse LegacyResourceList(std::string_view group_name) {
  Node resources = Node::Array();
  auto entry = [](std::string name, std::string_view singular, bool namespaced,
                  std::string_view kind, const std::vector<std::string_view>& verbs) {
    Node r = Node::Object();
    r.Set("name", Node::String(std::move(name)));
    r.Set("singularName", Node::String(std::string(singular)));
    r.Set("namespaced", Node::Bool(namespaced));
    r.Set("kind", Node::String(std::string(kind)));
    r.Set("verbs", Strings(verbs));
    return r;
  };
  for (const ServedResource& r : ServedResources()) {
    if (r.group != group_name) continue;
    Node main = entry(std::string(r.name), r.singular, r.namespaced, r.kind, r.verbs);
    if (!r.short_names.empty()) main.Set("shortNames", Strings(r.short_names));
    if (!r.categories.empty()) main.Set("categories", Strings(r.categories));
    resources.items.push_back(std::move(main));
    for (const ServedSubresource& s : r.subresources) {
      Node sub =
          entry(std::string(r.name) + "/" + std::string(s.name), "", r.namespaced, s.kind, s.verbs);
      if (!s.version.empty()) {  // a kind of another group: named, before the kind as upstream
        Node named = Node::Object();
        for (auto& m : sub.members) {
          if (m.key == "kind") {
            named.Set("group", Node::String(std::string(s.group)));
            named.Set("version", Node::String(std::string(s.version)));
          }
          named.Set(m.key, std::move(m.value));
        }
        sub = std::move(named);
      }
      resources.items.push_back(std::move(sub));
    }
  }
  Node list = Node::Object();
  list.Set("kind", Node::String("APIResourceList"));
  if (!group_name.empty()) list.Set("apiVersion", Node::String("v1"));
  list.Set("groupVersion",
           Node::String(group_name.empty() ? "v1"
                                           : std::string(group_name) + "/" +
                                                 std::string(GroupVersion(group_name))));
  list.Set("resources", std::move(resources));
  return Json(list);
}

}  // namespace

std::optional<http::HttpResponse> Discovery(const http::HttpRequest& request) {
  if (request.method != "GET") return std::nullopt;
  if (request.path == "/api" || request.path == "/api/") {
    const std::string aggregated = AggregatedVersion(request);
    return aggregated.empty() ? LegacyApiVersions(request) : AggregatedList(aggregated, true);
  }
  if (request.path == "/apis" || request.path == "/apis/") {
    const std::string aggregated = AggregatedVersion(request);
    if (!aggregated.empty()) return AggregatedList(aggregated, false);
    Node list = Node::Object();
    list.Set("kind", Node::String("APIGroupList"));
    list.Set("apiVersion", Node::String("v1"));
    Node groups = Node::Array();
    for (std::string_view g : ServedGroups()) groups.items.push_back(LegacyGroup(g));
    list.Set("groups", std::move(groups));
    return Json(list);
  }
  if (request.path == "/api/v1" || request.path == "/api/v1/") return LegacyResourceList("");
  for (std::string_view g : ServedGroups()) {
    const std::string base = "/apis/" + std::string(g);
    if (request.path == base || request.path == base + "/") {
      Node group = LegacyGroup(g);
      group.Set("kind", Node::String("APIGroup"));
      group.Set("apiVersion", Node::String("v1"));
      return Json(group);
    }
    const std::string versioned = base + "/" + std::string(GroupVersion(g));
    if (request.path == versioned || request.path == versioned + "/") {
      return LegacyResourceList(g);
    }
  }
  return std::nullopt;
}

}  // namespace podlimits::apiserver
