// Ephemeral containers: ValidatePodEphemeralContainersUpdate with upstream's messages, one named
// case per row, and pods/ephemeralcontainers through the REST handler as kubectl debug uses it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "listwatch/stored_object.h"
#include "rest_handler_fixture.h"
#include "test_support.h"
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The running pod: an app container, an init container and, when `existing` is set, the
// ephemeral containers it already has (indented 2, under spec).
std::string PodYaml(std::string_view ephemeral) {
  std::string y =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n"
      "  initContainers:\n  - name: setup\n    image: busybox\n"
      "  containers:\n  - name: app\n    image: busybox\n";
  if (!ephemeral.empty()) y += "  ephemeralContainers:\n" + std::string(ephemeral);
  return y;
}

const std::string kDebugger = "  - name: dbg\n    image: busybox\n";

struct Case {
  std::string name;
  std::string old_ephemeral;  // the stored pod's
  std::string new_ephemeral;  // the request's
  std::vector<std::string> errors;
};

TEST(ValidatePodEphemeralContainersUpdate, UpstreamRules) {
  const std::string kForbidden = ": Forbidden: cannot be set for an Ephemeral Container";
  const std::vector<Case> cases = {
      {"the first one added", "", kDebugger, {}},
      {"one more added beside an existing one", kDebugger,
       kDebugger + "  - name: dbg2\n    image: busybox\n    targetContainerName: app\n", {}},
      {"an existing one removed", kDebugger, "",
       {"spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be "
        "removed\n"}},
      {"an existing one changed", kDebugger, kDebugger + "    command: [sh]\n",
       {"spec.ephemeralContainers: Forbidden: existing ephemeral containers \"dbg\" may not be "
        "changed\n- command: null\n+ command: [\"sh\"]\n"}},
      {"the same ones in another order", kDebugger + "  - name: dbg2\n    image: busybox\n",
       "  - name: dbg2\n    image: busybox\n" + kDebugger, {}},
      {"a name an app container has", "", "  - name: app\n    image: busybox\n",
       {"spec.ephemeralContainers[0].name: Duplicate value: \"app\""}},
      {"a name an init container has", "", "  - name: setup\n    image: busybox\n",
       {"spec.ephemeralContainers[0].name: Duplicate value: \"setup\""}},
      {"two with one name", "", kDebugger + kDebugger,
       {"spec.ephemeralContainers[1].name: Duplicate value: \"dbg\""}},
      {"no image", "", "  - name: dbg\n",
       {"spec.ephemeralContainers[0].image: Required value"}},
      {"a target that is no container", "", kDebugger + "    targetContainerName: nope\n",
       {"spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\""}},
      {"an init container as target", "", kDebugger + "    targetContainerName: setup\n", {}},
      {"ports", "", kDebugger + "    ports: [{containerPort: 80}]\n",
       {"spec.ephemeralContainers[0].ports" + kForbidden}},
      {"resources", "", kDebugger + "    resources: {limits: {cpu: \"1\"}}\n",
       {"spec.ephemeralContainers[0].resources" + kForbidden}},
      {"empty resources, as kubectl sends them", "", kDebugger + "    resources: {}\n", {}},
      {"restartPolicy", "", kDebugger + "    restartPolicy: Always\n",
       {"spec.ephemeralContainers[0].restartPolicy" + kForbidden}},
      {"probes and lifecycle, in the struct's order", "",
       kDebugger +
           "    lifecycle: {preStop: {exec: {command: [\"true\"]}}}\n"
           "    readinessProbe: {exec: {command: [\"true\"]}}\n"
           "    livenessProbe: {exec: {command: [\"true\"]}}\n",
       {"spec.ephemeralContainers[0].livenessProbe" + kForbidden,
        "spec.ephemeralContainers[0].readinessProbe" + kForbidden,
        "spec.ephemeralContainers[0].lifecycle" + kForbidden}},
      {"a subPath", "",
       kDebugger + "    volumeMounts: [{name: data, mountPath: /d, subPath: x}]\n",
       {"spec.ephemeralContainers[0].volumeMounts[0].subPath" + kForbidden}},
      // The seeds' process-limit fields are validated on an ephemeral container as on any.
      {"ulimits within the seeds' bounds", "",
       kDebugger + "    securityContext:\n      ulimits: [{name: nofile, soft: 1024, hard: 4096}]\n",
       {}},
      {"a nofile hard limit above the seeds' bound", "",
       kDebugger +
           "    securityContext:\n      ulimits: [{name: nofile, soft: 1024, hard: 1048577}]\n",
       {"spec.ephemeralContainers[0].securityContext.ulimits[0].hard: Invalid value: 1048577: "
        "must be less than or equal to 1048576 (or -1 for unlimited)"}},
      {"a soft limit above its hard limit", "",
       kDebugger + "    securityContext:\n      ulimits: [{name: nofile, soft: 8, hard: 4}]\n",
       {"spec.ephemeralContainers[0].securityContext.ulimits[0].soft: Invalid value: 8: must be "
        "less than or equal to hard limit 4"}},
      {"cgroupOptions", "",
       kDebugger + "    securityContext: {cgroupOptions: {mountMode: Writable}}\n",
       {"spec.ephemeralContainers[0].securityContext.cgroupOptions" + kForbidden}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const codec::Node old_tree = podlimits::testing::DefaultedPodTree(PodYaml(c.old_ephemeral));
    const codec::Node new_tree = podlimits::testing::DefaultedPodTree(PodYaml(c.new_ephemeral));
    ValidationResult r = ValidatePodEphemeralContainersUpdate(
        api::ReadPod(new_tree), api::ReadPod(old_tree),
        new_tree.FindPath({"spec", "ephemeralContainers"}),
        old_tree.FindPath({"spec", "ephemeralContainers"}), FeatureGates{});
    std::vector<std::string> got;
    for (const auto& e : r.errors) got.push_back(e.String());
    EXPECT_THAT(got, ElementsAreArray(c.errors));
  }
}

TEST(ValidatePodEphemeralContainersUpdate, StaticPodsHaveNone) {
  const std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-n1\n"
      "  annotations: {kubernetes.io/config.mirror: abc}\n"
      "spec:\n  nodeName: n1\n  containers:\n  - name: app\n    image: busybox\n";
  const codec::Node old_tree = podlimits::testing::DefaultedPodTree(yaml);
  codec::Node new_tree = old_tree;
  auto list = codec::ParseJsonStream(R"([{"name":"dbg","image":"busybox"}])");
  ASSERT_TRUE(list);
  new_tree.Find("spec")->Set("ephemeralContainers", (*list)[0]);
  api::SetDefaultsPod(new_tree);
  ValidationResult r = ValidatePodEphemeralContainersUpdate(
      api::ReadPod(new_tree), api::ReadPod(old_tree),
      new_tree.FindPath({"spec", "ephemeralContainers"}), nullptr, FeatureGates{});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].Body(), "Forbidden: static pods do not support ephemeral containers");
}

}  // namespace
}  // namespace podlimits::validation

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

class EphemeralContainersTest : public RestHandlerTest {
 protected:
  void SetUp() override {
    RestHandlerTest::SetUp();
    auto r = Call("POST", "/api/v1/namespaces/default/pods",
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},)"
                  R"("spec":{"containers":[{"name":"c","image":"busybox"}]}})");
    ASSERT_EQ(r.status, 201) << r.body;
  }

  // kubectl debug's request: a strategic merge patch of the pod on the subresource.
  http::HttpResponse AddDebugger(const std::string& container_json) {
    return Call("PATCH", "/api/v1/namespaces/default/pods/web/ephemeralcontainers",
                R"({"spec":{"ephemeralContainers":[)" + container_json + "]}}", "application/json",
                "application/strategic-merge-patch+json");
  }

  codec::Node Stored() {
    auto got = store_->Get({"pods", "default", "web"});
    EXPECT_TRUE(got);
    auto tree = ParseStoredObject(got->data);
    EXPECT_TRUE(tree);
    return tree ? std::move(*tree) : codec::Node::Object();
  }
};

const std::string kKubectlDebugger =
    R"({"name":"dbg","image":"busybox","command":["sh"],"resources":{},)"
    R"("terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent",)"
    R"("stdin":true,"tty":true,"targetContainerName":"c"})";

TEST_F(EphemeralContainersTest, KubectlDebugsPatchAddsOneDefaulted) {
  auto r = AddDebugger(kKubectlDebugger);
  ASSERT_EQ(r.status, 200) << r.body;
  codec::Node pod = Stored();
  const codec::Node* list = pod.FindPath({"spec", "ephemeralContainers"});
  ASSERT_TRUE(list && list->IsArray());
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(codec::StringOf(list->items[0].Find("targetContainerName")), "c");
  EXPECT_EQ(codec::StringOf(list->items[0].Find("terminationMessagePath")), "/dev/termination-log");
  // The writer's entry names the subresource; the app container is still the create's.
  const codec::Node* managed = pod.FindPath({"metadata", "managedFields"});
  ASSERT_TRUE(managed && managed->IsArray());
  const codec::Node& last = managed->items.back();
  EXPECT_EQ(codec::StringOf(last.Find("subresource")), "ephemeralcontainers");
  EXPECT_EQ(codec::StringOf(last.Find("operation")), "Update");
  EXPECT_EQ(codec::EncodeJson(*last.Find("fieldsV1"), 0),
            R"({"f:spec":{"f:ephemeralContainers":{".":{},"k:{\"name\":\"dbg\"}":{".":{},)"
            R"("f:command":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},)"
            R"("f:stdin":{},"f:targetContainerName":{},"f:terminationMessagePath":{},)"
            R"("f:terminationMessagePolicy":{},"f:tty":{}}}}})");
  // GET of the subresource is the pod.
  auto got = Call("GET", "/api/v1/namespaces/default/pods/web/ephemeralcontainers");
  EXPECT_EQ(got.status, 200);
  EXPECT_THAT(got.body, HasSubstr(R"("kind":"Pod")"));
}

TEST_F(EphemeralContainersTest, OnlyTheEphemeralContainersOfTheRequestCount) {
  auto r = Call("PATCH", "/api/v1/namespaces/default/pods/web/ephemeralcontainers",
                R"({"metadata":{"labels":{"a":"b"}},"spec":{"activeDeadlineSeconds":5,)"
                R"("ephemeralContainers":[{"name":"dbg","image":"busybox"}]}})",
                "application/json", "application/strategic-merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  codec::Node pod = Stored();
  EXPECT_EQ(pod.FindPath({"metadata", "labels"}), nullptr);
  EXPECT_EQ(pod.FindPath({"spec", "activeDeadlineSeconds"}), nullptr);
  EXPECT_NE(pod.FindPath({"spec", "ephemeralContainers"}), nullptr);
}

TEST_F(EphemeralContainersTest, ThePodsOwnUpdatesLeaveThemAlone) {
  ASSERT_EQ(AddDebugger(kKubectlDebugger).status, 200);
  // A label through the pod itself: admitted as before, the ephemeral container kept.
  auto labelled = Call("PATCH", "/api/v1/namespaces/default/pods/web",
                       R"({"metadata":{"labels":{"a":"b"}}})", "application/json",
                       "application/merge-patch+json");
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_NE(Stored().FindPath({"spec", "ephemeralContainers"}), nullptr);
  // Through the pod itself they cannot be added, changed or removed.
  auto removed = Call("PATCH", "/api/v1/namespaces/default/pods/web",
                      R"({"spec":{"ephemeralContainers":null}})", "application/json",
                      "application/merge-patch+json");
  EXPECT_EQ(removed.status, 422) << removed.body;
  EXPECT_THAT(removed.body, HasSubstr("pod updates may not change fields other than"));
}

TEST_F(EphemeralContainersTest, Refusals) {
  ASSERT_EQ(AddDebugger(R"({"name":"dbg","image":"busybox"})").status, 200);
  struct Refusal {
    std::string name;
    std::string body;
    int status;
    std::string message;
  };
  const std::vector<Refusal> refusals = {
      {"removed by a JSON merge patch", R"({"spec":{"ephemeralContainers":[]}})", 422,
       R"(Pod \"web\" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral )"
       R"(containers \"dbg\" may not be removed\n)"},
      {"a port", R"({"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox"},)"
                 R"({"name":"dbg2","image":"busybox","ports":[{"containerPort":80}]}]}})",
       422,
       R"(Pod \"web\" is invalid: spec.ephemeralContainers[1].ports: Forbidden: cannot be set )"
       R"(for an Ephemeral Container)"},
      {"an unknown field", R"({"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox"},)"
                           R"({"name":"dbg2","image":"busybox","bogus":1}]}})",
       400, "unknown field"},
  };
  for (const Refusal& c : refusals) {
    SCOPED_TRACE(c.name);
    auto r = Call("PATCH", "/api/v1/namespaces/default/pods/web/ephemeralcontainers?fieldValidation=Strict",
                  c.body, "application/json", "application/merge-patch+json");
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.message));
  }
}

TEST_F(EphemeralContainersTest, PodSecurityChecksTheAddedContainer) {
  auto labelled = Call("PATCH", "/api/v1/namespaces/default",
                       R"({"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})",
                       "application/json", "application/merge-patch+json");
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  auto r = AddDebugger(
      R"({"name":"dbg","image":"busybox","securityContext":{"privileged":true}})");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"(pods \"web\" is forbidden: violates PodSecurity )"
                                R"(\"baseline:latest\": privileged (container \"dbg\" must not )"
                                R"(set securityContext.privileged=true))"));
  EXPECT_EQ(Stored().FindPath({"spec", "ephemeralContainers"}), nullptr);
}

}  // namespace
}  // namespace podlimits::apiserver
