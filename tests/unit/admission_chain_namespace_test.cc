// Namespaces through the chain: Pod Security's namespace validation (labels, exemptions) and
// what happens to the objects of a namespace that was not created.
#include <gtest/gtest.h>

#include "admission/chain.h"
#include "admission/pod_security.h"
#include "api/decode.h"

namespace podlimits::admission {
namespace {

std::vector<Outcome> Admit(std::string_view yaml, const ChainOptions& options = {}) {
  return RunChain(api::DecodeManifests("test.yaml", yaml), options);
}

constexpr std::string_view kBadLabels = R"(apiVersion: v1
kind: Namespace
metadata:
  name: bad
  labels:
    pod-security.kubernetes.io/warn-version: "1.30"
    pod-security.kubernetes.io/enforce: Baseline
    pod-security.kubernetes.io/audit: restricted
)";

constexpr std::string_view kBadLabelsMessage =
    R"(Namespace "bad" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: )"
    R"(Invalid value: "Baseline": must be one of privileged, baseline, restricted, )"
    R"(metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must )"
    R"(be "latest" or "v1.x"])";

TEST(AdmissionChainNamespaces, PodSecurityLabelsAreValidatedOnCreate) {
  struct Case {
    std::string name;
    std::string yaml;
    bool admitted;
    std::string reason;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"invalid labels, in upstream's label order", std::string(kBadLabels), false, "Invalid",
       std::string(kBadLabelsMessage)},
      {"one invalid label is not bracketed",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: one\n  labels:\n"
       "    pod-security.kubernetes.io/audit-version: latest\n"
       "    pod-security.kubernetes.io/enforce-version: v1.05\n",
       false, "Invalid",
       R"(Namespace "one" is invalid: metadata.labels[pod-security.kubernetes.io/enforce-version]: )"
       R"(Invalid value: "v1.05": must be "latest" or "v1.x")"},
      {"metadata errors come first, from validation",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Bad\n  labels:\n"
       "    pod-security.kubernetes.io/enforce: nope\n",
       false, "Invalid",
       "Namespace \"Bad\" is invalid: metadata.name: Invalid value: \"Bad\": a lowercase RFC "
       "1123 label must consist of lower case alphanumeric characters or '-', and must start "
       "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
       "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {"valid labels",
       "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n  labels:\n"
       "    pod-security.kubernetes.io/enforce: restricted\n"
       "    pod-security.kubernetes.io/enforce-version: v1.30\n",
       true, "", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto out = Admit(c.yaml);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].admitted, c.admitted) << out[0].message;
    EXPECT_EQ(out[0].reason, c.reason);
    EXPECT_EQ(out[0].message, c.message);
  }
}

TEST(AdmissionChainNamespaces, ExemptNamespaceWarns) {
  psa::PodSecurityConfiguration config;
  config.exemptions.namespaces = {"kube-system"};
  psa::PodSecurity pod_security(config);
  ChainOptions options;
  options.pod_security = &pod_security;
  auto out = Admit(R"(apiVersion: v1
kind: Namespace
metadata:
  name: kube-system
  labels: {pod-security.kubernetes.io/enforce: restricted}
---
apiVersion: v1
kind: Namespace
metadata:
  name: other
  labels: {pod-security.kubernetes.io/enforce: restricted}
)",
                   options);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_TRUE(out[0].admitted) << out[0].message;
  EXPECT_EQ(out[0].warnings,
            std::vector<std::string>{
                R"(namespace "kube-system" is exempt from Pod Security, and the policy )"
                R"((enforce=restricted:latest) will be ignored)"});
  ASSERT_TRUE(out[1].admitted) << out[1].message;
  EXPECT_TRUE(out[1].warnings.empty());
}

TEST(AdmissionChainNamespaces, ObjectsOfARejectedNamespaceAreNotFound) {
  std::string yaml = std::string(kBadLabels) + R"(---
apiVersion: v1
kind: LimitRange
metadata: {name: pids, namespace: bad}
spec:
  limits: [{type: Pod, max: {pid: 4096}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: bad}
spec:
  containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: bad}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: elsewhere, namespace: undeclared}
spec:
  containers: [{name: a, image: busybox, securityContext: {privileged: true}}]
)";
  auto out = Admit(yaml);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].message, kBadLabelsMessage);
  for (std::size_t i : {1u, 2u, 3u}) {
    SCOPED_TRACE(i);
    EXPECT_FALSE(out[i].admitted);
    EXPECT_EQ(out[i].reason, "NotFound");
    EXPECT_EQ(out[i].message, "namespaces \"bad\" not found");
  }
  // A namespace the input never declares exists, with no labels (privileged).
  EXPECT_TRUE(out[4].admitted) << out[4].message;
}

TEST(AdmissionChainNamespaces, ANamespaceCreatedOnceExists) {
  std::string yaml = std::string(kBadLabels) + R"(---
apiVersion: v1
kind: Namespace
metadata: {name: bad}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: bad}
spec:
  containers: [{name: a, image: busybox}]
)";
  auto out = Admit(yaml);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_FALSE(out[0].admitted);
  EXPECT_TRUE(out[1].admitted) << out[1].message;
  EXPECT_TRUE(out[2].admitted) << out[2].message;
}

TEST(AdmissionChainNamespaces, ValidateOnlyRunsNoAdmission) {
  ChainOptions options;
  options.run_admission_plugins = false;
  std::string yaml = std::string(kBadLabels) + R"(---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: bad}
spec:
  containers: [{name: a, image: busybox}]
)";
  auto out = Admit(yaml, options);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].admitted) << out[0].message;
  EXPECT_TRUE(out[1].admitted) << out[1].message;
}

}  // namespace
}  // namespace podlimits::admission
