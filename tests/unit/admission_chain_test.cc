// The admission chain end to end: what `podlimits admit` decides for a stream of objects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "admission/chain.h"
#include "api/decode.h"
#include "api/defaults.h"
#include "codec/json_codec.h"

namespace podlimits::admission {
namespace {

std::vector<Outcome> Admit(std::string_view yaml, ChainOptions options = {}) {
  return RunChain(api::DecodeManifests("test.yaml", yaml), options);
}

TEST(AdmissionChain, LimitRangesApplyWhateverTheirPositionInTheStream) {
  auto out = Admit(R"(apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec:
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: LimitRange
metadata: {name: pids, namespace: team}
spec:
  limits: [{type: Pod, default: {pid: 2048}}]
)");
  ASSERT_EQ(out.size(), 2u);
  ASSERT_TRUE(out[0].admitted) << out[0].message;
  EXPECT_EQ(out[0].object.FindPath({"spec", "resources", "limits", "pid"})->scalar, "2048");
  EXPECT_EQ(
      out[0].object.FindPath({"metadata", "annotations", "kubernetes.io/limit-ranger"})->scalar,
      "LimitRanger plugin set: pid limit for pod");
}

TEST(AdmissionChain, StagesRejectWithTheirOwnReasons) {
  auto out = Admit(R"(apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels: {pod-security.kubernetes.io/enforce: baseline}
---
apiVersion: v1
kind: LimitRange
metadata: {name: pids, namespace: team}
spec:
  limits: [{type: Pod, max: {pid: 4096}}]
---
apiVersion: v1
kind: Pod
metadata: {name: decode, namespace: team}
spec: {containerz: []}
---
apiVersion: v1
kind: Pod
metadata: {name: invalid, namespace: team}
spec:
  resources: {limits: {pid: 100}}
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: limitranger, namespace: team}
spec:
  resources: {limits: {pid: 8192}}
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: podsecurity, namespace: team}
spec:
  resources: {limits: {pid: 2048}}
  containers:
  - name: a
    image: busybox
    securityContext: {ulimits: [{name: nofile, soft: 1024, hard: 1024}]}
---
apiVersion: v1
kind: Pod
metadata: {name: ok, namespace: team}
spec:
  resources: {limits: {pid: 4096}}
  containers: [{name: a, image: busybox}]
)");
  ASSERT_EQ(out.size(), 7u);
  EXPECT_TRUE(out[0].admitted);
  EXPECT_TRUE(out[1].admitted);
  EXPECT_EQ(out[2].reason, "BadRequest");
  EXPECT_EQ(
      out[2].message,
      "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field "
      "\"spec.containerz\"");
  EXPECT_EQ(out[3].reason, "Invalid");
  EXPECT_EQ(
      out[3].message,
      "Pod \"invalid\" is invalid: spec.resources.limits[pid]: Invalid value: \"100\": must be "
      "between 1024 and 16384, inclusive");
  EXPECT_EQ(out[4].reason, "Forbidden");
  EXPECT_EQ(
      out[4].message,
      "pods \"limitranger\" is forbidden: maximum pid usage per Pod is 4096, but limit is 8192");
  EXPECT_EQ(out[5].reason, "Forbidden");
  EXPECT_EQ(out[5].message,
            "pods \"podsecurity\" is forbidden: violates PodSecurity \"baseline:latest\": ulimits "
            "(container \"a\" must not set securityContext.ulimits)");
  EXPECT_TRUE(out[6].admitted) << out[6].message;
}

// Admitted objects are stored in the apiserver's order unless the caller only reads them.
TEST(AdmissionChain, CanonicalOrderOnlyWhenAsked) {
  constexpr std::string_view kPod = R"(spec:
  containers: [{image: busybox, name: a}]
metadata: {namespace: team, name: web}
kind: Pod
apiVersion: v1
)";
  auto keys = [](const codec::Node& n) {
    std::vector<std::string> out;
    for (const auto& m : n.members) out.push_back(m.key);
    return out;
  };
  auto ordered = Admit(kPod);
  ASSERT_TRUE(ordered[0].admitted) << ordered[0].message;
  EXPECT_THAT(keys(ordered[0].object),
              ::testing::ElementsAre("kind", "apiVersion", "metadata", "spec", "status"));
  ChainOptions as_read;
  as_read.canonical_order = false;
  auto unordered = Admit(kPod, as_read);
  ASSERT_TRUE(unordered[0].admitted) << unordered[0].message;
  EXPECT_EQ(keys(unordered[0].object)[0], "spec");
  // The same object once put in order (which also writes the empty structs Go's encoder
  // writes, such as a container's `resources: {}`).
  codec::Node put_in_order = unordered[0].object;
  api::CanonicalizeOrder(put_in_order, "Pod");
  EXPECT_EQ(codec::EncodeJson(put_in_order, 0), codec::EncodeJson(ordered[0].object, 0));
}

TEST(AdmissionChain, ValidateOnlySkipsTheAdmissionPlugins) {
  ChainOptions options;
  options.run_admission_plugins = false;
  auto out = Admit(R"(apiVersion: v1
kind: LimitRange
metadata: {name: pids}
spec:
  limits: [{type: Pod, max: {pid: 2048}}]
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  resources: {limits: {pid: 8192}}
  containers: [{name: a, image: busybox}]
)",
                   options);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[1].admitted) << out[1].message;
}

TEST(AdmissionChain, PersistentVolumeClaimsAgainstLimitRanges) {
  auto out = Admit(R"(apiVersion: v1
kind: LimitRange
metadata: {name: storage}
spec:
  limits: [{type: PersistentVolumeClaim, min: {storage: 1Gi}, max: {storage: 10Gi}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: small}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 500Mi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: big}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 100Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: right}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: invalid}
spec:
  resources: {requests: {}}
)");
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[1].message,
            "persistentvolumeclaims \"small\" is forbidden: minimum storage usage per "
            "PersistentVolumeClaim is 1Gi, but request is 500Mi");
  EXPECT_EQ(out[2].message,
            "persistentvolumeclaims \"big\" is forbidden: maximum storage usage per "
            "PersistentVolumeClaim is 10Gi, but request is 100Gi");
  EXPECT_TRUE(out[3].admitted) << out[3].message;
  EXPECT_EQ(out[3].object.FindPath({"spec", "volumeMode"})->scalar, "Filesystem");
  EXPECT_EQ(out[4].message,
            "PersistentVolumeClaim \"invalid\" is invalid: [spec.accessModes: Required value: at "
            "least 1 access mode is required, spec.resources[storage]: Required value]");
}

}  // namespace
}  // namespace podlimits::admission
