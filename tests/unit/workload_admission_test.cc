// Deployments, ReplicaSets and Jobs through the admission chain: defaulting, the generated Job
// selector, validation with upstream's paths and messages (the template under the seeds' pod
// rules at spec.template...), and Pod Security's warnings on templates (never enforced).
#include <gtest/gtest.h>

#include "admission/chain.h"
#include "admission/pod_security.h"
#include "api/decode.h"
#include "codec/json_codec.h"

namespace podlimits::admission {
namespace {

Outcome AdmitOne(std::string_view yaml, std::string_view namespace_labels = "") {
  api::DecodeOptions decode;
  decode.kinds = {"Namespace", "Deployment", "ReplicaSet", "Job"};
  std::string stream = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n";
  if (!namespace_labels.empty()) stream += "  labels: " + std::string(namespace_labels) + "\n";
  stream += "---\n" + std::string(yaml);
  auto out = RunChain(api::DecodeManifests("test.yaml", stream, decode), ChainOptions{});
  EXPECT_EQ(out.size(), 2u);
  return out.back();
}

std::string Scalar(const Outcome& o, std::initializer_list<std::string_view> path) {
  const codec::Node* n = o.object.FindPath(path);
  return n ? n->scalar : "<missing>";
}

constexpr std::string_view kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: busybox}]
)";

TEST(WorkloadAdmission, DeploymentDefaults) {
  Outcome o = AdmitOne(kDeployment);
  ASSERT_TRUE(o.admitted) << o.message;
  EXPECT_EQ(Scalar(o, {"metadata", "generation"}), "1");
  EXPECT_EQ(Scalar(o, {"spec", "replicas"}), "1");
  EXPECT_EQ(Scalar(o, {"spec", "revisionHistoryLimit"}), "10");
  EXPECT_EQ(Scalar(o, {"spec", "progressDeadlineSeconds"}), "600");
  EXPECT_EQ(Scalar(o, {"spec", "strategy", "type"}), "RollingUpdate");
  EXPECT_EQ(Scalar(o, {"spec", "strategy", "rollingUpdate", "maxSurge"}), "25%");
  EXPECT_EQ(Scalar(o, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}), "25%");
  // SetDefaults_PodSpec on the template, not SetDefaults_Pod's own defaults.
  EXPECT_EQ(Scalar(o, {"spec", "template", "spec", "restartPolicy"}), "Always");
  EXPECT_EQ(Scalar(o, {"spec", "template", "spec", "schedulerName"}), "default-scheduler");
  EXPECT_EQ(o.object.FindPath({"spec", "template", "spec", "enableServiceLinks"}), nullptr);
}

TEST(WorkloadAdmission, JobSelectorIsGeneratedFromItsUid) {
  Outcome o = AdmitOne(R"(apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: team}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: busybox, command: [sh, -c, 'echo 3.14']}]
)");
  ASSERT_TRUE(o.admitted) << o.message;
  const std::string uid = Scalar(o, {"metadata", "uid"});
  ASSERT_EQ(uid.size(), 36u);
  EXPECT_EQ(Scalar(o, {"spec", "selector", "matchLabels", "batch.kubernetes.io/controller-uid"}), uid);
  EXPECT_EQ(Scalar(o, {"spec", "template", "metadata", "labels", "batch.kubernetes.io/job-name"}), "pi");
  EXPECT_EQ(Scalar(o, {"spec", "template", "metadata", "labels", "controller-uid"}), uid);
  EXPECT_EQ(Scalar(o, {"metadata", "labels", "job-name"}), "pi");
  EXPECT_EQ(Scalar(o, {"spec", "completions"}), "1");
  EXPECT_EQ(Scalar(o, {"spec", "parallelism"}), "1");
  EXPECT_EQ(Scalar(o, {"spec", "backoffLimit"}), "6");
  EXPECT_EQ(Scalar(o, {"spec", "completionMode"}), "NonIndexed");
  EXPECT_EQ(Scalar(o, {"spec", "podReplacementPolicy"}), "TerminatingOrFailed");
}

struct RefusalCase {
  std::string name;
  std::string yaml;
  std::string message;
};

class WorkloadRefusal : public testing::TestWithParam<RefusalCase> {};

TEST_P(WorkloadRefusal, MessageAsTheApiserver) {
  Outcome o = AdmitOne(GetParam().yaml);
  EXPECT_FALSE(o.admitted);
  EXPECT_EQ(o.reason, "Invalid");
  EXPECT_EQ(o.message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WorkloadRefusal,
    testing::Values(
        RefusalCase{"SelectorDoesNotMatchTemplateLabels",
                    R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: other}}
    spec: {containers: [{name: c, image: busybox}]}
)",
                    "Deployment.apps \"web\" is invalid: spec.template.metadata.labels: Invalid "
                    "value: {\"app\":\"other\"}: `selector` does not match template `labels`"},
        RefusalCase{"MissingSelector",
                    R"(apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: team}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox}]}
)",
                    "ReplicaSet.apps \"rs\" is invalid: spec.selector: Required value"},
        RefusalCase{"NegativeReplicas",
                    R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  replicas: -1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox}]}
)",
                    "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be "
                    "greater than or equal to 0"},
        RefusalCase{"RestartPolicyOfADeployment",
                    R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
)",
                    "Deployment.apps \"web\" is invalid: spec.template.spec.restartPolicy: "
                    "Unsupported value: \"Never\": supported values: \"Always\""},
        RefusalCase{"RestartPolicyOfAJob",
                    R"(apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: team}
spec:
  template:
    spec: {containers: [{name: c, image: busybox}]}
)",
                    "Job.batch \"pi\" is invalid: spec.template.spec.restartPolicy: Unsupported "
                    "value: \"Always\": supported values: \"OnFailure\", \"Never\""},
        RefusalCase{"BothRollingUpdateBoundsZero",
                    R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: busybox}]}
)",
                    "Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate.maxUnavailable: "
                    "Invalid value: 0: may not be 0 when `maxSurge` is 0"},
        // The seeds' pod rules inside the template, named under spec.template.spec.
        RefusalCase{"TemplateUlimitAboveTheBound",
                    R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: busybox
        securityContext:
          ulimits: [{name: nofile, soft: 1024, hard: 2000000}]
)",
                    "Deployment.apps \"web\" is invalid: "
                    "spec.template.spec.containers[0].securityContext.ulimits[0].hard: Invalid "
                    "value: 2000000: must be less than or equal to 1048576 (or -1 for unlimited)"},
        RefusalCase{"TemplatePidLimitOutOfRange",
                    R"(apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: team}
spec:
  template:
    spec:
      restartPolicy: Never
      resources: {limits: {pid: 100}}
      containers: [{name: c, image: busybox}]
)",
                    "Job.batch \"pi\" is invalid: spec.template.spec.resources.limits[pid]: Invalid "
                    "value: \"100\": must be between 1024 and 16384, inclusive"}),
    [](const testing::TestParamInfo<RefusalCase>& info) { return info.param.name; });

// ValidatePodController: a template that violates the namespace's levels is warned about and
// audited, never refused (its pods are, on their own create).
TEST(WorkloadAdmission, PodSecurityWarnsOnTemplatesAndNeverEnforces) {
  Outcome o = AdmitOne(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      hostNetwork: true
      containers: [{name: c, image: busybox}]
)",
                       "{pod-security.kubernetes.io/enforce: baseline, "
                       "pod-security.kubernetes.io/audit: baseline}");
  ASSERT_TRUE(o.admitted) << o.message;
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0],
            "would violate PodSecurity \"baseline:latest\": host namespaces (hostNetwork=true)");
  EXPECT_EQ(o.audit_annotations.count("pod-security.kubernetes.io/enforce-policy"), 0u);
  EXPECT_EQ(o.audit_annotations["pod-security.kubernetes.io/audit-violations"],
            "would violate PodSecurity \"baseline:latest\": host namespaces (hostNetwork=true)");
}

}  // namespace
}  // namespace podlimits::admission
