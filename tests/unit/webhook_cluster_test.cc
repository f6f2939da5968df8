// The webhook's view of a real cluster without one: where the API is (server URLs, kubeconfigs,
// the service account), the LimitRange spelling a cluster can hold, a LimitRange the webhook
// cannot apply, and /readyz before the first lists. tests/webhook/cluster drives the real thing
// against `podlimits serve`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/base64.h"
#include "codec/json_codec.h"
#include "temp_dir.h"
#include "test_support.h"
#include "webhook/cluster_limit_range.h"
#include "webhook/cluster_sync.h"
#include "webhook/kube_client.h"
#include "webhook/webhook_handler.h"

namespace podlimits::webhook {
namespace {

using ::testing::HasSubstr;
using podlimits::testing::ParseJsonValue;

TEST(KubeClientTest, ServerUrls) {
  struct Case {
    const char* url;
    const char* host;
    const char* port;
  } ok[] = {
      {"https://10.96.0.1", "10.96.0.1", "443"},
      {"https://api.example:6443", "api.example", "6443"},
      {"https://api.example:6443/", "api.example", "6443"},
      {"https://[fd00::1]:6443", "fd00::1", "6443"},
  };
  for (const auto& c : ok) {
    ClusterAccess a;
    ASSERT_TRUE(ParseServer(c.url, a)) << c.url;
    EXPECT_EQ(a.host, c.host);
    EXPECT_EQ(a.port, c.port);
  }
  for (const char* bad : {"http://api:80", "https://api:port", "https://api/prefix", "https://"}) {
    ClusterAccess a;
    EXPECT_FALSE(ParseServer(bad, a)) << bad;
  }
}

TEST(KubeClientTest, InClusterNeedsTheEnvironmentAndTheServiceAccount) {
  podlimits::testing::TempDir sa("webhook-sa");
  auto env = [](const char* k) -> const char* {
    if (std::string_view(k) == "KUBERNETES_SERVICE_HOST") return "10.96.0.1";
    if (std::string_view(k) == "KUBERNETES_SERVICE_PORT") return "443";
    return nullptr;
  };
  auto missing = InClusterAccess(env, sa.path());
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().Message(), HasSubstr("the service account's CA"));
  sa.Write("ca.crt", "CA");
  sa.Write("token", "t0k3n\n");
  auto access = InClusterAccess(env, sa.path());
  ASSERT_TRUE(access) << access.error();
  EXPECT_EQ(access->host, "10.96.0.1");
  EXPECT_EQ(access->ca_pem, "CA");
  EXPECT_EQ(access->token_file, sa / "token");  // read per request: bound tokens rotate

  auto outside = InClusterAccess([](const char*) -> const char* { return nullptr; }, sa.path());
  ASSERT_FALSE(outside);
  EXPECT_THAT(outside.error().Message(), HasSubstr("KUBERNETES_SERVICE_HOST"));
}

TEST(KubeClientTest, Kubeconfigs) {
  podlimits::testing::TempDir dir("webhook-kubeconfig");
  dir.Write("ca.pem", "CA-FILE");
  const std::string ca_data = Base64Encode("CA-DATA");
  dir.Write("config", "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                      "contexts:\n- name: c\n  context: {cluster: k, user: u}\n"
                      "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:6443\n"
                      "    certificate-authority-data: " + ca_data + "\n"
                      "users:\n- name: u\n  user: {tokenFile: token}\n");
  auto access = KubeconfigAccess(dir / "config");
  ASSERT_TRUE(access) << access.error();
  EXPECT_EQ(access->port, "6443");
  EXPECT_EQ(access->ca_pem, "CA-DATA");
  EXPECT_EQ(access->token_file, dir / "token");  // relative to the kubeconfig
  EXPECT_EQ(access->context_namespace, "");  // the context names none

  dir.Write("file-ca", "apiVersion: v1\ncurrent-context: c\n"
                       "contexts:\n- name: c\n  context: {cluster: k, user: u, namespace: team}\n"
                       "clusters:\n- name: k\n  cluster: {server: 'https://a:1', certificate-authority: ca.pem}\n"
                       "users:\n- name: u\n  user: {token: abc}\n");
  access = KubeconfigAccess(dir / "file-ca");
  ASSERT_TRUE(access) << access.error();
  EXPECT_EQ(access->ca_pem, "CA-FILE");
  EXPECT_EQ(access->token, "abc");
  EXPECT_EQ(access->context_namespace, "team");

  struct Case {
    const char* text;
    const char* error;
  } bad[] = {
      {"current-context: x\ncontexts: []\n", "current-context \"x\" names no context"},
      {"current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n"
       "  cluster: {server: 'https://a:1', insecure-skip-tls-verify: true}\n",
       "insecure-skip-tls-verify is refused"},
      {"current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n"
       "  cluster: {server: 'https://a:1'}\n",
       "the cluster has no certificate-authority(-data)"},
      {"current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n"
       "  cluster: {server: 'http://a:1', certificate-authority-data: eA==}\n",
       "is not an https:// URL"},
  };
  for (const auto& c : bad) {
    dir.Write("bad", c.text);
    auto r = KubeconfigAccess(dir / "bad");
    ASSERT_FALSE(r) << c.text;
    EXPECT_THAT(r.error().Message(), HasSubstr(c.error)) << c.text;
  }
}

TEST(ClusterLimitRangeTest, PodlimitsPodItemsBecomeThePidItem) {
  auto lr = ParseJsonValue(
      R"({"metadata":{"name":"pids","namespace":"ci"},"spec":{"limits":[)"
      R"({"type":"podlimits.dev/Pod","default":{"podlimits.dev/pid":"2048"},"max":{"podlimits.dev/pid":"4096"}},)"
      R"({"type":"Container","default":{"cpu":"1"}}]}})");
  EXPECT_TRUE(TranslateClusterLimitRange(lr).empty());
  EXPECT_EQ(codec::EncodeJson(*lr.FindPath({"spec", "limits"}), 0),
            R"([{"type":"Pod","default":{"pid":"2048"},"max":{"pid":"4096"}},)"
            R"({"type":"Container","default":{"cpu":"1"}}])");

  auto mixed = ParseJsonValue(
      R"({"spec":{"limits":[{"type":"podlimits.dev/Pod","max":{"cpu":"1"}}]}})");
  auto errors = TranslateClusterLimitRange(mixed);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].String(),
            "spec.limits[0].max[cpu]: Invalid value: \"cpu\": a podlimits.dev/Pod item holds only "
            "podlimits.dev/pid");
}

TEST(ClusterLimitRangeTest, WhatTheSyncKeepsAndWhatItRefuses) {
  ReviewPolicy base;
  auto good = ClusterSync::CheckLimitRange(
      ParseJsonValue(R"({"metadata":{"name":"pids","namespace":"ci","resourceVersion":"7"},)"
                     R"("spec":{"limits":[{"type":"podlimits.dev/Pod","default":{"podlimits.dev/pid":"2048"}}]}})"),
      base);
  ASSERT_TRUE(good) << good.error();
  EXPECT_EQ(good->FindPath({"spec", "limits"})->items[0].Find("type")->scalar, "Pod");

  auto low = ClusterSync::CheckLimitRange(
      ParseJsonValue(R"({"metadata":{"name":"low","namespace":"ci"},)"
                     R"("spec":{"limits":[{"type":"podlimits.dev/Pod","default":{"podlimits.dev/pid":"100"}}]}})"),
      base);
  ASSERT_FALSE(low);
  EXPECT_THAT(low.error().Message(), HasSubstr("must be between 1024 and 16384, inclusive"));
}

std::string PidReview(std::string_view ns) {
  return std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
                     R"("uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},)"
                     R"("resource":{"group":"","version":"v1","resource":"pods"},"namespace":")") +
         std::string(ns) +
         R"(","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",)"
         R"("annotations":{"podlimits.dev/pod-pid-limit":"2048"}},"spec":{"containers":[{"name":"a","image":"b"}]}}}})";
}

TEST(ClusterLimitRangeTest, AnUnusableLimitRangeRefusesPodlimitsPodsOfItsNamespace) {
  ReviewPolicy policy;
  policy.unusable_limit_ranges["ci"] = "LimitRange \"low\" is invalid: ...";
  auto denied = AnswerReview(PidReview("ci"), ReviewMode::kValidate, policy);
  EXPECT_FALSE(denied.allowed);
  EXPECT_THAT(denied.body, HasSubstr("pods \\\"p\\\" is forbidden: the LimitRanges of namespace "
                                     "\\\"ci\\\" cannot be applied: LimitRange \\\"low\\\" is invalid"));
  EXPECT_TRUE(AnswerReview(PidReview("other"), ReviewMode::kValidate, policy).allowed);
}

TEST(WebhookHandlerTest, ReadyOnlyOnceThePolicyIsKnown) {
  PolicyStore store(std::make_shared<const ReviewPolicy>(), /*ready=*/false);
  WebhookHandler handler(store);
  http::HttpRequest get;
  get.method = "GET";
  get.path = "/readyz";
  EXPECT_EQ(handler(get).status, 503);
  get.path = "/healthz";
  EXPECT_EQ(handler(get).status, 200);
  store.SetReady(true);
  get.path = "/readyz";
  EXPECT_EQ(handler(get).status, 200);
}

}  // namespace
}  // namespace podlimits::webhook
