// The workload controllers over the REST handler and a fresh store, one round at a time
// (SyncOnce): what the ReplicaSets, pods, statuses and events are after each round, with the
// node's part (pods becoming Running and Ready, or failing) written by the test.
#include "controllers/workload_controllers.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "controllers/deployment_controller.h"
#include "listwatch/stored_object.h"
#include "workload_controllers_fixture.h"

namespace podlimits::controllers {
namespace {

using apiserver::RestHandlerTest;
using codec::Node;
using ::testing::HasSubstr;

constexpr std::string_view kDeployment =
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},)"
    R"("spec":{"replicas":4,"selector":{"matchLabels":{"app":"web"}},)"
    R"("template":{"metadata":{"labels":{"app":"web"}},)"
    R"("spec":{"containers":[{"name":"c","image":"busybox"}]}}}})";

TEST_F(WorkloadControllersTest, DeploymentRunsItsTemplateThroughAReplicaSet) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  controllers_->SyncOnce();
  std::vector<Node> sets = Items("replicasets");
  ASSERT_EQ(sets.size(), 1u);
  const std::string rs = codec::StringOf(sets[0].FindPath({"metadata", "name"}));
  const std::string hash = rs.substr(4);
  EXPECT_EQ(rs.substr(0, 4), "web-");
  EXPECT_EQ(codec::StringOf(sets[0].FindPath({"spec", "selector", "matchLabels", "pod-template-hash"})), hash);
  EXPECT_EQ(codec::StringOf(sets[0].FindPath({"metadata", "annotations", "deployment.kubernetes.io/revision"})), "1");
  EXPECT_EQ(codec::IntOf(sets[0].FindPath({"spec", "replicas"})), 4);
  // The ReplicaSet's pods, created in the same round, through admission.
  std::vector<Node> pods = Items("pods");
  ASSERT_EQ(pods.size(), 4u);
  EXPECT_EQ(codec::StringOf(pods[0].FindPath({"metadata", "generateName"})), rs + "-");
  const Node& ref = pods[0].FindPath({"metadata", "ownerReferences"})->items[0];
  EXPECT_EQ(codec::StringOf(ref.Find("kind")), "ReplicaSet");
  EXPECT_TRUE(ref.Find("controller")->AsBool());
  EXPECT_EQ(codec::StringOf(pods[0].FindPath({"spec", "enableServiceLinks"})), "");  // a bool
  EXPECT_TRUE(pods[0].FindPath({"spec", "enableServiceLinks"})->AsBool());  // the pod's default

  RunPods();
  Rounds(3);
  Node d = Get("/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(codec::IntOf(d.FindPath({"status", "availableReplicas"})), 4);
  EXPECT_EQ(codec::IntOf(d.FindPath({"status", "updatedReplicas"})), 4);
  EXPECT_EQ(codec::IntOf(d.FindPath({"status", "observedGeneration"})), 1);
  EXPECT_EQ(codec::StringOf(d.FindPath({"metadata", "annotations", "deployment.kubernetes.io/revision"})), "1");
  const Node* conditions = d.FindPath({"status", "conditions"});
  ASSERT_TRUE(conditions && conditions->items.size() == 2);
  EXPECT_EQ(codec::StringOf(conditions->items[0].Find("reason")), "MinimumReplicasAvailable");
  EXPECT_EQ(codec::StringOf(conditions->items[1].Find("reason")), "NewReplicaSetAvailable");
  EXPECT_EQ(codec::StringOf(conditions->items[1].Find("message")),
            "ReplicaSet \"" + rs + "\" has successfully progressed.");

  auto events = Call("GET", "/api/v1/namespaces/default/events");
  EXPECT_THAT(events.body, HasSubstr("Scaled up replica set " + rs + " from 0 to 4"));
  EXPECT_THAT(events.body, HasSubstr(R"("reason":"SuccessfulCreate","message":"Created pod: )" + rs + "-"));
}

TEST_F(WorkloadControllersTest, RollingUpdateKeepsWithinSurgeAndUnavailable) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  Rounds(3);
  auto patched = Call("PATCH", "/apis/apps/v1/namespaces/default/deployments/web",
                      R"({"spec":{"template":{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"}]}]}}}})",
                      "application/json", "application/strategic-merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_THAT(patched.body, HasSubstr(R"("generation":2)"));
  // One round: 4 replicas, 25% surge (1) and 25% unavailable (1): the new ReplicaSet gets 1,
  // the old one goes to 3 (4 + 1 - 1 unavailable new pod... only the available count decides).
  controllers_->SyncOnce();
  std::vector<Node> sets = Items("replicasets");
  ASSERT_EQ(sets.size(), 2u);
  std::int64_t total = 0;
  for (const Node& rs : sets) total += *codec::IntOf(rs.FindPath({"spec", "replicas"}));
  EXPECT_LE(total, 5);  // replicas + maxSurge
  for (int i = 0; i < 12; ++i) {
    controllers_->SyncOnce();
    ReapPods();
    RunPods();
  }
  sets = Items("replicasets");
  ASSERT_EQ(sets.size(), 2u);
  std::map<std::string, std::int64_t> by_revision;
  for (const Node& rs : sets) {
    by_revision[codec::StringOf(rs.FindPath({"metadata", "annotations", "deployment.kubernetes.io/revision"}))] =
        *codec::IntOf(rs.FindPath({"spec", "replicas"}));
  }
  EXPECT_EQ(by_revision, (std::map<std::string, std::int64_t>{{"1", 0}, {"2", 4}}));
  Node d = Get("/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(codec::IntOf(d.FindPath({"status", "observedGeneration"})), 2);
  EXPECT_EQ(codec::IntOf(d.FindPath({"status", "updatedReplicas"})), 4);
}

TEST_F(WorkloadControllersTest, ScaleSubresource) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  Node scale = Get("/apis/apps/v1/namespaces/default/deployments/web/scale");
  EXPECT_EQ(codec::StringOf(scale.Find("apiVersion")), "autoscaling/v1");
  EXPECT_EQ(codec::IntOf(scale.FindPath({"spec", "replicas"})), 4);
  EXPECT_EQ(codec::StringOf(scale.FindPath({"status", "selector"})), "app=web");
  auto scaled = Call("PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale",
                     R"({"spec":{"replicas":2}})", "application/json", "application/merge-patch+json");
  EXPECT_EQ(scaled.status, 200) << scaled.body;
  Node d = Get("/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(codec::IntOf(d.FindPath({"spec", "replicas"})), 2);
  EXPECT_EQ(codec::IntOf(d.FindPath({"metadata", "generation"})), 2);
  auto negative = Call("PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale",
                       R"({"spec":{"replicas":-1}})", "application/json", "application/merge-patch+json");
  EXPECT_EQ(negative.status, 422);
  EXPECT_THAT(negative.body, HasSubstr(R"(Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0)"));
}

TEST_F(WorkloadControllersTest, SelectorIsImmutable) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  auto r = Call("PATCH", "/apis/apps/v1/namespaces/default/deployments/web",
                R"({"spec":{"selector":{"matchLabels":{"app":"web","tier":"x"}},"template":{"metadata":{"labels":{"tier":"x"}}}}})",
                "application/json", "application/strategic-merge-patch+json");
  EXPECT_EQ(r.status, 422);
  EXPECT_THAT(r.body, HasSubstr(R"(Deployment.apps \"web\" is invalid: spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web\",\"tier\":\"x\"}}: field is immutable)"));
  auto missing = Call("GET", "/apis/apps/v1/namespaces/default/deployments/nope");
  EXPECT_THAT(missing.body, HasSubstr(R"(deployments.apps \"nope\" not found)"));
}

TEST_F(WorkloadControllersTest, JobCompletesAndFailsPastItsBackoffLimit) {
  const std::string job =
      R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"NAME"},"spec":{"backoffLimit":0,)"
      R"("template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}})";
  auto named = [&](std::string name) {
    std::string body = job;
    body.replace(body.find("NAME"), 4, name);
    return body;
  };
  ASSERT_EQ(Call("POST", "/apis/batch/v1/namespaces/default/jobs", named("ok")).status, 201);
  controllers_->SyncOnce();
  ASSERT_EQ(Items("pods").size(), 1u);
  RunPods("Succeeded");
  controllers_->SyncOnce();
  Node ok = Get("/apis/batch/v1/namespaces/default/jobs/ok");
  EXPECT_EQ(codec::IntOf(ok.FindPath({"status", "succeeded"})), 1);
  EXPECT_TRUE(ok.FindPath({"status", "completionTime"}));
  const Node* conditions = ok.FindPath({"status", "conditions"});
  ASSERT_TRUE(conditions && conditions->items.size() == 2);
  EXPECT_EQ(codec::StringOf(conditions->items[1].Find("type")), "Complete");
  EXPECT_EQ(codec::StringOf(conditions->items[1].Find("message")),
            "Reached expected number of succeeded pods");

  ASSERT_EQ(Call("POST", "/apis/batch/v1/namespaces/default/jobs", named("bad")).status, 201);
  controllers_->SyncOnce();
  RunPods("Failed");
  controllers_->SyncOnce();
  Node bad = Get("/apis/batch/v1/namespaces/default/jobs/bad");
  EXPECT_EQ(codec::IntOf(bad.FindPath({"status", "failed"})), 1);
  conditions = bad.FindPath({"status", "conditions"});
  ASSERT_TRUE(conditions && conditions->items.size() == 2);
  EXPECT_EQ(codec::StringOf(conditions->items[1].Find("type")), "Failed");
  EXPECT_EQ(codec::StringOf(conditions->items[1].Find("reason")), "BackoffLimitExceeded");
  auto table = Call("GET", "/apis/batch/v1/namespaces/default/jobs", "", std::string(apiserver::kTableAccept));
  EXPECT_THAT(table.body, HasSubstr(R"("cells":["bad","Failed","0/1","0s","0s")"));
  EXPECT_THAT(table.body, HasSubstr(R"("cells":["ok","Complete","1/1","0s","0s")"));
}

// What the controllers write is kube-controller-manager's (client-go's agent for them), Update:
// the pods a ReplicaSet creates, the ReplicaSet's status.
TEST_F(WorkloadControllersTest, WritesAreKubeControllerManagers) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  Rounds(2);
  auto managers = [](const Node& o) {
    std::vector<std::string> out;
    for (const Node& e : o.FindPath({"metadata", "managedFields"})->items) {
      out.push_back(codec::StringOf(e.Find("manager")) + " " + codec::StringOf(e.Find("operation")) + " " +
                    codec::StringOf(e.Find("subresource")));
    }
    return out;
  };
  const Node pod = Items("pods")[0];
  EXPECT_EQ(managers(pod), (std::vector<std::string>{"kube-controller-manager Update ", "unknown Update status"}));
  const Node rs = Items("replicasets")[0];
  EXPECT_EQ(managers(rs), (std::vector<std::string>{"kube-controller-manager Update ",
                                                    "kube-controller-manager Update status"}));
}

// A server-side apply of a field kube-controller-manager set on a pod conflicts with it, as on a
// cluster; applying the value it has shares the field instead.
TEST_F(WorkloadControllersTest, ApplyToAControllersPodMeetsKubeControllerManager) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  Rounds(2);
  const std::string pod = codec::StringOf(Items("pods")[0].FindPath({"metadata", "name"}));
  auto apply = [&](std::string_view image) {
    return Call("PATCH", "/api/v1/namespaces/default/pods/" + pod + "?fieldManager=ops",
                fmt::format(R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{}"}},)"
                            R"("spec":{{"containers":[{{"name":"c","image":"{}"}}]}}}})",
                            pod, image),
                "application/json", "application/apply-patch+yaml");
  };
  auto conflict = apply("busybox:v2");
  EXPECT_EQ(conflict.status, 409) << conflict.body;
  EXPECT_THAT(conflict.body, HasSubstr(R"(Apply failed with 1 conflict: conflict with \"kube-controller-manager\" using v1)"));
  EXPECT_THAT(conflict.body, HasSubstr(R"(.spec.containers[name=\"c\"].image)"));
  auto shared = apply("busybox");
  EXPECT_EQ(shared.status, 200) << shared.body;
}

TEST_F(WorkloadControllersTest, DeletingADeploymentTakesWhatItOwned) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  Rounds(2);
  ASSERT_EQ(Call("DELETE", "/apis/apps/v1/namespaces/default/deployments/web").status, 200);
  controllers_->SyncOnce();  // the ReplicaSet goes
  EXPECT_EQ(Items("replicasets").size(), 0u);
  controllers_->SyncOnce();  // then its pods, gracefully
  for (const Node& pod : Items("pods")) EXPECT_TRUE(pod.FindPath({"metadata", "deletionTimestamp"}));
}

TEST_F(WorkloadControllersTest, OrphanDeletionLeavesTheReplicaSet) {
  ASSERT_EQ(Call("POST", "/apis/apps/v1/namespaces/default/deployments", std::string(kDeployment)).status, 201);
  Rounds(2);
  auto deleted = Call("DELETE", "/apis/apps/v1/namespaces/default/deployments/web",
                      R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"})");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_THAT(deleted.body, HasSubstr(R"("details":{"name":"web","group":"apps","kind":"deployments")"));
  Rounds(2);
  std::vector<Node> sets = Items("replicasets");
  ASSERT_EQ(sets.size(), 1u);  // kept, without its owner
  EXPECT_EQ(sets[0].FindPath({"metadata", "ownerReferences"}), nullptr);
  EXPECT_EQ(Items("pods").size(), 4u);  // and still running its pods
}

TEST(PodTemplateHash, TheAlphabetOfSafeEncodeString) {
  Node t = Node::Object();
  const std::string hash = PodTemplateHash(t, 0);
  EXPECT_FALSE(hash.empty());
  EXPECT_EQ(hash.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos);
  EXPECT_NE(PodTemplateHash(t, 1), hash);  // a collision count gives another name
}

struct ScaledCase {
  std::string name;
  std::string value;  // JSON
  std::int64_t total;
  bool round_up;
  std::int64_t want;
};

class ScaledValueTest : public ::testing::TestWithParam<ScaledCase> {};

TEST_P(ScaledValueTest, AsIntstr) {
  auto n = codec::ParseJsonStream(GetParam().value);
  ASSERT_TRUE(n);
  EXPECT_EQ(ScaledValue(&(*n)[0], GetParam().total, GetParam().round_up), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(Cases, ScaledValueTest,
                         ::testing::Values(ScaledCase{"SurgeRoundsUp", "\"25%\"", 3, true, 1},
                                         ScaledCase{"UnavailableRoundsDown", "\"25%\"", 3, false, 0},
                                         ScaledCase{"ExactQuarter", "\"25%\"", 4, false, 1},
                                         ScaledCase{"AnInteger", "2", 10, false, 2},
                                         ScaledCase{"AHundredPercent", "\"100%\"", 7, true, 7}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace podlimits::controllers
