// What `podlimits serve` answers so far: version, health, discovery, and 404 for the rest.
#include "apiserver/api_handler.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

http::HttpRequest Get(std::string path, std::string accept = "") {
  http::HttpRequest r;
  r.method = "GET";
  r.path = std::move(path);
  r.target = r.path;
  if (!accept.empty()) r.headers["accept"] = std::move(accept);
  r.headers["host"] = "127.0.0.1:6443";
  return r;
}

constexpr std::string_view kKubectlAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/"
    "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

TEST(ApiHandler, VersionAndHealth) {
  auto v = HandleApiRequest(Get("/version"));
  EXPECT_EQ(v.status, 200);
  EXPECT_NE(v.body.find("\"gitVersion\": \"v1.32.0+podlimits\""), std::string::npos) << v.body;
  EXPECT_EQ(HandleApiRequest(Get("/livez")).body, "ok");
  auto verbose = Get("/readyz");
  verbose.query["verbose"] = "";
  EXPECT_EQ(HandleApiRequest(verbose).body, "[+]ping ok\n[+]object-store ok\nreadyz check passed\n");
}

TEST(ApiHandler, LegacyDiscovery) {
  auto api = HandleApiRequest(Get("/api", "application/json"));
  EXPECT_EQ(api.content_type, "application/json");
  EXPECT_EQ(api.body,
            "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":[{"
            "\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1:6443\"}]}");
  // The workloads, the self reviews, the node's Lease and the resource metrics are the resources
  // outside the core group, in kube-apiserver's order of groups (the aggregated metrics last).
  EXPECT_EQ(HandleApiRequest(Get("/apis")).body,
            "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":["
            "{\"name\":\"apps\",\"versions\":[{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}],\"pr"
            "eferredVersion\":{\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}},"
            "{\"name\":\"authentication.k8s.io\",\"versions\":[{\"groupVersion\":"
            "\"authentication.k8s.io/v1\",\"version\":\"v1\"}],\"preferredVersion\":{"
            "\"groupVersion\":\"authentication.k8s.io/v1\",\"version\":\"v1\"}},{\"name\":"
            "\"authorization.k8s.io\",\"versions\":[{\"groupVersion\":"
            "\"authorization.k8s.io/v1\",\"version\":\"v1\"}],\"preferredVersion\":{"
            "\"groupVersion\":\"authorization.k8s.io/v1\",\"version\":\"v1\"}},"
            "{\"name\":\"batch\",\"versions\":[{\"groupVersion\":\"batch/v1\",\"version\":\"v1\"}],\""
            "preferredVersion\":{\"groupVersion\":\"batch/v1\",\"version\":\"v1\"}},"
            "{\"name\":\"coordination.k8s.io\",\"versions\":[{\"groupVersion\":\"coordination.k8s.io/v1\","
            "\"version\":\"v1\"}],\"preferredVersion\":{\"groupVersion\":"
            "\"coordination.k8s.io/v1\",\"version\":\"v1\"}},{\"name\":\"metrics.k8s.io\","
            "\"versions\":[{\"groupVersion\":\"metrics.k8s.io/v1beta1\",\"version\":\"v1beta1\"}],"
            "\"preferredVersion\":{\"groupVersion\":\"metrics.k8s.io/v1beta1\",\"version\":"
            "\"v1beta1\"}}]}");
  // metrics.k8s.io as metrics-server publishes it: no singular names, get and list.
  EXPECT_EQ(HandleApiRequest(Get("/apis/metrics.k8s.io/v1beta1")).body,
            "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":"
            "\"metrics.k8s.io/v1beta1\",\"resources\":[{\"name\":\"nodes\",\"singularName\":\"\","
            "\"namespaced\":false,\"kind\":\"NodeMetrics\",\"verbs\":[\"get\",\"list\"]},{"
            "\"name\":\"pods\",\"singularName\":\"\",\"namespaced\":true,\"kind\":"
            "\"PodMetrics\",\"verbs\":[\"get\",\"list\"]}]}");
  EXPECT_EQ(HandleApiRequest(Get("/apis/coordination.k8s.io/v1")).body,
            "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":"
            "\"coordination.k8s.io/v1\",\"resources\":[{\"name\":\"leases\",\"singularName\":"
            "\"lease\",\"namespaced\":true,\"kind\":\"Lease\",\"verbs\":[\"get\",\"list\","
            "\"watch\"]}]}");
  EXPECT_EQ(HandleApiRequest(Get("/apis/coordination.k8s.io")).status, 200);
  auto v1 = HandleApiRequest(Get("/api/v1"));
  EXPECT_NE(v1.body.find("{\"name\":\"pods\",\"singularName\":\"pod\",\"namespaced\":true,"
                         "\"kind\":\"Pod\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\","
                         "\"patch\",\"update\",\"watch\"],\"shortNames\":[\"po\"],"
                         "\"categories\":[\"all\"]}"),
            std::string::npos)
      << v1.body;
  // Only the subresources served, with the verbs served.
  EXPECT_NE(v1.body.find("{\"name\":\"pods/log\",\"singularName\":\"\",\"namespaced\":true,"
                         "\"kind\":\"Pod\",\"verbs\":[\"get\"]}"),
            std::string::npos);
  // kubectl drain finds the eviction subresource by its kind's group and version.
  EXPECT_NE(v1.body.find("{\"name\":\"pods/eviction\",\"singularName\":\"\",\"namespaced\":true,"
                         "\"group\":\"policy\",\"version\":\"v1\",\"kind\":\"Eviction\","
                         "\"verbs\":[\"create\"]}"),
            std::string::npos);
  EXPECT_NE(v1.body.find("{\"name\":\"nodes/status\",\"singularName\":\"\",\"namespaced\":false,"
                         "\"kind\":\"Node\",\"verbs\":[\"get\",\"patch\",\"update\"]}"),
            std::string::npos);
  // The streaming subresources, with upstream's option kinds and verbs.
  for (const char* sub : {"attach", "exec", "portforward"}) {
    EXPECT_NE(v1.body.find(std::string("{\"name\":\"pods/") + sub + "\"") , std::string::npos) << sub;
  }
  EXPECT_NE(v1.body.find("{\"name\":\"pods/portforward\",\"singularName\":\"\","
                         "\"namespaced\":true,\"kind\":\"PodPortForwardOptions\","
                         "\"verbs\":[\"create\",\"get\"]}"),
            std::string::npos)
      << v1.body;
  EXPECT_EQ(v1.body.find("pods/proxy"), std::string::npos);
  EXPECT_NE(v1.body.find("{\"name\":\"namespaces\",\"singularName\":\"namespace\","
                         "\"namespaced\":false,"),
            std::string::npos);
}

TEST(ApiHandler, AggregatedDiscovery) {
  auto api = HandleApiRequest(Get("/api", std::string(kKubectlAccept)));
  EXPECT_EQ(api.content_type,
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  EXPECT_TRUE(api.body.starts_with(
      "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/v2\","
      "\"metadata\":{},\"items\":[{\"metadata\":{\"creationTimestamp\":null},\"versions\":[{"
      "\"version\":\"v1\",\"resources\":[{\"resource\":\"configmaps\",\"responseKind\":{"
      "\"group\":\"\",\"version\":\"v1\",\"kind\":\"ConfigMap\"},\"scope\":\"Namespaced\","
      "\"singularResource\":\"configmap\","))
      << api.body;
  EXPECT_NE(api.body.find("{\"subresource\":\"eviction\",\"responseKind\":{"
                          "\"group\":\"policy\",\"version\":\"v1\",\"kind\":\"Eviction\"},"
                          "\"verbs\":[\"create\"]},{\"subresource\":\"exec\",\"responseKind\":{"
                          "\"group\":\"\",\"version\":\"v1\",\"kind\":\"PodExecOptions\"},"
                          "\"verbs\":[\"create\",\"get\"]},{\"subresource\":\"log\",\"responseKind\":{"
                          "\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"verbs\":["
                          "\"get\"]}"),
            std::string::npos)
      << api.body;
  EXPECT_TRUE(api.body.ends_with("\"freshness\":\"Current\"}]}]}"));
  auto beta = HandleApiRequest(
      Get("/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"));
  EXPECT_EQ(beta.body,
            "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/v2beta1\","
            "\"metadata\":{},\"items\":["
            "{\"metadata\":{\"name\":\"apps\",\"creationTimestamp\":null},\"versions\":[{\"version\":"
            "\"v1\",\"resources\":[{\"resource\":\"deployments\",\"responseKind\":{\"group\":\"apps\""
            ",\"version\":\"v1\",\"kind\":\"Deployment\"},\"scope\":\"Namespaced\",\"singularResource"
            "\":\"deployment\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\""
            ",\"watch\"],\"shortNames\":[\"deploy\"],\"categories\":[\"all\"],\"subresources\":[{\"su"
            "bresource\":\"scale\",\"responseKind\":{\"group\":\"autoscaling\",\"version\":\"v1\",\"k"
            "ind\":\"Scale\"},\"verbs\":[\"get\",\"patch\",\"update\"]},{\"subresource\":\"status\",\""
            "responseKind\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"Deployment\"},\"verbs\""
            ":[\"get\",\"patch\",\"update\"]}]},{\"resource\":\"replicasets\",\"responseKind\":{\"gro"
            "up\":\"apps\",\"version\":\"v1\",\"kind\":\"ReplicaSet\"},\"scope\":\"Namespaced\",\"sin"
            "gularResource\":\"replicaset\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch"
            "\",\"update\",\"watch\"],\"shortNames\":[\"rs\"],\"categories\":[\"all\"],\"subresources"
            "\":[{\"subresource\":\"scale\",\"responseKind\":{\"group\":\"autoscaling\",\"version\":\""
            "v1\",\"kind\":\"Scale\"},\"verbs\":[\"get\",\"patch\",\"update\"]},{\"subresource\":\"st"
            "atus\",\"responseKind\":{\"group\":\"apps\",\"version\":\"v1\",\"kind\":\"ReplicaSet\"},"
            "\"verbs\":[\"get\",\"patch\",\"update\"]}]}],\"freshness\":\"Current\"}]},"
            "{\"metadata\":{\"name\":\"authentication.k8s.io\","
            "\"creationTimestamp\":null},\"versions\":[{\"version\":\"v1\",\"resources\":[{"
            "\"resource\":\"selfsubjectreviews\",\"responseKind\":{\"group\":"
            "\"authentication.k8s.io\",\"version\":\"v1\",\"kind\":\"SelfSubjectReview\"},"
            "\"scope\":\"Cluster\",\"singularResource\":\"selfsubjectreview\",\"verbs\":["
            "\"create\"]}],\"freshness\":\"Current\"}]},{\"metadata\":{\"name\":"
            "\"authorization.k8s.io\",\"creationTimestamp\":null},\"versions\":[{\"version\":"
            "\"v1\",\"resources\":[{\"resource\":\"selfsubjectaccessreviews\",\"responseKind\":{"
            "\"group\":\"authorization.k8s.io\",\"version\":\"v1\",\"kind\":"
            "\"SelfSubjectAccessReview\"},\"scope\":\"Cluster\",\"singularResource\":"
            "\"selfsubjectaccessreview\",\"verbs\":[\"create\"]},{\"resource\":"
            "\"selfsubjectrulesreviews\",\"responseKind\":{\"group\":\"authorization.k8s.io\","
            "\"version\":\"v1\",\"kind\":\"SelfSubjectRulesReview\"},\"scope\":\"Cluster\","
            "\"singularResource\":\"selfsubjectrulesreview\",\"verbs\":[\"create\"]}],"
            "\"freshness\":\"Current\"}]},"
            "{\"metadata\":{\"name\":\"batch\",\"creationTimestamp\":null},\"versions\":[{\"version\""
            ":\"v1\",\"resources\":[{\"resource\":\"cronjobs\",\"responseKind\":{\"group\":\"batch\","
            "\"version\":\"v1\",\"kind\":\"CronJob\"},\"scope\":\"Namespaced\",\"singularResource\":"
            "\"cronjob\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\","
            "\"watch\"],\"shortNames\":[\"cj\"],\"categories\":[\"all\"],\"subresources\":[{"
            "\"subresource\":\"status\",\"responseKind\":{\"group\":\"batch\",\"version\":\"v1\","
            "\"kind\":\"CronJob\"},\"verbs\":[\"get\",\"patch\",\"update\"]}]},"
            "{\"resource\":\"jobs\",\"responseKind\":{\"group\":\"batch\",\"ve"
            "rsion\":\"v1\",\"kind\":\"Job\"},\"scope\":\"Namespaced\",\"singularResource\":\"job\",\""
            "verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\",\"update\",\"watch\"],\"catego"
            "ries\":[\"all\"],\"subresources\":[{\"subresource\":\"status\",\"responseKind\":{\"group"
            "\":\"batch\",\"version\":\"v1\",\"kind\":\"Job\"},\"verbs\":[\"get\",\"patch\",\"update\""
            "]}]}],\"freshness\":\"Current\"}]},"
            "{\"metadata\":{\"name\":\"coordination.k8s.io\","
            "\"creationTimestamp\":null},\"versions\":[{\"version\":\"v1\",\"resources\":[{"
            "\"resource\":\"leases\",\"responseKind\":{\"group\":\"coordination.k8s.io\","
            "\"version\":\"v1\",\"kind\":\"Lease\"},\"scope\":\"Namespaced\","
            "\"singularResource\":\"lease\",\"verbs\":[\"get\",\"list\",\"watch\"]}],"
            "\"freshness\":\"Current\"}]},{\"metadata\":{\"name\":\"metrics.k8s.io\","
            "\"creationTimestamp\":null},\"versions\":[{\"version\":\"v1beta1\",\"resources\":[{"
            "\"resource\":\"nodes\",\"responseKind\":{\"group\":\"metrics.k8s.io\",\"version\":"
            "\"v1beta1\",\"kind\":\"NodeMetrics\"},\"scope\":\"Cluster\",\"singularResource\":\"\","
            "\"verbs\":[\"get\",\"list\"]},{\"resource\":\"pods\",\"responseKind\":{\"group\":"
            "\"metrics.k8s.io\",\"version\":\"v1beta1\",\"kind\":\"PodMetrics\"},\"scope\":"
            "\"Namespaced\",\"singularResource\":\"\",\"verbs\":[\"get\",\"list\"]}],"
            "\"freshness\":\"Current\"}]}]}");
}

TEST(ApiHandler, EverythingElseIsNotFound) {
  auto r = HandleApiRequest(Get("/api/v1/namespaces/default/pods"));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"the server could not find the requested resource\",\"reason\":"
            "\"NotFound\",\"code\":404}");
}

}  // namespace
}  // namespace podlimits::apiserver
