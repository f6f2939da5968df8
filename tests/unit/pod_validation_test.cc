// ValidatePodCreate: every rule podlimits' limits depend on, one named case each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"
#include "validation/pod.h"

namespace podlimits::validation {
namespace {

using ::testing::ElementsAreArray;

// A one-container pod; `container_extra` is appended to the container (indented 4),
// `spec_extra` to the spec (indented 2).
std::string PodYaml(std::string_view container_extra, std::string_view spec_extra = "") {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n";
  y += spec_extra;
  y += "  containers:\n  - name: app\n    image: busybox:1.36\n";
  y += container_extra;
  return y;
}

struct Case {
  std::string name;
  std::string yaml;
  std::vector<std::string> errors;
  std::vector<std::string> warnings = {};
  FeatureGates gates = {};
};

void RunCases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod = podlimits::testing::DefaultedPod(c.yaml);
    ValidationResult r = ValidatePodCreate(pod, c.gates);
    std::vector<std::string> got;
    for (const auto& e : r.errors) got.push_back(e.String());
    EXPECT_THAT(got, ElementsAreArray(c.errors));
    EXPECT_THAT(r.warnings, ElementsAreArray(c.warnings));
  }
}

const std::string kSC = "    securityContext:\n";

TEST(ValidatePodUlimits, Kep5758Rules) {
  RunCases({
      {"every supported ulimit, valid",
       PodYaml(kSC + "      ulimits:\n"
                     "      - {name: nofile, soft: 1024, hard: 4096}\n"
                     "      - {name: memlock, soft: 65536, hard: 65536}\n"
                     "      - {name: core, soft: 0, hard: -1}\n"
                     "      - {name: nice, soft: 0, hard: 0}\n"
                     "      - {name: rtprio, soft: 0, hard: 0}\n"
                     "      - {name: stack, soft: 8388608, hard: -1}\n"),
       {}},
      {"name outside the allowlist",
       PodYaml(kSC + "      ulimits: [{name: nproc, soft: 1, hard: 1}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].name: Unsupported value: \"nproc\": "
        "supported "
        "values: \"core\", \"memlock\", \"nice\", \"nofile\", \"rtprio\", \"stack\""}},
      {"names are case sensitive",
       PodYaml(kSC + "      ulimits: [{name: NOFILE, soft: 1, hard: 1}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].name: Unsupported value: \"NOFILE\": "
        "supported "
        "values: \"core\", \"memlock\", \"nice\", \"nofile\", \"rtprio\", \"stack\""}},
      {"empty name",
       PodYaml(kSC + "      ulimits: [{name: \"\", soft: 1, hard: 1}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].name: Required value"}},
      {"duplicate name",
       PodYaml(
           kSC +
           "      ulimits: [{name: nofile, soft: 1, hard: 2}, {name: nofile, soft: 1, hard: 3}]\n"),
       {"spec.containers[0].securityContext.ulimits[1].name: Duplicate value: \"nofile\""}},
      {"soft above hard",
       PodYaml(kSC + "      ulimits: [{name: core, soft: 4096, hard: 1024}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].soft: Invalid value: 4096: must be less "
        "than or "
        "equal to hard limit 1024"}},
      {"soft equal to hard",
       PodYaml(kSC + "      ulimits: [{name: core, soft: 7, hard: 7}]\n"),
       {}},
      {"-1 soft (unlimited) with finite hard is above hard",
       PodYaml(kSC + "      ulimits: [{name: stack, soft: -1, hard: 8388608}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].soft: Invalid value: -1: must be less than "
        "or "
        "equal to hard limit 8388608 (-1 means unlimited)"}},
      {"-1 hard (unlimited) admits any soft",
       PodYaml(kSC + "      ulimits: [{name: core, soft: 9223372036854775807, hard: -1}]\n"),
       {}},
      {"-1 for both", PodYaml(kSC + "      ulimits: [{name: nofile, soft: -1, hard: -1}]\n"), {}},
      {"nofile at the maximum",
       PodYaml(kSC + "      ulimits: [{name: nofile, soft: 1048576, hard: 1048576}]\n"),
       {}},
      {"nofile above the maximum",
       PodYaml(kSC + "      ulimits: [{name: nofile, soft: 1024, hard: 1048577}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].hard: Invalid value: 1048577: must be less "
        "than or equal to 1048576 (or -1 for unlimited)"}},
      {"nofile maximum applies to soft as well",
       PodYaml(kSC + "      ulimits: [{name: nofile, soft: 2000000, hard: -1}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].soft: Invalid value: 2000000: must be less "
        "than or equal to 1048576 (or -1 for unlimited)"}},
      {"the 1048576 bound is nofile's only",
       PodYaml(kSC + "      ulimits: [{name: memlock, soft: 17179869184, hard: 17179869184}]\n"),
       {}},
      {"negative values compare as the node applies them: -3 <= -7 is 0 <= 0",
       PodYaml(kSC + "      ulimits: [{name: nofile, soft: -3, hard: -7}]\n"),
       {},
       {"spec.containers[0].securityContext.ulimits[0].soft: negative values other than -1 are "
        "treated as 0 by the node (got -3)",
        "spec.containers[0].securityContext.ulimits[0].hard: negative values other than -1 are "
        "treated as 0 by the node (got -7)"}},
      {"a positive soft limit above a negative hard limit",
       PodYaml(kSC + "      ulimits: [{name: core, soft: 5, hard: -7}]\n"),
       {"spec.containers[0].securityContext.ulimits[0].soft: Invalid value: 5: must be less than "
        "or equal to hard limit -7 (the node treats negative values other than -1 as 0)"},
       {"spec.containers[0].securityContext.ulimits[0].hard: negative values other than -1 are "
        "treated as 0 by the node (got -7)"}},
      {"other negative values warn that the node treats them as 0",
       PodYaml(kSC + "      ulimits: [{name: core, soft: -5, hard: -2}]\n"),
       {},
       {"spec.containers[0].securityContext.ulimits[0].soft: negative values other than -1 are "
        "treated as 0 by the node (got -5)",
        "spec.containers[0].securityContext.ulimits[0].hard: negative values other than -1 are "
        "treated as 0 by the node (got -2)"}},
      {"windows pods cannot set ulimits",
       PodYaml(kSC + "      ulimits: [{name: nofile, soft: 1, hard: 1}]\n",
               "  os: {name: windows}\n"),
       {"spec.containers[0].securityContext.ulimits: Forbidden: cannot be set for a windows pod"}},
      {"init and sidecar containers are validated too",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers:\n"
       "  - name: init\n    image: i\n    securityContext: {ulimits: [{name: cpu, soft: 1, hard: "
       "1}]}\n"
       "  containers: [{name: app, image: i}]\n",
       {"spec.initContainers[0].securityContext.ulimits[0].name: Unsupported value: \"cpu\": "
        "supported values: \"core\", \"memlock\", \"nice\", \"nofile\", \"rtprio\", \"stack\""}},
  });
}

TEST(ValidatePodPidLimit, Kep6063Rules) {
  auto res = [](std::string_view body) { return "  resources:\n" + std::string(body); };
  FeatureGates no_pid;
  no_pid.per_pod_pid_limit = false;
  RunCases({
      {"pid at the minimum", PodYaml("", res("    limits: {pid: 1024}\n")), {}},
      {"pid at the maximum", PodYaml("", res("    limits: {pid: 16384}\n")), {}},
      {"pid below the minimum",
       PodYaml("", res("    limits: {pid: 1023}\n")),
       {"spec.resources.limits[pid]: Invalid value: \"1023\": must be between 1024 and 16384, "
        "inclusive"}},
      {"pid above the maximum",
       PodYaml("", res("    limits: {pid: 16385}\n")),
       {"spec.resources.limits[pid]: Invalid value: \"16385\": must be between 1024 and 16384, "
        "inclusive"}},
      {"pid written with a suffix is still a number",
       PodYaml("", res("    limits: {pid: 2k}\n")),
       {}},
      {"pid must be an integer",
       PodYaml("", res("    limits: {pid: 1500.5}\n")),
       {"spec.resources.limits[pid]: Invalid value: \"1500500m\": must be an integer"}},
      {"negative pid",
       PodYaml("", res("    limits: {pid: -2048}\n")),
       {"spec.resources.limits[pid]: Invalid value: \"-2048\": must be greater than or equal to 0",
        "spec.resources.limits[pid]: Invalid value: \"-2048\": must be between 1024 and 16384, "
        "inclusive"}},
      {"pid requests are forbidden",
       PodYaml("", res("    limits: {pid: 2048}\n    requests: {pid: 2048}\n")),
       {"spec.resources.requests[pid]: Forbidden: pid may only be set in spec.resources.limits"}},
      {"pid in a container's limits",
       PodYaml("    resources: {limits: {pid: 2048}}\n"),
       {"spec.containers[0].resources.limits[pid]: Invalid value: \"pid\": must be a standard "
        "resource "
        "for containers",
        "spec.containers[0].resources.requests[pid]: Invalid value: \"pid\": must be a standard "
        "resource for containers"}},
      {"pid in an init container's requests",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers:\n"
       "  - {name: init, image: i, resources: {requests: {pid: 2048}}}\n  containers: [{name: app, "
       "image: i}]\n",
       {"spec.initContainers[0].resources.requests[pid]: Invalid value: \"pid\": must be a "
        "standard "
        "resource for containers"}},
      {"pid with cpu and memory at pod level",
       PodYaml("", res("    limits: {pid: 4096, cpu: 2, memory: 1Gi}\n")),
       {}},
      {"windows pods cannot set pod-level resources",
       PodYaml("", "  os: {name: windows}\n" + res("    limits: {pid: 4096}\n")),
       {"spec.resources: Forbidden: may not be set for a windows pod"}},
      {"with PerPodPIDLimit off, pid is not a supported resource",
       PodYaml("", res("    limits: {pid: 4096}\n")),
       {"spec.resources.limits[pid]: Invalid value: \"pid\": must be a standard resource type or "
        "fully qualified"},
       {},
       no_pid},
  });
}

TEST(ValidatePodCgroupOptions, Kep5474Rules) {
  RunCases({
      {"Writable", PodYaml(kSC + "      cgroupOptions: {mountMode: Writable}\n"), {}},
      {"ReadOnly", PodYaml(kSC + "      cgroupOptions: {mountMode: ReadOnly}\n"), {}},
      {"empty options", PodYaml(kSC + "      cgroupOptions: {}\n"), {}},
      {"unknown mode",
       PodYaml(kSC + "      cgroupOptions: {mountMode: rw}\n"),
       {"spec.containers[0].securityContext.cgroupOptions.mountMode: Unsupported value: \"rw\": "
        "supported values: \"ReadOnly\", \"Writable\""}},
      {"modes are case sensitive",
       PodYaml(kSC + "      cgroupOptions: {mountMode: writable}\n"),
       {"spec.containers[0].securityContext.cgroupOptions.mountMode: Unsupported value: "
        "\"writable\": "
        "supported values: \"ReadOnly\", \"Writable\""}},
      {"with windowsOptions",
       PodYaml(kSC + "      cgroupOptions: {mountMode: Writable}\n      windowsOptions: "
                     "{runAsUserName: x}\n"),
       {"spec.containers[0].securityContext.cgroupOptions: Invalid value: "
        "{\"mountMode\":\"Writable\"}: "
        "cannot be set when WindowsOptions is specified"}},
      {"on a windows pod",
       PodYaml(kSC + "      cgroupOptions: {mountMode: ReadOnly}\n", "  os: {name: windows}\n"),
       {"spec.containers[0].securityContext.cgroupOptions: Forbidden: cannot be set for a windows "
        "pod"}},
  });
}

TEST(ValidatePodCgroupOptions, ImmutableOnUpdate) {
  api::Pod old_pod = podlimits::testing::DefaultedPod(
      PodYaml(kSC + "      cgroupOptions: {mountMode: ReadOnly}\n"));
  api::Pod same = old_pod;
  EXPECT_TRUE(ValidatePodUpdate(same, old_pod, {}).errors.empty());
  api::Pod changed = podlimits::testing::DefaultedPod(
      PodYaml(kSC + "      cgroupOptions: {mountMode: Writable}\n"));
  auto r = ValidatePodUpdate(changed, old_pod, {});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].String(),
            "spec.containers[0].securityContext.cgroupOptions: Invalid value: "
            "{\"mountMode\":\"Writable\"}: "
            "field is immutable");
  api::Pod removed = podlimits::testing::DefaultedPod(PodYaml(""));
  r = ValidatePodUpdate(removed, old_pod, {});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(
      r.errors[0].String(),
      "spec.containers[0].securityContext.cgroupOptions: Invalid value: null: field is immutable");
}

TEST(ValidatePodAnnotations, AppArmorAnnotationsAreFixedOnUpdate) {
  auto pod = [](std::string_view annotations) {
    std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n";
    if (!annotations.empty()) y += "  annotations:\n" + std::string(annotations);
    y += "spec:\n  containers:\n  - name: app\n    image: busybox:1.36\n";
    return podlimits::testing::DefaultedPod(y);
  };
  const std::string aa = "    container.apparmor.security.beta.kubernetes.io/app: ";
  const std::string key =
      "metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]";
  struct Case {
    std::string name;
    api::Pod old_pod;
    api::Pod updated;
    std::vector<std::string> errors;
  };
  const std::vector<Case> cases = {
      {"unchanged", pod(aa + "runtime/default\n"), pod(aa + "runtime/default\n"), {}},
      {"other annotations may change",
       pod(aa + "runtime/default\n    team: a\n"),
       pod(aa + "runtime/default\n    team: b\n"),
       {}},
      {"added",
       pod(""),
       pod(aa + "runtime/default\n"),
       {key + ": Forbidden: may not add AppArmor annotations"}},
      {"updated",
       pod(aa + "runtime/default\n"),
       pod(aa + "unconfined\n"),
       {key + ": Forbidden: may not remove or update AppArmor annotations"}},
      {"removed",
       pod(aa + "runtime/default\n"),
       pod(""),
       {key + ": Forbidden: may not remove or update AppArmor annotations"}},
      // An invalid annotation is reported twice on update, as upstream's ValidatePodUpdate does.
      {"invalid seccomp annotation",
       pod(""),
       pod("    seccomp.security.alpha.kubernetes.io/pod: bogus\n"),
       {"metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: \"bogus\": "
        "must be a valid seccomp profile",
        "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: \"bogus\": "
        "must be a valid seccomp profile"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> got;
    for (const auto& e : ValidatePodUpdate(c.updated, c.old_pod, {}).errors) {
      got.push_back(e.String());
    }
    EXPECT_EQ(got, c.errors);
  }
}

TEST(ValidatePodResources, ContainerRules) {
  auto res = [](std::string_view body) { return "    resources:\n" + std::string(body); };
  RunCases({
      {"requests within limits",
       PodYaml(res("      limits: {cpu: 1, memory: 1Gi}\n      requests: {cpu: 500m}\n")),
       {}},
      {"request above limit is reported at requests, unkeyed",
       PodYaml(res("      limits: {cpu: 1}\n      requests: {cpu: 2}\n")),
       {"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal "
        "to "
        "cpu limit of 1"}},
      {"negative quantity",
       PodYaml(res("      requests: {memory: -1}\n")),
       {"spec.containers[0].resources.requests[memory]: Invalid value: \"-1\": must be greater "
        "than or "
        "equal to 0"}},
      {"unqualified unknown resource gets both messages",
       PodYaml(res("      limits: {foo: 1}\n")),
       {"spec.containers[0].resources.limits[foo]: Invalid value: \"foo\": must be a standard "
        "resource "
        "type or fully qualified",
        "spec.containers[0].resources.limits[foo]: Invalid value: \"foo\": must be a standard "
        "resource "
        "for containers",
        "spec.containers[0].resources.requests[foo]: Invalid value: \"foo\": must be a standard "
        "resource type or fully qualified",
        "spec.containers[0].resources.requests[foo]: Invalid value: \"foo\": must be a standard "
        "resource for containers"}},
      {"extended resources need request == limit",
       PodYaml(res("      limits: {example.com/gpu: 2}\n      requests: {example.com/gpu: 1}\n")),
       {"spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
        "example.com/gpu "
        "limit of 2"}},
      {"extended resources need a limit",
       PodYaml(res("      requests: {example.com/gpu: 1}\n")),
       {"spec.containers[0].resources.limits: Required value: Limit must be set for non "
        "overcommitable "
        "resources"}},
      {"extended resources are integers",
       PodYaml(res("      limits: {example.com/foo: 500m}\n")),
       {"spec.containers[0].resources.limits[example.com/foo]: Invalid value: \"500m\": must be an "
        "integer",
        "spec.containers[0].resources.requests[example.com/foo]: Invalid value: \"500m\": must be "
        "an integer"}},
      {"hugepages need cpu or memory",
       PodYaml(res("      limits: {hugepages-2Mi: 4Mi}\n")),
       {"spec.containers[0].resources: Forbidden: HugePages require cpu or memory"}},
      {"hugepages in page multiples",
       PodYaml(res("      limits: {hugepages-2Mi: 3Mi, memory: 1Gi}\n")),
       {"spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not "
        "positive "
        "integer multiple of hugepages-2Mi",
        "spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not "
        "positive integer multiple of hugepages-2Mi"}},
  });
}

TEST(ValidatePodResources, PodLevelRules) {
  RunCases({
      {"pod requests below aggregate container requests",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {requests: {cpu: "
       "1}}\n"
       "  containers:\n  - {name: a, image: i, resources: {requests: {cpu: 800m}}}\n"
       "  - {name: b, image: i, resources: {requests: {cpu: 400m}}}\n",
       {"spec.resources.requests[cpu]: Invalid value: \"1\": must be greater than or equal to "
        "aggregate "
        "container requests of 1200m"}},
      {"container limit above the pod limit (upstream's odd path)",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {limits: {cpu: 1}}\n"
       "  containers:\n  - {name: a, image: i, resources: {limits: {cpu: 2}}}\n",
       // Defaulting first copies the container limit to its request, then the aggregate
       // container request (2) to the pod request: so the pod request exceeds the pod limit.
       {"spec.resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of "
        "1",
        "spec.resources.containers[0][cpu].limits: Invalid value: \"2\": must be less than or "
        "equal to "
        "pod limits of 1"}},
      {"unsupported pod-level resource lists pid with the gate on",
       PodYaml("", "  resources: {limits: {ephemeral-storage: 1Gi}}\n"),
       {"spec.resources.limits[ephemeral-storage]: Unsupported value: \"ephemeral-storage\": "
        "supported "
        "values: \"cpu\", \"hugepages-\", \"memory\", \"pid\""}},
      {"claims are forbidden at pod level, and checked against spec.resourceClaims",
       PodYaml("", "  resources: {claims: [{name: gpu}]}\n"),
       {"spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level",
        "spec.resources.claims[0]: Not found: \"gpu\": must be one of the names in "
        "pod.spec.resourceClaims which is empty"}},
      {"the init-container peak is the aggregate the defaulted pod request meets",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {limits: {cpu: 2}}\n"
       "  initContainers:\n  - {name: init, image: i, resources: {requests: {cpu: 1500m}}}\n"
       "  containers:\n  - {name: a, image: i, resources: {requests: {cpu: 500m}}}\n",
       {}},
      {"a sidecar adds to the aggregate the defaulted pod request meets",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {limits: {memory: "
       "1Gi}}\n"
       "  initContainers:\n  - {name: side, image: i, restartPolicy: Always, resources: {requests: "
       "{memory: 300Mi}}}\n"
       "  containers:\n  - {name: a, image: i, resources: {requests: {memory: 500Mi}}}\n",
       {}},
      {"sidecars count with containers; init containers by max",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  resources: {requests: {memory: "
       "300Mi}}\n"
       "  initContainers:\n  - {name: side, image: i, restartPolicy: Always, resources: {requests: "
       "{memory: 100Mi}}}\n"
       "  - {name: big, image: i, resources: {requests: {memory: 250Mi}}}\n"
       "  containers:\n  - {name: a, image: i, resources: {requests: {memory: 200Mi}}}\n",
       {"spec.resources.requests[memory]: Invalid value: \"300Mi\": must be greater than or equal "
        "to "
        "aggregate container requests of 350Mi"}},
  });
}

TEST(ValidatePodResources, Overhead) {
  FeatureGates no_pid;
  no_pid.per_pod_pid_limit = false;
  RunCases({
      {"valid overhead", PodYaml("", "  overhead: {cpu: 250m, memory: 120Mi}\n"), {}},
      {"unknown resource name",
       PodYaml("", "  overhead: {foo: 1}\n"),
       {"spec.overhead.limits[foo]: Invalid value: \"foo\": must be a standard resource type or "
        "fully qualified",
        "spec.overhead.limits[foo]: Invalid value: \"foo\": must be a standard resource for "
        "containers"}},
      {"negative value",
       PodYaml("", "  overhead: {cpu: -1}\n"),
       {"spec.overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"}},
      {"extended resources must be integers",
       PodYaml("", "  overhead: {example.com/gpu: 500m}\n"),
       {"spec.overhead.limits[example.com/gpu]: Invalid value: \"500m\": must be an integer"}},
      {"pid is no container resource",
       PodYaml("", "  overhead: {pid: 1024}\n"),
       {"spec.overhead.limits[pid]: Invalid value: \"pid\": must be a standard resource for "
        "containers"}},
      {"pid with PerPodPIDLimit off",
       PodYaml("", "  overhead: {pid: 1024}\n"),
       {"spec.overhead.limits[pid]: Invalid value: \"pid\": must be a standard resource type or "
        "fully qualified",
        "spec.overhead.limits[pid]: Invalid value: \"pid\": must be a standard resource for "
        "containers"},
       {},
       no_pid},
      {"hugepages need cpu or memory",
       PodYaml("", "  overhead: {hugepages-2Mi: 2Mi}\n"),
       {"spec.overhead: Forbidden: HugePages require cpu or memory"}},
  });
}

TEST(ValidatePodResources, ClaimNames) {
  const std::string claims =
      "  resourceClaims: [{name: gpu, resourceClaimName: c1}, {name: net, "
      "resourceClaimTemplateName: t}]\n";
  RunCases({
      {"known claims",
       PodYaml("    resources: {claims: [{name: gpu}, {name: net, request: r1}]}\n", claims),
       {}},
      {"no resourceClaims",
       PodYaml("    resources: {claims: [{name: x}]}\n"),
       {"spec.containers[0].resources.claims[0]: Not found: \"x\": must be one of the names in "
        "pod.spec.resourceClaims which is empty"}},
      {"unknown claim lists the known ones, sorted",
       PodYaml("    resources: {claims: [{name: x}]}\n", claims),
       {"spec.containers[0].resources.claims[0]: Not found: \"x\": must be one of the names in "
        "pod.spec.resourceClaims: gpu, net"}},
      {"empty name",
       PodYaml("    resources: {claims: [{name: \"\"}]}\n", claims),
       {"spec.containers[0].resources.claims[0]: Required value"}},
      {"duplicate claim",
       PodYaml("    resources: {claims: [{name: gpu}, {name: gpu}]}\n", claims),
       {"spec.containers[0].resources.claims[1]: Duplicate value: \"gpu\""}},
      {"duplicate request",
       PodYaml("    resources: {claims: [{name: gpu, request: a}, {name: gpu, request: a}]}\n",
               claims),
       {"spec.containers[0].resources.claims[1]: Duplicate value: \"gpu/a\""}},
      {"the whole claim after one of its requests",
       PodYaml("    resources: {claims: [{name: gpu, request: a}, {name: gpu}]}\n", claims),
       {"spec.containers[0].resources.claims[1]: Duplicate value: \"gpu\""}},
      {"request must be a DNS label",
       PodYaml("    resources: {claims: [{name: gpu, request: A_1}]}\n", claims),
       {"spec.containers[0].resources.claims[0].request: Invalid value: \"A_1\": a lowercase RFC "
        "1123 label must consist of lower case alphanumeric characters or '-', and must start and "
        "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
  });
}

TEST(ValidatePodAnnotations, SeccompAndAppArmor) {
  auto annotated = [](std::string_view annotations, std::string_view spec = "",
                      std::string_view container_extra = "") {
    std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations:\n";
    y += annotations;
    y += "spec:\n";
    y += spec;
    y += "  containers:\n  - name: app\n    image: busybox:1.36\n";
    y += container_extra;
    return y;
  };
  const std::string aa = "    container.apparmor.security.beta.kubernetes.io/";
  const std::string sc = "    container.seccomp.security.alpha.kubernetes.io/";
  RunCases({
      {"valid seccomp annotations",
       annotated("    seccomp.security.alpha.kubernetes.io/pod: runtime/default\n" + sc +
                 "app: localhost/profiles/a.json\n"),
       {}},
      {"invalid pod seccomp profile (path with Child, not Key)",
       annotated("    seccomp.security.alpha.kubernetes.io/pod: bogus\n"),
       {"metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: \"bogus\": "
        "must be a valid seccomp profile"}},
      {"seccomp localhost paths must descend",
       annotated(sc + "app: localhost//etc/../x\n"),
       {"metadata.annotations.container.seccomp.security.alpha.kubernetes.io/app: Invalid value: "
        "\"/etc/../x\": must be a relative path",
        "metadata.annotations.container.seccomp.security.alpha.kubernetes.io/app: Invalid value: "
        "\"/etc/../x\": must not contain '..'"}},
      {"apparmor annotation for an unknown container with a bad profile",
       annotated(aa + "nope: bogus\n"),
       {"metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid "
        "value: \"nope\": container not found",
        "metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid "
        "value: \"bogus\": invalid AppArmor profile name: \"bogus\""}},
      {"apparmor annotation and field disagree",
       annotated(aa + "app: runtime/default\n", "",
                 "    securityContext: {appArmorProfile: {type: Unconfined}}\n"),
       {"spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in "
        "annotation and field must match"}},
      {"seccomp annotation and field disagree",
       annotated(sc + "app: localhost/a\n", "",
                 "    securityContext: {seccompProfile: {type: Localhost, localhostProfile: b}}\n"),
       {"spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp "
        "profile in annotation and field must match"}},
  });
}

TEST(ValidatePodOS, WindowsForbidsLinuxSettings) {
  RunCases({
      {"pod and container settings, in upstream's order",
       PodYaml("    securityContext: {privileged: false, runAsUser: 1, capabilities: {}, "
               "procMount: Default}\n",
               "  os: {name: windows}\n  hostPID: true\n  securityContext: {runAsUser: 1000, "
               "fsGroup: 2000, supplementalGroups: [], sysctls: [{name: a.b, value: \"1\"}]}\n"),
       {"spec.hostPID: Forbidden: cannot be set for a windows pod",
        "spec.securityContext.fsGroup: Forbidden: cannot be set for a windows pod",
        "spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod",
        "spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod",
        "spec.securityContext.supplementalGroups: Forbidden: cannot be set for a windows pod",
        "spec.containers[0].securityContext.capabilities: Forbidden: cannot be set for a windows "
        "pod",
        "spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod",
        "spec.containers[0].securityContext.procMount: Forbidden: cannot be set for a windows pod",
        "spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows "
        "pod"}},
      {"linux pods cannot set windowsOptions",
       PodYaml("    securityContext: {windowsOptions: {runAsUserName: u}}\n",
               "  os: {name: linux}\n"),
       {"spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be "
        "set for a linux pod"}},
  });
}

// validateDNSPolicy, validatePodDNSConfig, the hostname labels and ValidateHostAliases: what
// the node writes into /etc/resolv.conf and /etc/hosts is never unchecked text.
TEST(ValidatePodDNS, PolicyConfigHostnamesAliases) {
  const std::string long_search(250, 'a');
  std::string many_searches = "  dnsConfig:\n    searches: [";
  for (int i = 0; i < 33; ++i) many_searches += (i ? ", s" : "s") + std::to_string(i);
  many_searches += "]\n";
  RunCases({
      {"a valid name-resolution setup",
       PodYaml("", "  dnsPolicy: None\n  hostname: db-0\n  subdomain: web\n"
                   "  dnsConfig: {nameservers: [1.1.1.1, \"2001:db8::1\"], searches: [ns1.svc., "
                   "example.com], options: [{name: ndots, value: \"2\"}, {name: rotate}]}\n"
                   "  hostAliases: [{ip: 010.0.0.1, hostnames: [foo.local, bar]}]\n"),
       {}},
      {"unknown policy",
       PodYaml("", "  dnsPolicy: Cluster\n"),
       {"spec.dnsPolicy: Unsupported value: \"Cluster\": supported values: \"ClusterFirst\", "
        "\"ClusterFirstWithHostNet\", \"Default\", \"None\""}},
      {"None needs a config",
       PodYaml("", "  dnsPolicy: None\n"),
       {"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
      {"None needs a nameserver",
       PodYaml("", "  dnsPolicy: None\n  dnsConfig: {searches: [a.b]}\n"),
       {"spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver "
        "when `dnsPolicy` is None"}},
      {"bad nameservers, searches and options",
       PodYaml("", "  dnsConfig: {nameservers: [1.1.1.1, 2.2.2.2, 3.3.3.3, dns.local], searches: "
                   "[Bad_Domain, \"" + long_search + ".com\"], options: [{value: \"1\"}]}\n"),
       {"spec.dnsConfig.nameservers: Invalid value: [\"1.1.1.1\",\"2.2.2.2\",\"3.3.3.3\",\"dns.local\"]: "
        "must not have more than 3 nameservers",
        "spec.dnsConfig.nameservers[3]: Invalid value: \"dns.local\": must be a valid IP address, "
        "(e.g. 10.9.8.7 or 2001:db8::ffff)",
        "spec.dnsConfig.searches[0]: Invalid value: \"Bad_Domain\": a lowercase RFC 1123 "
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.dnsConfig.searches[1]: Invalid value: \"" + long_search +
            ".com\": must be no more than 253 characters",
        "spec.dnsConfig.options[0]: Required value: Option.Name must not be empty"}},
      {"too many search paths", PodYaml("", many_searches),
       {"spec.dnsConfig.searches: Invalid value: [\"s0\",\"s1\",\"s2\",\"s3\",\"s4\",\"s5\",\"s6\","
        "\"s7\",\"s8\",\"s9\",\"s10\",\"s11\",\"s12\",\"s13\",\"s14\",\"s15\",\"s16\",\"s17\",\"s18\","
        "\"s19\",\"s20\",\"s21\",\"s22\",\"s23\",\"s24\",\"s25\",\"s26\",\"s27\",\"s28\",\"s29\","
        "\"s30\",\"s31\",\"s32\"]: must not have more than 32 search paths"}},
      {"hostname and subdomain are labels",
       PodYaml("", "  hostname: Db.0\n  subdomain: web.x\n"),
       {"spec.hostname: Invalid value: \"Db.0\": a lowercase RFC 1123 label must consist of lower "
        "case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.subdomain: Invalid value: \"web.x\": must not contain dots"}},
      {"host aliases",
       PodYaml("", "  hostAliases: [{ip: 300.1.1.1, hostnames: [ok, not ok]}, {hostnames: [a]}]\n"),
       {"spec.hostAliases[0].ip: Invalid value: \"300.1.1.1\": must be a valid IP address, (e.g. "
        "10.9.8.7 or 2001:db8::ffff)",
        "spec.hostAliases[0].hostnames[1]: Invalid value: \"not ok\": a lowercase RFC 1123 "
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.hostAliases[1].ip: Invalid value: \"\": must be a valid IP address, (e.g. 10.9.8.7 "
        "or 2001:db8::ffff)"}},
  });
}

TEST(ValidatePodMeta, NamesAndContainers) {
  RunCases({
      {"missing name",
       "apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a, image: i}]\n",
       {"metadata.name: Required value: name or generateName is required"}},
      {"generateName suffices",
       "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec:\n  containers: [{name: a, "
       "image: i}]\n",
       {}},
      // maskTrailingDash: the prefix is checked with its last two bytes replaced by "a".
      {"generateName prefix masked as upstream",
       "apiVersion: v1\nkind: Pod\nmetadata: {generateName: x.-}\nspec:\n  containers: [{name: a, "
       "image: i}]\n",
       {}},
      {"invalid generateName",
       "apiVersion: v1\nkind: Pod\nmetadata: {generateName: Web-}\nspec:\n  containers: [{name: "
       "a, image: i}]\n",
       {"metadata.generateName: Invalid value: \"Web-\": a lowercase RFC 1123 subdomain must "
        "consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
      {"generateName of a lone dash",
       "apiVersion: v1\nkind: Pod\nmetadata: {generateName: \"-\"}\nspec:\n  containers: [{name: "
       "a, image: i}]\n",
       {"metadata.generateName: Invalid value: \"-\": a lowercase RFC 1123 subdomain must "
        "consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
      {"invalid name",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: Web_1}\nspec:\n  containers: [{name: a, image: "
       "i}]\n",
       {"metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of "
        "lower "
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
      {"no containers",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {}\n",
       {"spec.containers: Required value"}},
      {"duplicate container names across lists",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers: [{name: a, "
       "image: i}]\n"
       "  containers: [{name: a, image: i}]\n",
       {"spec.initContainers[0].name: Duplicate value: \"a\""}},
      {"container name must be a DNS label",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: A, image: "
       "i}]\n",
       {"spec.containers[0].name: Invalid value: \"A\": a lowercase RFC 1123 label must consist of "
        "lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
      {"image required",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: a}]\n",
       {"spec.containers[0].image: Required value"}},
      {"bad restart policy",
       PodYaml("", "  restartPolicy: Sometimes\n"),
       {"spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
        "\"Never\", "
        "\"OnFailure\""}},
      {"init container restartPolicy other than Always",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  initContainers: [{name: i, "
       "image: i, restartPolicy: Never}]\n"
       "  containers: [{name: a, image: i}]\n",
       {"spec.initContainers[0].restartPolicy: Unsupported value: \"Never\": supported values: "
        "\"Always\""}},
      {"ephemeral containers cannot be set on create",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: a, image: "
       "i}]\n"
       "  ephemeralContainers:\n  - name: dbg\n    image: i\n    securityContext: {cgroupOptions: "
       "{mountMode: Writable}}\n",
       {"spec.ephemeralContainers[0].securityContext.cgroupOptions: Forbidden: cannot be set for "
        "an "
        "Ephemeral Container",
        "spec.ephemeralContainers: Forbidden: cannot be set on create"}},
  });
}

TEST(InvalidMessage, AggregatesLikeTheApiserver) {
  api::ObjectMeta meta;
  meta.name = "web";
  field::ErrorList one = {field::Required(field::Path("spec.containers"), "")};
  EXPECT_EQ(InvalidMessage("Pod", meta, one),
            "Pod \"web\" is invalid: spec.containers: Required value");
  field::ErrorList two = {one[0], field::Required(field::Path("spec.x"), ""), one[0]};
  EXPECT_EQ(InvalidMessage("Pod", meta, two),
            "Pod \"web\" is invalid: [spec.containers: Required value, spec.x: Required value]");
}

}  // namespace
}  // namespace podlimits::validation
