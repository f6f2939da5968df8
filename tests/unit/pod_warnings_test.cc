// WarningsOnCreate: the warnings kube-apiserver returns with a created pod.
#include "validation/pod_warnings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace podlimits::validation {
namespace {

using ::testing::ElementsAreArray;

struct Case {
  std::string name;
  std::string yaml;
  std::vector<std::string> warnings;
};

TEST(WarningsOnCreate, AsUpstream) {
  const std::string head = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n";
  const std::vector<Case> cases = {
      {"nothing to say", head + "spec:\n  containers: [{name: a, image: i}]\n", {}},
      {"a name that is no DNS label",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web.v1}\nspec:\n  containers: [{name: a, "
       "image: i}]\n",
       {"metadata.name: this is used in the Pod's hostname, which can result in surprising "
        "behavior; a DNS label is recommended: [must not contain dots]"}},
      {"seccomp annotations without the fields",
       head +
           "  annotations:\n    seccomp.security.alpha.kubernetes.io/pod: runtime/default\n"
           "    container.seccomp.security.alpha.kubernetes.io/a: runtime/default\n"
           "    container.seccomp.security.alpha.kubernetes.io/b: runtime/default\n"
           "spec:\n  containers:\n  - {name: a, image: i}\n"
           "  - {name: b, image: i, securityContext: {seccompProfile: {type: RuntimeDefault}}}\n",
       {"metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in "
        "v1.27+; use the \"seccompProfile\" field instead",
        "metadata.annotations[container.seccomp.security.alpha.kubernetes.io/a]: non-functional "
        "in v1.27+; use the \"seccompProfile\" field instead"}},
      {"deprecated annotations and volume plugins",
       head + "  annotations: {scheduler.alpha.kubernetes.io/critical-pod: \"\"}\n"
              "spec:\n  containers: [{name: a, image: i}]\n"
              "  volumes: [{name: g, gitRepo: {repository: r}}]\n",
       {"metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in "
        "v1.16+; use the \"priorityClassName\" field instead",
        "spec.volumes[0].gitRepo: deprecated in v1.11"}},
      {"fractional byte values",
       head + "spec:\n  overhead: {memory: 1.5}\n"
              "  containers: [{name: a, image: i, resources: {limits: {memory: 100.5, "
              "ephemeral-storage: 0.5}}}]\n",
       {"spec.overhead[memory]: fractional byte value \"1500m\" is invalid, must be an integer",
        "spec.containers[0].resources.limits[memory]: fractional byte value \"100500m\" is "
        "invalid, must be an integer",
        "spec.containers[0].resources.requests[memory]: fractional byte value \"100500m\" is "
        "invalid, must be an integer",
        "spec.containers[0].resources.limits[ephemeral-storage]: fractional byte value \"500m\" "
        "is invalid, must be an integer",
        "spec.containers[0].resources.requests[ephemeral-storage]: fractional byte value "
        "\"500m\" is invalid, must be an integer"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(WarningsOnCreate(podlimits::testing::DefaultedPod(c.yaml)),
                ElementsAreArray(c.warnings));
  }
}

}  // namespace
}  // namespace podlimits::validation
