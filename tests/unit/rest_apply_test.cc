// Server-side apply and managedFields through serve's REST handler: each step a request and the
// apiserver's answer written out (status, and a piece of the body: a message or the stored
// managedFields), in order on one store.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rest_handler_fixture.h"

namespace podlimits::apiserver {
namespace {

constexpr std::string_view kApply = "application/apply-patch+yaml";

TEST_F(RestHandlerTest, ServerSideApplyStepByStep) {
  const std::string cm = "/api/v1/namespaces/default/configmaps";
  const std::string pods = "/api/v1/namespaces/default/pods";
  struct Step {
    const char* name;
    const char* method;
    std::string path;
    std::string body;
    std::string content_type;
    int status;
    std::string has;  // a substring of the response body
  };
  const std::string kLong(129, 'm');
  const Step steps[] = {
      {"apply needs a manager", "PATCH", cm + "/c", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
       std::string(kApply), 422,
       R"(PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch)"},
      {"an apply that creates", "PATCH", cm + "/c?fieldManager=alice",
       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"1\"\n  b: \"1\"\n",
       std::string(kApply), 201,
       R"("managedFields":[{"manager":"alice","operation":"Apply","apiVersion":"v1","time":"2026-11-25T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}])"},
      {"another manager's different value is a conflict", "PATCH", cm + "/c?fieldManager=bob",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"2"}})",
       std::string(kApply), 409,
       R"("message":"Apply failed with 1 conflict: conflict with \"alice\": .data.a","reason":"Conflict","details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"alice\"","field":".data.a"}]},"code":409)"},
      {"force takes it", "PATCH", cm + "/c?fieldManager=bob&force=true",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"2"}})",
       std::string(kApply), 200, R"("data":{"a":"2","b":"1"})"},
      {"a field alice no longer applies goes", "PATCH", cm + "/c?fieldManager=alice",
       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  c: \"1\"\n",
       std::string(kApply), 200, R"("data":{"a":"2","c":"1"})"},
      {"an update is recorded as the User-Agent's", "PATCH", cm + "/c",
       R"({"data":{"c":"3"}})", "application/merge-patch+json", 200,
       R"({"manager":"unknown","operation":"Update","apiVersion":"v1","time":"2026-11-25T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:c":{}}}})"},
      {"force only on an apply", "PATCH", cm + "/c?force=true", R"({"data":{"c":"4"}})",
       "application/merge-patch+json", 422,
       R"(PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch)"},
      {"a manager too long", "POST", cm + "?fieldManager=" + kLong,
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"}})", "application/json", 422,
       R"(CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes)"},
      {"another kind", "PATCH", cm + "/c?fieldManager=alice",
       R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"c"}})", std::string(kApply), 400,
       R"(invalid object type: /v1, Kind=Secret)"},
      {"a body that is not an object", "PATCH", cm + "/c?fieldManager=alice", "- 1\n",
       std::string(kApply), 400,
       R"(error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {})"},
      {"managedFields in the configuration", "PATCH", cm + "/c?fieldManager=alice",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"x"}]}})",
       std::string(kApply), 400, "metadata.managedFields must be nil"},
      {"managedFields written by hand with a manager too long", "PUT", cm + "/c",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":")" + kLong +
           R"(","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"data":{"a":"2"}})",
       "application/json", 422,
       R"(ConfigMap \"c\" is invalid: metadata.managedFields[0].manager: Too long: may not be more than 128 bytes)"},
      {"a pod by apply", "PATCH", pods + "/p?fieldManager=alice",
       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: web\n    image: busybox\n",
       std::string(kApply), 201,
       R"("fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}})"},
      {"its spec stays immutable", "PATCH", pods + "/p?fieldManager=alice",
       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: web\n    image: busybox\n    workingDir: /x\n",
       std::string(kApply), 422, "pod updates may not change fields other than"},
      {"labels by apply go into the same entry", "PATCH", pods + "/p?fieldManager=alice",
       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    app: web\nspec:\n  containers:\n  - name: web\n    image: busybox\n",
       std::string(kApply), 200,
       R"("fieldsV1":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}})"},
  };
  for (const Step& s : steps) {
    SCOPED_TRACE(s.name);
    auto r = Call(s.method, s.path, s.body, "application/json", s.content_type);
    EXPECT_EQ(r.status, s.status) << r.body;
    EXPECT_THAT(r.body, ::testing::HasSubstr(s.has));
  }
}

}  // namespace
}  // namespace podlimits::apiserver
