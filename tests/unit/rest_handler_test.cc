// The REST side of serve: create through admission into the store, read back as JSON or Table,
// delete, and the apiserver's errors on the way.
#include "apiserver/rest_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/namespace_controller.h"
#include "rest_handler_fixture.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST_F(RestHandlerTest, CreateGetListDelete) {
  auto created = Call("POST", "/api/v1/namespaces/default/configmaps",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},)"
                      R"("data":{"a":"1"}})");
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_THAT(created.body, StartsWith(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{)"
                                       R"("name":"app","namespace":"default","uid":")"));
  // The creator's fields, as the apiserver records them (a client without a User-Agent is
  // "unknown"; rest_apply_test.cc has the rest).
  EXPECT_THAT(created.body, HasSubstr(R"("resourceVersion":"5","creationTimestamp":)"
                                      R"("2026-11-25T12:00:00Z","managedFields":[{"manager":"unknown",)"
                                      R"("operation":"Update","apiVersion":"v1","time":"2026-11-25T12:00:00Z",)"
                                      R"("fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}}]},)"
                                      R"("data":{"a":"1"}})"));

  auto got = Call("GET", "/api/v1/namespaces/default/configmaps/app");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, created.body);

  auto table = Call("GET", "/api/v1/namespaces/default/configmaps", "", std::string(kTableAccept));
  EXPECT_EQ(table.status, 200);
  EXPECT_THAT(table.body, HasSubstr(R"("rows":[{"cells":["app",1,"0s"])"));

  // A typed list: kind and apiVersion once, not in every item.
  auto list = Call("GET", "/api/v1/configmaps");
  EXPECT_THAT(list.body, StartsWith(R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{)"
                                    R"("resourceVersion":"5"},"items":[{"metadata":{"name":"app")"));

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

  http::HttpRequest proto;
  proto.method = "POST";
  proto.path = "/api/v1/namespaces/default/configmaps";
  proto.headers["content-type"] = "application/vnd.kubernetes.protobuf";
  proto.body = "not protobuf";
  auto garbled = rest_->Handle(proto);
  ASSERT_TRUE(garbled);
  EXPECT_EQ(garbled->status, 400);
  EXPECT_THAT(garbled->body, HasSubstr("does not appear to be a protobuf message"));
  proto.headers["content-type"] = "application/cbor";
  auto unsupported = rest_->Handle(proto);
  ASSERT_TRUE(unsupported);
  EXPECT_EQ(unsupported->status, 415);

  auto selector = Call("GET", "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(selector.status, 200);
  http::HttpRequest unknown_field;
  unknown_field.method = "GET";
  unknown_field.path = "/api/v1/namespaces/default/configmaps";
  unknown_field.query["fieldSelector"] = "spec.nodeName=a";
  auto refused = rest_->Handle(unknown_field);
  EXPECT_EQ(refused->status, 400);
  EXPECT_THAT(refused->body, HasSubstr("field label not supported: spec.nodeName"));

  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/default/pods").status, 405);
  EXPECT_EQ(Call("DELETE", "/api/v1/nodes/n").status, 405);  // the node registers itself
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
    http::HttpRequest r;
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

// kubectl get --sort-by=...: a Table whose rows carry the whole objects (includeObject=Object),
// on a list and on a get; an includeObject the apiserver does not know is its 400.
TEST_F(RestHandlerTest, TableRowsCarryWhatIncludeObjectAsks) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps",
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1"}})")
                .status,
            201);
  struct Case {
    const char* name;
    std::string path;
    int status;
    const char* expected;  // a part of the body
  };
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  const Case cases[] = {
      {"list, default", cms, 200, R"("object":{"kind":"PartialObjectMetadata")"},
      {"list, Object", cms + "?includeObject=Object", 200,
       R"("object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a")"},
      {"list, Object has the data", cms + "?includeObject=Object", 200, R"("data":{"k":"1"})"},
      {"get, Object", cms + "/a?includeObject=Object", 200,
       R"("object":{"kind":"ConfigMap","apiVersion":"v1")"},
      {"list, None", cms + "?includeObject=None", 200, R"("object":null)"},
      {"list, unknown", cms + "?includeObject=Everything", 400,
       R"("message":"Unable to convert to Table as requested: includeObject: Invalid value: )"
       R"(\"Everything\": must be 'Metadata', 'Object', 'None', or empty","reason":"BadRequest")"},
      {"get, unknown", cms + "/a?includeObject=all", 400,
       "Unable to convert to Table as requested: includeObject: Invalid value: \\\"all\\\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Call("GET", c.path, "", std::string(kTableAccept));
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.expected));
  }
  // Without a Table, includeObject is not looked at (as upstream: it is a TableOptions field).
  EXPECT_EQ(Call("GET", cms + "?includeObject=Everything").status, 200);
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

TEST_F(RestHandlerTest, UpdatesAndPatchesAsTheStrategiesAllow) {
  const std::string cm = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(Call("POST", cm,
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1"}})")
                .status,
            201);
  auto labeled = Call("PATCH", cm + "/a", R"({"metadata":{"labels":{"app":"web"}}})",
                      "application/json", "application/merge-patch+json");
  EXPECT_EQ(labeled.status, 200) << labeled.body;
  EXPECT_NE(labeled.body.find(R"("labels":{"app":"web"})"), std::string::npos) << labeled.body;
  EXPECT_NE(labeled.body.find(R"("uid":")"), std::string::npos) << "the uid is kept";

  // The same patch again changes nothing: no write, the resourceVersion stays.
  auto again = Call("PATCH", cm + "/a", R"({"metadata":{"labels":{"app":"web"}}})",
                    "application/json", "application/merge-patch+json");
  EXPECT_EQ(again.body, labeled.body);

  // PUT with a stale resourceVersion.
  auto stale = Call("PUT", cm + "/a",
                    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"},"data":{"k":"2"}})");
  EXPECT_EQ(stale.status, 409);
  EXPECT_NE(stale.body.find("the object has been modified"), std::string::npos) << stale.body;
  // PUT naming another object.
  auto renamed = Call("PUT", cm + "/a",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}})");
  EXPECT_EQ(renamed.status, 400);
  EXPECT_NE(renamed.body.find("the name of the object (b) does not match the name on the URL (a)"),
            std::string::npos);
  // Validation runs on updates too.
  auto invalid = Call("PATCH", cm + "/a", R"({"data":{"bad key":"x"}})", "application/json",
                      "application/strategic-merge-patch+json");
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  // A patch type the server does not take (CBOR apply: a feature gate upstream keeps off).
  EXPECT_EQ(Call("PATCH", cm + "/a", "{}", "application/json", "application/apply-patch+cbor").status,
            415);

  // Immutable ConfigMaps keep their data.
  ASSERT_EQ(Call("POST", cm,
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"i"},"data":{"k":"1"},"immutable":true})")
                .status,
            201);
  auto frozen = Call("PATCH", cm + "/i", R"({"data":{"k":"2"}})", "application/json",
                     "application/merge-patch+json");
  EXPECT_EQ(frozen.status, 422);
  EXPECT_NE(frozen.body.find("data: Forbidden: field is immutable when `immutable` is set"),
            std::string::npos)
      << frozen.body;

  // Pods: metadata may change, and of the spec what ValidatePodUpdate lets change.
  const std::string pods = "/api/v1/namespaces/default/pods";
  ASSERT_EQ(Call("POST", pods,
                 R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}})")
                .status,
            201);
  EXPECT_EQ(Call("PATCH", pods + "/p", R"({"metadata":{"annotations":{"x":"y"}}})",
                 "application/json", "application/merge-patch+json")
                .status,
            200);
}

// Each case patches the pod as it stands after the cases before it (kubectl set image, kubectl
// patch of the deadline, ...): the status and the message are the apiserver's.
TEST_F(RestHandlerTest, PodSpecUpdatesAreWhatValidatePodUpdateAllows) {
  const std::string pods = "/api/v1/namespaces/default/pods";
  ASSERT_EQ(Call("POST", pods,
                 R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{)"
                 R"("initContainers":[{"name":"i","image":"busybox"}],)"
                 R"("containers":[{"name":"c","image":"busybox"}]}})")
                .status,
            201);
  struct Case {
    std::string name, patch;
    int status;
    std::string message;  // a part of the body
  };
  const std::vector<Case> cases = {
      {"a container's image", R"({"spec":{"containers":[{"name":"c","image":"busybox:1"}]}})", 200,
       R"("image":"busybox:1")"},
      {"an init container's image",
       R"({"spec":{"initContainers":[{"name":"i","image":"busybox:2"}]}})", 200,
       R"("image":"busybox:2")"},
      {"an image with blanks", R"({"spec":{"containers":[{"name":"c","image":" busybox"}]}})", 422,
       R"(spec.containers[0].image: Invalid value: \" busybox\": must not have leading or )"
       R"(trailing whitespace)"},
      {"the deadline set", R"({"spec":{"activeDeadlineSeconds":600}})", 200,
       R"("activeDeadlineSeconds":600)"},
      {"the deadline lowered", R"({"spec":{"activeDeadlineSeconds":300}})", 200,
       R"("activeDeadlineSeconds":300)"},
      {"the deadline raised", R"({"spec":{"activeDeadlineSeconds":301}})", 422,
       "spec.activeDeadlineSeconds: Invalid value: 301: must be less than or equal to previous "
       "value"},
      {"the deadline removed", R"({"spec":{"activeDeadlineSeconds":null}})", 422,
       R"(spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive )"
       R"(integer to nil value)"},
      {"the deadline out of range", R"({"spec":{"activeDeadlineSeconds":2147483648}})", 422,
       "spec.activeDeadlineSeconds: Invalid value: 2147483648: must be between 0 and 2147483647, "
       "inclusive"},
      {"the grace period otherwise", R"({"spec":{"terminationGracePeriodSeconds":5}})", 422,
       "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"},
      {"a container added",
       R"({"spec":{"containers":[{"name":"c","image":"busybox:1"},{"name":"d","image":"busybox"}]}})",
       422, "spec.containers: Forbidden: pod updates may not add or remove containers"},
      {"another field of a container",
       R"({"spec":{"containers":[{"name":"c","image":"busybox:1","args":["x"]}]}})", 422,
       "spec: Forbidden: pod updates may not change fields other than"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Call("PATCH", pods + "/p", c.patch, "application/json",
                  "application/strategic-merge-patch+json");
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.message));
  }
}

TEST_F(RestHandlerTest, NamespacesAreDeletedThroughTheirContent) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces",
                 R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
                .status,
            201);
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/team/configmaps",
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}})")
                .status,
            201);
  auto deleting = Call("DELETE", "/api/v1/namespaces/team");
  EXPECT_EQ(deleting.status, 200);
  EXPECT_THAT(deleting.body, HasSubstr(R"("phase":"Terminating")"));
  auto refused = Call("POST", "/api/v1/namespaces/team/configmaps",
                      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}})");
  EXPECT_EQ(refused.status, 403);
  EXPECT_THAT(refused.body,
              HasSubstr(R"(configmaps \"b\" is forbidden: unable to create new content in namespace team because it is being terminated)"));
  auto immortal = Call("DELETE", "/api/v1/namespaces/default");
  EXPECT_EQ(immortal.status, 403);
  EXPECT_THAT(immortal.body, HasSubstr("this namespace may not be deleted"));

  NamespaceController controller(*store_, *rest_);
  controller.SyncOnce();  // the content goes
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/team/configmaps/a").status, 404);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/team").status, 200);
  controller.SyncOnce();  // then the namespace
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/team").status, 404);
}

TEST_F(RestHandlerTest, EventsWrittenThroughTheApi) {
  const std::string old_style =
      R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e1"},"reason":"Tested",)"
      R"("involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"type":"Normal"})";
  auto created = Call("POST", "/api/v1/namespaces/default/events", old_style);
  EXPECT_EQ(created.status, 201) << created.body;
  auto patched = Call("PATCH", "/api/v1/namespaces/default/events/e1", R"({"count":2})",
                      "application/json", "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.body;
  EXPECT_THAT(patched.body, HasSubstr(R"("count":2)"));

  struct Case {
    std::string name, body, message;
  };
  const std::vector<Case> refused = {
      {"another namespace's object",
       R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e2"},)"
       R"("involvedObject":{"kind":"Pod","name":"p","namespace":"kube-system"}})",
       R"(involvedObject.namespace: Invalid value: \"kube-system\": does not match )"
       R"(event.namespace)"},
      {"new style without reporter",
       R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e3"},)"
       R"("eventTime":"2026-11-25T12:00:00.000000Z",)"
       R"("involvedObject":{"kind":"Pod","name":"p","namespace":"default"}})",
       R"([reportingComponent: Required value, reportingInstance: Required value, action: )"
       R"(Required value])"},
  };
  for (const auto& c : refused) {
    auto r = Call("POST", "/api/v1/namespaces/default/events", c.body);
    EXPECT_EQ(r.status, 422) << c.name << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.message)) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::apiserver

namespace podlimits::apiserver {
namespace {

// kubectl --as / --as-group: serve has no user to act as but its admin, and no RBAC to judge
// one by, so impersonation is refused (403) instead of being done as the admin.
TEST_F(RestHandlerTest, ImpersonationIsRefused) {
  struct Case {
    std::string header, value, message;
  };
  for (const Case& c : std::vector<Case>{
           {"impersonate-user", "bob",
            R"(users \"bob\" is forbidden: User \"kubernetes-admin\" cannot impersonate resource )"
            R"(\"users\" in API group \"\" at the cluster scope)"},
           {"impersonate-group", "devs", R"(groups \"devs\" is forbidden)"}}) {
    SCOPED_TRACE(c.header);
    http::HttpRequest r;
    r.method = "POST";
    r.path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    r.body = R"({"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}})";
    r.headers["content-type"] = "application/json";
    r.headers[c.header] = c.value;
    r.user = "kubernetes-admin";
    auto response = rest_->Handle(r);
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->status, 403) << response->body;
    EXPECT_THAT(response->body, HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace podlimits::apiserver
