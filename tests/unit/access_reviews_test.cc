// kubectl auth whoami / can-i / can-i --list against serve's computed reviews (access_reviews.h).
#include "apiserver/access_reviews.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

http::HttpResponse Post(const std::string& path, const std::string& body,
                        const std::string& method = "POST") {
  http::HttpRequest request;
  request.method = method;
  request.target = path;
  request.path = path.substr(0, path.find('?'));
  if (path.find("?fieldValidation=Strict") != std::string::npos) {
    request.query["fieldValidation"] = "Strict";
  }
  request.headers["content-type"] = "application/json";
  request.body = body;
  request.user = "kubernetes-admin";
  request.groups = {"system:masters"};
  auto info = ParseRequestInfo(request);
  EXPECT_TRUE(info.has_value()) << path;
  if (!info) return {};
  return ServeAccessReview(request, *info);
}

constexpr std::string_view kAccessReviews =
    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

TEST(AccessReviews, EachAsKubeApiserverAnswersAMember) {
  struct Case {
    std::string name, path, body;
    int status;
    std::string answer;  // the body, or a part of it
  };
  const std::vector<Case> cases = {
      {"can-i create pods", std::string(kAccessReviews),
       R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},)"
       R"("spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}}})",
       201,
       R"({"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},)"
       R"("spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}},)"
       R"("status":{"allowed":true}})"},
      {"can-i get /healthz", std::string(kAccessReviews),
       R"({"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"}}})", 201,
       R"("status":{"allowed":true})"},
      {"neither attributes", std::string(kAccessReviews), R"({"spec":{}})", 422,
       R"(SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec: Invalid value: )"
       R"(\"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified)"},
      {"both attributes", std::string(kAccessReviews),
       R"({"spec":{"resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"path":"/","verb":"get"}}})",
       422, "exactly one of nonResourceAttributes or resourceAttributes must be specified"},
      {"kubectl's empty metadata", std::string(kAccessReviews),
       R"({"metadata":{"creationTimestamp":null},"spec":{"resourceAttributes":{"verb":"get"}}})",
       201, R"("status":{"allowed":true})"},
      {"a name", std::string(kAccessReviews),
       R"({"metadata":{"name":"x"},"spec":{"resourceAttributes":{"verb":"get"}}})", 422,
       "metadata: Invalid value: {\\\"name\\\":\\\"x\\\"}: must be empty"},
      {"an unknown field, strictly", std::string(kAccessReviews) + "?fieldValidation=Strict",
       R"({"spec":{"resourceAttributes":{"verb":"get","colour":"red"}}})", 400,
       "colour"},
      {"another kind", std::string(kAccessReviews),
       R"({"kind":"Pod","apiVersion":"v1","spec":{}})", 400,
       "must be a authorization.k8s.io/v1 SelfSubjectAccessReview, not v1 Pod"},
      {"can-i --list", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
       R"({"spec":{"namespace":"default"}})", 201,
       R"("status":{"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],)"
       R"("nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false})"},
      {"whoami", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
       R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{}})", 201,
       R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{},)"
       R"("status":{"userInfo":{"username":"kubernetes-admin","groups":["system:masters",)"
       R"("system:authenticated"]}}})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Post(c.path, c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.answer));
  }
}

TEST(AccessReviews, OnlyCreate) {
  auto listed = Post(std::string(kAccessReviews), "", "GET");
  EXPECT_EQ(listed.status, 405) << listed.body;
  EXPECT_THAT(listed.body, HasSubstr("list is not supported on resources of kind"));
}

}  // namespace
}  // namespace podlimits::apiserver
