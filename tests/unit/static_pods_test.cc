// Static pods from staticPodPath: the kubelet's applyDefaults, a stable hash uid, refusals, and
// the mirror pod the API shows.
#include "nodeagent/static_pods.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

using ::testing::HasSubstr;

constexpr const char* kPod = R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: busybox}]
)";

TEST(StaticPodsTest, ReadsManifestsWithTheKubeletsDefaults) {
  podlimits::testing::TempDir dir{"podlimits-static"};
  dir.Write("web.yaml", kPod);
  dir.Write(".hidden.yaml", kPod);  // dot files are skipped
  dir.Write("bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: []}\n");
  dir.Write("two.yaml", std::string(kPod) + "---\n" + kPod);
  auto scan = ReadStaticPods(dir.path(), "n1", {}, "2026-11-26T00:00:00Z");
  ASSERT_EQ(scan.pods.size(), 1u);
  const StaticPod& pod = scan.pods[0];
  EXPECT_EQ(pod.object.FindPath({"metadata", "name"})->scalar, "web-n1");
  EXPECT_EQ(pod.object.FindPath({"metadata", "namespace"})->scalar, "default");
  EXPECT_EQ(pod.object.FindPath({"spec", "nodeName"})->scalar, "n1");
  EXPECT_EQ(pod.uid.size(), 32u);
  EXPECT_EQ(pod.object.FindPath({"metadata", "uid"})->scalar, pod.uid);
  EXPECT_EQ(pod.object.FindPath({"metadata", "annotations", "kubernetes.io/config.hash"})->scalar,
            pod.uid);
  EXPECT_EQ(pod.object.FindPath({"metadata", "annotations", "kubernetes.io/config.source"})->scalar,
            "file");
  // API defaults applied.
  EXPECT_EQ(pod.object.FindPath({"spec", "restartPolicy"})->scalar, "Always");
  const auto& tolerations = pod.object.FindPath({"spec", "tolerations"})->items;
  ASSERT_EQ(tolerations.size(), 1u);
  EXPECT_EQ(tolerations[0].Find("effect")->scalar, "NoExecute");
  ASSERT_EQ(scan.errors.size(), 2u);
  EXPECT_THAT(scan.errors[0], HasSubstr("bad.yaml: Pod \"bad-n1\" is invalid"));
  EXPECT_THAT(scan.errors[1], HasSubstr("two.yaml: a static pod manifest holds exactly one Pod"));

  // The same manifest gives the same uid; another node or file, another.
  auto again = ReadStaticPods(dir.path(), "n1", {}, "2026-11-26T00:01:00Z");
  EXPECT_EQ(again.pods[0].uid, pod.uid);
  auto elsewhere = ReadStaticPods(dir.path(), "n2", {}, "2026-11-26T00:00:00Z");
  EXPECT_NE(elsewhere.pods[0].uid, pod.uid);
}

TEST(StaticPodsTest, MirrorPod) {
  podlimits::testing::TempDir dir{"podlimits-static"};
  dir.Write("web.yaml", kPod);
  auto scan = ReadStaticPods(dir.path(), "n1", {}, "2026-11-26T00:00:00Z");
  ASSERT_EQ(scan.pods.size(), 1u);
  codec::Node mirror = MirrorPod(scan.pods[0], "node-uid");
  EXPECT_EQ(mirror.FindPath({"metadata", "uid"}), nullptr);
  EXPECT_EQ(mirror.FindPath({"metadata", "annotations", "kubernetes.io/config.mirror"})->scalar,
            scan.pods[0].uid);
  const auto& owner = mirror.FindPath({"metadata", "ownerReferences"})->items[0];
  EXPECT_EQ(owner.Find("kind")->scalar, "Node");
  EXPECT_EQ(owner.Find("name")->scalar, "n1");
  EXPECT_EQ(owner.Find("uid")->scalar, "node-uid");
}

}  // namespace
}  // namespace podlimits::nodeagent
