// What kubectl drain, cordon, taint and status writers use: pods/eviction, the status
// subresources of pods, nodes and namespaces, updates of the Node, and dry runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "rest_handler_fixture.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kSuccess201 =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})";

class SubresourceTest : public RestHandlerTest {
 protected:
  // A pod as the node would have it: bound and running (a delete of it is graceful).
  void CreateBoundPod(const std::string& name) {
    auto r = Call("POST", "/api/v1/namespaces/default/pods",
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                      R"("},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto stored = store_->Get({"pods", "default", name});
    ASSERT_TRUE(stored);
    auto tree = ParseStoredObject(stored->data);
    tree->Ensure("status").Set("phase", codec::Node::String("Running"));
    ASSERT_TRUE(store_->Update({"pods", "default", name}, stored->revision, [&](std::int64_t rv) {
      return RenderStoredObject(*tree, "Pod", rv);
    }));
  }

  // The node's own Node object, as the node agent registers it.
  void RegisterNode() {
    auto tree = codec::ParseJsonStream(
        R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","uid":"u1",)"
        R"("labels":{"kubernetes.io/hostname":"n1"}},"spec":{},)"
        R"("status":{"conditions":[{"type":"Ready","status":"True"}]}})");
    ASSERT_TRUE(tree);
    ASSERT_TRUE(store_->Create({"nodes", "", "n1"}, [&](std::int64_t rv) {
      return RenderStoredObject((*tree)[0], "Node", rv);
    }));
  }

  std::string Eviction(const std::string& name, const std::string& options = "") {
    return R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + name +
           R"(","namespace":"default"})" + (options.empty() ? "" : ",\"deleteOptions\":" + options) +
           "}";
  }
};

TEST_F(SubresourceTest, AnEvictionIsTheDeleteItCarries) {
  CreateBoundPod("web");
  auto evicted = Call("POST", "/api/v1/namespaces/default/pods/web/eviction",
                      Eviction("web", R"({"gracePeriodSeconds":5})"));
  EXPECT_EQ(evicted.status, 201) << evicted.body;
  EXPECT_EQ(evicted.body, kSuccess201);
  // Bound and running: deleted gracefully, with the eviction's grace period, and marked.
  auto pod = Call("GET", "/api/v1/namespaces/default/pods/web");
  EXPECT_THAT(pod.body, HasSubstr(R"("deletionTimestamp":"2026-11-25T12:00:05Z",)"
                                  R"("deletionGracePeriodSeconds":5)"));
  EXPECT_THAT(pod.body, HasSubstr(R"({"type":"DisruptionTarget","status":"True",)"
                                  R"("lastProbeTime":null,"lastTransitionTime":)"
                                  R"("2026-11-25T12:00:00Z","reason":"EvictionByEvictionAPI",)"
                                  R"("message":"Eviction API: evicting"})"));
}

TEST_F(SubresourceTest, AnUnboundPodIsEvictedAtOnce) {
  auto r = Call("POST", "/api/v1/namespaces/default/pods",
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
                R"("spec":{"containers":[{"name":"c","image":"busybox"}]}})");
  ASSERT_EQ(r.status, 201);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/p/eviction", Eviction("p")).status, 201);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/p").status, 404);
}

TEST_F(SubresourceTest, EvictionRefusals) {
  CreateBoundPod("web");
  struct Case {
    std::string name, path, body, content_type;
    int code;
    std::string message;
  };
  const std::string path = "/api/v1/namespaces/default/pods/web/eviction";
  const std::vector<Case> cases = {
      {"name differs", path, Eviction("other"), "application/json", 400,
       "name in URL does not match name in Eviction object"},
      {"no such pod", "/api/v1/namespaces/default/pods/gone/eviction", Eviction("gone"),
       "application/json", 404, R"(pods \"gone\" not found)"},
      {"uid precondition", path, Eviction("web", R"({"preconditions":{"uid":"nope"}})"),
       "application/json", 409,
       R"(Operation cannot be fulfilled on Pod \"web\": the UID in the precondition (nope) does )"
       R"(not match the UID in record)"},
      {"resourceVersion precondition", path,
       Eviction("web", R"({"preconditions":{"resourceVersion":"1"}})"), "application/json", 409,
       R"(the ResourceVersion in the precondition (1) does not match the ResourceVersion in )"
       R"(record)"},
      {"another kind", path,
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}})", "application/json", 400,
       "must be a policy/v1 Eviction"},
      {"unknown field", path + "?fieldValidation=Strict",
       R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web"},"bogus":1})",
       "application/json", 400, R"(unknown field \"bogus\")"},
      {"not json", path, "{", "application/json", 400, "unknown format"},
      {"yaml", path, "kind: Eviction", "application/yaml", 415,
       "accepted media types include: application/json, application/vnd.kubernetes.protobuf"},
  };
  for (const auto& c : cases) {
    auto r = Call("POST", c.path, c.body, "application/json", c.content_type);
    EXPECT_EQ(r.status, c.code) << c.name << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.message)) << c.name;
  }
  // None of them touched the pod.
  auto pod = Call("GET", "/api/v1/namespaces/default/pods/web");
  EXPECT_THAT(pod.body, ::testing::Not(HasSubstr("deletionTimestamp")));
  EXPECT_THAT(pod.body, ::testing::Not(HasSubstr("DisruptionTarget")));
}

TEST_F(SubresourceTest, StatusWritesChangeOnlyTheStatus) {
  CreateBoundPod("web");
  auto patched = Call("PATCH", "/api/v1/namespaces/default/pods/web/status",
                      R"({"metadata":{"labels":{"a":"b"}},"spec":{"activeDeadlineSeconds":5},)"
                      R"("status":{"conditions":[{"type":"example.com/gate","status":"True"}]}})",
                      "application/json", "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.body;
  EXPECT_THAT(patched.body, HasSubstr(R"("conditions":[{"type":"example.com/gate","status":"True"}])"));
  EXPECT_THAT(patched.body, ::testing::Not(HasSubstr("activeDeadlineSeconds")));
  EXPECT_THAT(patched.body, ::testing::Not(HasSubstr(R"("a":"b")")));
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/web/status").body,
            Call("GET", "/api/v1/namespaces/default/pods/web").body);

  RegisterNode();
  auto bad = Call("PUT", "/api/v1/nodes/n1/status?fieldValidation=Strict",
                  R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},)"
                  R"("status":{"bogus":1}})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr(R"(unknown field \"status.bogus\")"));
  auto put = Call("PUT", "/api/v1/nodes/n1/status",
                  R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},)"
                  R"("spec":{"unschedulable":true},"status":{"phase":"Running"}})");
  EXPECT_EQ(put.status, 200) << put.body;
  EXPECT_THAT(put.body, HasSubstr(R"("spec":{},"status":{"phase":"Running",)"));
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/status").status, 200);
  // Writes of a status the resource has no subresource for are refused as before.
  EXPECT_EQ(Call("PATCH", "/api/v1/namespaces/default/configmaps/x/status", "{}",
                 "application/json", "application/merge-patch+json")
                .status,
            405);
}

TEST_F(SubresourceTest, NodeUpdatesAsTheNodeStrategyAllows) {
  RegisterNode();
  auto merge = [&](const std::string& patch) {
    return Call("PATCH", "/api/v1/nodes/n1", patch, "application/json",
                "application/strategic-merge-patch+json");
  };
  // kubectl cordon, label and taint.
  auto cordoned = merge(R"({"spec":{"unschedulable":true}})");
  EXPECT_EQ(cordoned.status, 200) << cordoned.body;
  EXPECT_THAT(cordoned.body, HasSubstr(R"("spec":{"unschedulable":true})"));
  EXPECT_EQ(merge(R"({"metadata":{"labels":{"pool":"ci"}}})").status, 200);
  auto tainted = merge(R"({"spec":{"taints":[{"key":"dedicated","value":"ci","effect":"NoSchedule"}]}})");
  EXPECT_EQ(tainted.status, 200) << tainted.body;
  // The status is the node's: a PUT's is ignored.
  auto node = codec::ParseJsonStream(Call("GET", "/api/v1/nodes/n1").body);
  ASSERT_TRUE(node);
  (*node)[0].Set("status", codec::Node::Object());
  auto put = Call("PUT", "/api/v1/nodes/n1", codec::EncodeJson((*node)[0], 0));
  EXPECT_EQ(put.status, 200) << put.body;
  EXPECT_THAT(put.body, HasSubstr(R"("status":{"conditions":[{"type":"Ready","status":"True"}],)"));
  // podCIDR: set once (podCIDRs follows), never changed.
  auto cidr = merge(R"({"spec":{"podCIDR":"10.244.0.0/24"}})");
  EXPECT_THAT(cidr.body, HasSubstr(R"("podCIDR":"10.244.0.0/24","podCIDRs":["10.244.0.0/24"])"));

  struct Case {
    std::string name, patch, message;
  };
  const std::vector<Case> refused = {
      {"effect", R"({"spec":{"taints":[{"key":"a","effect":"Bogus"}]}})",
       R"(spec.taints[0].effect: Unsupported value: \"Bogus\": supported values: )"
       R"(\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\")"},
      {"no effect", R"({"spec":{"taints":[{"key":"a"}]}})", "spec.taints[0].effect: Required value"},
      {"key", R"({"spec":{"taints":[{"key":"a b","effect":"NoSchedule"}]}})",
       R"(spec.taints[0].key: Invalid value: \"a b\": name part must consist of)"},
      {"duplicate",
       R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"},{"key":"a","value":"x","effect":"NoSchedule"}]}})",
       R"(spec.taints[1]: Duplicate value: core.Taint{Key:\"a\", Value:\"x\", )"
       R"(Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and )"
       R"(effect pair)"},
      {"podCIDR changed", R"({"spec":{"podCIDR":"10.245.0.0/24","podCIDRs":["10.245.0.0/24"]}})",
       R"(spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid)"},
      {"other spec field", R"({"spec":{"externalID":"x"}})",
       R"(Node \"n1\" is invalid: : Forbidden: node updates may only change labels, taints, )"
       R"(or capacity)"},
  };
  for (const auto& c : refused) {
    auto r = merge(c.patch);
    EXPECT_EQ(r.status, 422) << c.name << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.message)) << c.name;
  }
  EXPECT_EQ(Call("DELETE", "/api/v1/nodes/n1").status, 405);  // the node is the node's
}

TEST_F(SubresourceTest, DryRunsWriteNothing) {
  CreateBoundPod("web");
  const std::string cm =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})";
  auto created = Call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm);
  EXPECT_EQ(created.status, 201) << created.body;
  EXPECT_THAT(created.body, ::testing::Not(HasSubstr("resourceVersion")));
  EXPECT_THAT(created.body, HasSubstr(R"("data":{"a":"1"})"));
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/configmaps/cm").status, 404);

  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", cm).status, 201);
  const std::string before = Call("GET", "/api/v1/namespaces/default/configmaps/cm").body;
  auto patched = Call("PATCH", "/api/v1/namespaces/default/configmaps/cm?dryRun=All",
                      R"({"data":{"a":"2"}})", "application/json", "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200);
  EXPECT_THAT(patched.body, HasSubstr(R"("data":{"a":"2"})"));
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/default/configmaps/cm",
                 R"({"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]})")
                .status,
            200);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/configmaps/cm").body, before);

  // kubectl drain --dry-run=server: the dry run rides in the Eviction's deleteOptions.
  const std::string pod = Call("GET", "/api/v1/namespaces/default/pods/web").body;
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/pods/web/eviction",
                 Eviction("web", R"({"dryRun":["All"]})"))
                .status,
            201);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/web").body, pod);

  auto bogus = Call("POST", "/api/v1/namespaces/default/configmaps?dryRun=Bogus", cm);
  EXPECT_EQ(bogus.status, 422);
  EXPECT_THAT(bogus.body, HasSubstr(R"(CreateOptions.meta.k8s.io \"\" is invalid: dryRun: )"
                                    R"(Unsupported value: [\"Bogus\"]: supported values: \"All\")"));
}

}  // namespace
}  // namespace podlimits::apiserver
