// The REST side of serve: create through admission into the store, read back as JSON or Table,
// delete, and the apiserver's errors on the way.
#include "apiserver/rest_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/human_duration.h"
#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json";

class RestHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = ObjectStore::Open(dir_ / "state.db");
    ASSERT_TRUE(s) << s.error().error.Message();
    store_ = std::move(*s);
    rest_ = std::make_unique<RestHandler>(*store_, admission::ChainOptions{},
                                          [] { return *ParseApiTime("2026-11-25T12:00:00Z"); });
    ASSERT_TRUE(rest_->EnsureSystemNamespaces());
  }

  HttpResponse Call(std::string method, std::string path, std::string body = "",
                    std::string accept = "application/json") {
    HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.body = std::move(body);
    r.headers["content-type"] = "application/json";
    r.headers["accept"] = std::move(accept);
    r.user = "kubernetes-admin";
    auto response = rest_->Handle(r);
    EXPECT_TRUE(response.has_value());
    return response.value_or(HttpResponse{});
  }

  podlimits::testing::TempDir dir_{"podlimits-rest"};
  std::unique_ptr<ObjectStore> store_;
  std::unique_ptr<RestHandler> rest_;
};

TEST_F(RestHandlerTest, CreateGetListDelete) {
  auto created = Call("POST", "/api/v1/namespaces/default/configmaps",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},)"
                      R"("data":{"a":"1"}})");
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_THAT(created.body, StartsWith(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{)"
                                       R"("name":"app","namespace":"default","uid":")"));
  EXPECT_THAT(created.body, HasSubstr(R"("resourceVersion":"5","creationTimestamp":)"
                                      R"("2026-11-25T12:00:00Z"},"data":{"a":"1"}})"));

  auto got = Call("GET", "/api/v1/namespaces/default/configmaps/app");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, created.body);

  auto table = Call("GET", "/api/v1/namespaces/default/configmaps", "", std::string(kTableAccept));
  EXPECT_EQ(table.status, 200);
  EXPECT_THAT(table.body, HasSubstr(R"("rows":[{"cells":["app",1,"0s"])"));

  auto list = Call("GET", "/api/v1/configmaps");
  EXPECT_THAT(list.body, StartsWith(R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{)"
                                    R"("resourceVersion":"5"},"items":[{"kind":"ConfigMap")"));

  auto deleted = Call("DELETE", "/api/v1/namespaces/default/configmaps/app");
  EXPECT_EQ(deleted.status, 200);
  EXPECT_THAT(deleted.body, HasSubstr(R"("status":"Success","details":{"name":"app",)"
                                      R"("kind":"configmaps","uid":")"));
  auto gone = Call("GET", "/api/v1/namespaces/default/configmaps/app");
  EXPECT_EQ(gone.status, 404);
  EXPECT_THAT(gone.body, HasSubstr(R"("message":"configmaps \"app\" not found")"));
}

TEST_F(RestHandlerTest, TheApiserversErrors) {
  const std::string cm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"}})";
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", cm).status, 201);
  auto again = Call("POST", "/api/v1/namespaces/default/configmaps", cm);
  EXPECT_EQ(again.status, 409);
  EXPECT_THAT(again.body, HasSubstr(R"("message":"configmaps \"app\" already exists")"));

  auto nowhere = Call("POST", "/api/v1/namespaces/nope/configmaps", cm);
  EXPECT_EQ(nowhere.status, 404);
  EXPECT_THAT(nowhere.body, HasSubstr(R"("message":"namespaces \"nope\" not found")"));

  auto invalid = Call("POST", "/api/v1/namespaces/default/configmaps",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},)"
                      R"("data":{"bad key":"v"}})");
  EXPECT_EQ(invalid.status, 422);
  EXPECT_THAT(invalid.body, HasSubstr(R"("reason":"Invalid","details":{"name":"x",)"
                                      R"("kind":"ConfigMap","causes":[{"reason":)"
                                      R"("FieldValueInvalid")"));

  auto mismatch = Call("POST", "/api/v1/namespaces/default/configmaps",
                       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"y",)"
                       R"("namespace":"other"}})");
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_THAT(mismatch.body, HasSubstr("the namespace of the provided object does not match"));

  auto wrong_kind = Call("POST", "/api/v1/namespaces/default/configmaps",
                         R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"z"}})");
  EXPECT_EQ(wrong_kind.status, 400) << wrong_kind.body;

  HttpRequest proto;
  proto.method = "POST";
  proto.path = "/api/v1/namespaces/default/configmaps";
  proto.headers["content-type"] = "application/vnd.kubernetes.protobuf";
  auto unsupported = rest_->Handle(proto);
  ASSERT_TRUE(unsupported);
  EXPECT_EQ(unsupported->status, 415);

  auto selector = Call("GET", "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(selector.status, 200);
  HttpRequest unknown_field;
  unknown_field.method = "GET";
  unknown_field.path = "/api/v1/namespaces/default/configmaps";
  unknown_field.query["fieldSelector"] = "spec.nodeName=a";
  auto refused = rest_->Handle(unknown_field);
  EXPECT_EQ(refused->status, 400);
  EXPECT_THAT(refused->body, HasSubstr("field label not supported: spec.nodeName"));

  EXPECT_EQ(Call("PUT", "/api/v1/namespaces/default/pods/x").status, 405);
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/default").status, 405);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/widgets").status, 404);
}

TEST_F(RestHandlerTest, ListsBySelector) {
  for (const char* cm :
       {R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"web","tier":"front"}}})",
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","labels":{"app":"db"}}})",
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})"}) {
    ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", cm).status, 201);
  }
  auto names = [&](std::map<std::string, std::string> query) {
    HttpRequest r;
    r.method = "GET";
    r.path = "/api/v1/namespaces/default/configmaps";
    r.query = std::move(query);
    r.headers["accept"] = std::string(kTableAccept);
    std::string body = rest_->Handle(r)->body, out;
    for (const char* n : {"\"a\"", "\"b\"", "\"c\""}) {
      if (body.find(std::string("\"cells\":[") + n) != std::string::npos) out += n[1];
    }
    return out;
  };
  EXPECT_EQ(names({}), "abc");
  EXPECT_EQ(names({{"labelSelector", "app=web"}}), "a");
  EXPECT_EQ(names({{"labelSelector", "app"}}), "ab");
  EXPECT_EQ(names({{"labelSelector", "!app"}}), "c");
  EXPECT_EQ(names({{"labelSelector", "app!=web"}}), "bc");
  EXPECT_EQ(names({{"labelSelector", "app in (web, db),tier notin (back)"}}), "ab");
  EXPECT_EQ(names({{"fieldSelector", "metadata.name=b"}}), "b");
  EXPECT_EQ(names({{"fieldSelector", "metadata.name!=b"}, {"labelSelector", "app"}}), "a");
}

TEST_F(RestHandlerTest, NamespacesAndTheirAdmission) {
  auto list = Call("GET", "/api/v1/namespaces", "", std::string(kTableAccept));
  EXPECT_THAT(list.body, HasSubstr(R"("cells":["default","Active","0s"])"));
  EXPECT_THAT(list.body, HasSubstr(R"("cells":["kube-system","Active","0s"])"));
  auto restricted = Call("POST", "/api/v1/namespaces",
                         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team",)"
                         R"("labels":{"pod-security.kubernetes.io/enforce":"restricted"}}})");
  EXPECT_EQ(restricted.status, 201) << restricted.body;
  // A LimitRange of the namespace is what later objects there are admitted against.
  auto lr = Call("POST", "/api/v1/namespaces/team/limitranges",
                 R"({"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"pid"},)"
                 R"("spec":{"limits":[{"type":"Pod","max":{"pid":"64"}}]}})");
  EXPECT_EQ(lr.status, 201) << lr.body;
  EXPECT_EQ(store_->List("limitranges", "team", false)->items.size(), 1u);
}

}  // namespace
}  // namespace podlimits::apiserver
