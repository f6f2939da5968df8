// generateName through the chain: the name is generated after mutating admission and before
// validation, so the stored object and every message carry the generated name.
#include <gtest/gtest.h>

#include "admission/chain.h"
#include "api/decode.h"
#include "api/name_generator.h"

namespace podlimits::admission {
namespace {

constexpr std::uint64_t kSeed = 11;

std::vector<Outcome> Admit(std::string_view yaml) {
  api::NameGenerator generator(kSeed);
  ChainOptions options;
  options.name_generator = &generator;
  return RunChain(api::DecodeManifests("test.yaml", yaml), options);
}

// The names the chain draws, in its order: namespaces, then limit ranges, then pods and
// claims, each group in input order.
std::vector<std::string> Expected(const std::vector<std::string>& bases) {
  api::NameGenerator generator(kSeed);
  std::vector<std::string> names;
  for (const auto& b : bases) names.push_back(generator.GenerateName(b));
  return names;
}

TEST(AdmissionChainGenerateName, MessagesAndObjectsUseTheGeneratedName) {
  auto out = Admit(R"(apiVersion: v1
kind: Pod
metadata: {generateName: psa-, namespace: team}
spec:
  hostPID: true
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Namespace
metadata:
  generateName: gen-
  labels: {pod-security.kubernetes.io/warn: baseline}
---
apiVersion: v1
kind: Pod
metadata: {generateName: lr-, namespace: team}
spec:
  containers: [{name: a, image: busybox, resources: {limits: {cpu: "2"}}}]
---
apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels: {pod-security.kubernetes.io/enforce: baseline}
---
apiVersion: v1
kind: LimitRange
metadata: {generateName: limits-, namespace: team}
spec:
  limits: [{type: Container, max: {cpu: "1"}}, {type: PersistentVolumeClaim, max: {storage: 1Gi}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {generateName: data-, namespace: team}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: v1
kind: Pod
metadata: {generateName: bad_, namespace: team}
spec:
  containers: [{name: a, image: busybox, resources: {limits: {cpu: 500m}}}]
---
apiVersion: v1
kind: Pod
metadata: {generateName: ok-, namespace: team}
spec:
  containers: [{name: a, image: busybox, resources: {limits: {cpu: 500m}}}]
)");
  // Drawn in the chain's order: gen- (namespace), limits-, then psa-, lr-, data-, bad_, ok-.
  auto names = Expected({"gen-", "limits-", "psa-", "lr-", "data-", "bad_", "ok-"});
  ASSERT_EQ(out.size(), 8u);

  ASSERT_TRUE(out[1].admitted) << out[1].message;
  EXPECT_EQ(out[1].name, names[0]);
  // The namespace strategy's Canonicalize labels the namespace with its generated name.
  EXPECT_EQ(out[1].object.FindPath({"metadata", "labels", "kubernetes.io/metadata.name"})->scalar,
            names[0]);
  ASSERT_TRUE(out[4].admitted) << out[4].message;
  EXPECT_EQ(out[4].object.FindPath({"metadata", "name"})->scalar, names[1]);
  EXPECT_EQ(out[4].object.FindPath({"metadata", "generateName"})->scalar, "limits-");

  EXPECT_EQ(out[0].message, "pods \"" + names[2] +
                                "\" is forbidden: violates PodSecurity \"baseline:latest\": host "
                                "namespaces (hostPID=true)");
  EXPECT_EQ(out[2].message, "pods \"" + names[3] +
                                "\" is forbidden: maximum cpu usage per Container is 1, but "
                                "limit is 2");
  EXPECT_EQ(out[5].message, "persistentvolumeclaims \"" + names[4] +
                                "\" is forbidden: maximum storage usage per "
                                "PersistentVolumeClaim is 1Gi, but request is 5Gi");
  // Validation sees the generated name: a bad generateName makes the name bad too.
  const std::string dns =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
      "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
      "regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  EXPECT_EQ(out[6].reason, "Invalid");
  EXPECT_EQ(out[6].message,
            "Pod \"" + names[5] +
                "\" is invalid: [metadata.generateName: Invalid value: \"bad_\": " + dns +
                ", metadata.name: Invalid value: \"" + names[5] + "\": " + dns + "]");
  ASSERT_TRUE(out[7].admitted) << out[7].message;
  EXPECT_EQ(out[7].name, names[6]);
  EXPECT_EQ(out[7].object.FindPath({"metadata", "name"})->scalar, names[6]);
}

TEST(AdmissionChainGenerateName, MaskedPrefixPassesWhereTheGeneratedNameFails) {
  // maskTrailingDash checks "x.-" as "xa", which passes; the name "x.-?????" then does not.
  auto out = Admit(
      "apiVersion: v1\nkind: Pod\nmetadata: {generateName: x.-}\nspec:\n  containers: [{name: "
      "a, image: busybox}]\n");
  ASSERT_EQ(out.size(), 1u);
  const std::string name = Expected({"x.-"})[0];
  EXPECT_EQ(out[0].reason, "Invalid");
  EXPECT_EQ(out[0].message,
            "Pod \"" + name + "\" is invalid: metadata.name: Invalid value: \"" + name +
                "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character "
                "(e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

TEST(AdmissionChainGenerateName, LongBasesAreCutToFitSixtyThreeCharacters) {
  std::string base(70, 'a');
  auto out = Admit("apiVersion: v1\nkind: Pod\nmetadata: {generateName: " + base +
                   "}\nspec:\n  containers: [{name: a, image: busybox}]\n");
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].admitted) << out[0].message;
  EXPECT_EQ(out[0].name.size(), 63u);
  EXPECT_EQ(out[0].name, Expected({base})[0]);
}

}  // namespace
}  // namespace podlimits::admission
