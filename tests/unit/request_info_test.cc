// Reading a request's verb, resource, namespace and name from its path, as RequestInfoFactory.
#include "listwatch/request_info.h"

#include <gtest/gtest.h>

#include <optional>

namespace podlimits::apiserver {
namespace {

http::HttpRequest Req(std::string method, std::string path, std::map<std::string, std::string> q = {}) {
  http::HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.query = std::move(q);
  return r;
}

std::string Describe(const std::optional<RequestInfo>& i) {
  if (!i) return "none";
  return i->verb + " " + i->resource + (i->subresource.empty() ? "" : "/" + i->subresource) +
         (i->group.empty() ? "" : "." + i->group + "/" + i->version) + " ns=" + i->namespace_ +
         " name=" + i->name;
}

TEST(RequestInfo, PathsAndVerbs) {
  struct Case {
    http::HttpRequest request;
    std::string want;
  };
  const std::vector<Case> cases = {
      {Req("GET", "/api/v1/pods"), "list pods ns= name="},
      {Req("GET", "/api/v1/pods", {{"watch", "true"}}), "watch pods ns= name="},
      {Req("GET", "/api/v1/namespaces/default/pods"), "list pods ns=default name="},
      {Req("GET", "/api/v1/namespaces/default/pods/web"), "get pods ns=default name=web"},
      {Req("GET", "/api/v1/namespaces/default/pods/web/log"), "get pods/log ns=default name=web"},
      {Req("POST", "/api/v1/namespaces/default/pods/web/eviction"),
       "create pods/eviction ns=default name=web"},
      {Req("PUT", "/api/v1/namespaces/default/pods/web/status"),
       "update pods/status ns=default name=web"},
      {Req("PATCH", "/api/v1/namespaces/default/configmaps/app"),
       "patch configmaps ns=default name=app"},
      {Req("DELETE", "/api/v1/namespaces/default/secrets/s"), "delete secrets ns=default name=s"},
      {Req("DELETE", "/api/v1/namespaces/default/secrets"),
       "deletecollection secrets ns=default name="},
      {Req("POST", "/api/v1/namespaces"), "create namespaces ns= name="},
      {Req("GET", "/api/v1/namespaces/team"), "get namespaces ns=team name=team"},
      {Req("GET", "/api/v1/namespaces/team", {{"watch", "1"}}), "watch namespaces ns=team name=team"},
      {Req("PUT", "/api/v1/namespaces/team/status"), "update namespaces/status ns=team name=team"},
      {Req("GET", "/api/v1/nodes/node-a"), "get nodes ns= name=node-a"},
      {Req("GET", "/api/v1"), "none"},
      {Req("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"),
       "get leases.coordination.k8s.io/v1 ns=kube-node-lease name=n1"},
      {Req("GET", "/apis/coordination.k8s.io/v1/leases", {{"watch", "true"}}),
       "watch leases.coordination.k8s.io/v1 ns= name="},
      {Req("GET", "/apis/coordination.k8s.io/v1"), "none"},
      {Req("GET", "/apis/coordination.k8s.io"), "none"},
      {Req("GET", "/api/v1/namespaces/default/pods/web/log/extra"), "none"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.request.method + " " + c.request.path);
    EXPECT_EQ(Describe(ParseRequestInfo(c.request)), c.want);
  }
}

// Boolean query parameters as the apiserver converts them: only false and 0 are false.
TEST(QueryFlag, AsTheApiserverConvertsBooleans) {
  const std::vector<std::pair<std::optional<std::string>, bool>> cases = {
      {std::nullopt, false}, {"false", false}, {"FALSE", false}, {"0", false},
      {"true", true},        {"1", true},       {"", true},       {"yes", true},
  };
  for (const auto& [value, want] : cases) {
    http::HttpRequest r;
    if (value) r.query["follow"] = *value;
    EXPECT_EQ(QueryFlag(r, "follow"), want) << value.value_or("(absent)");
  }
}

}  // namespace
}  // namespace podlimits::apiserver
