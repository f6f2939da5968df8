// LimitRange API defaulting (SetDefaults_LimitRangeItem, SetDefaults_ResourceList) and
// validation (ValidateLimitRange): upstream's TestValidateLimitRange cases by name with their
// full messages, every rule of ValidateLimitRange, and the pid extension.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/limit_range_defaults.h"
#include "codec/json_codec.h"
#include "test_support.h"
#include "validation/limit_range.h"

namespace podlimits::validation {
namespace {

using ::testing::ElementsAreArray;

// A LimitRange manifest; `items` is the YAML of spec.limits' entries, one "  - {...}" per line.
std::string LimitRangeYaml(std::string_view items,
                           std::string_view metadata = "name: abc, namespace: foo") {
  std::string y = "apiVersion: v1\nkind: LimitRange\nmetadata: {";
  y += metadata;
  y += "}\nspec:\n  limits:";
  y += items.empty() ? " []\n" : "\n";
  y += items;
  return y;
}

codec::Node Decoded(std::string_view yaml) {
  return podlimits::testing::DecodeOne(yaml).tree;
}

struct Case {
  std::string name;
  std::string yaml;
  std::vector<std::string> errors;
  bool api_defaulted = false;  // run SetDefaultsLimitRange first, as kube-apiserver does
  FeatureGates gates = {};
};

std::vector<std::string> Validate(const Case& c) {
  codec::Node tree = Decoded(c.yaml);
  if (c.api_defaulted) api::SetDefaultsLimitRange(tree);
  std::vector<std::string> got;
  for (const auto& e : ValidateLimitRange(api::ReadLimitRange(tree), c.gates)) {
    got.push_back(e.String());
  }
  return got;
}

void RunCases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(Validate(c), ElementsAreArray(c.errors));
  }
}

const std::string kPodForbidden = "Forbidden: may not be specified when `type` is 'Pod'";

TEST(LimitRangeValidation, UpstreamSuccessCases) {
  RunCases({
      {"all-fields-valid",
       LimitRangeYaml(
           "  - {type: Pod, max: {cpu: 100m, memory: 10000Mi}, min: {cpu: 5m, memory: "
           "100Mi}, maxLimitRequestRatio: {cpu: 10}}\n"
           "  - {type: Container, max: {cpu: 100m, memory: 10000Mi}, min: {cpu: 5m, "
           "memory: 100Mi}, default: {cpu: 50m, memory: 500Mi}, defaultRequest: {cpu: "
           "10m, memory: 200Mi}, maxLimitRequestRatio: {cpu: 10}}\n"
           "  - {type: PersistentVolumeClaim, max: {storage: 10Gi}, min: {storage: 5Gi}}\n"),
       {}},
      {"pvc-min-only",
       LimitRangeYaml("  - {type: PersistentVolumeClaim, min: {storage: 5Gi}}\n"),
       {}},
      {"pvc-max-only",
       LimitRangeYaml("  - {type: PersistentVolumeClaim, max: {storage: 10Gi}}\n"),
       {}},
      {"all-fields-valid-big-numbers",
       LimitRangeYaml("  - {type: Container, max: {cpu: 100m, memory: 10000T}, min: {cpu: 5m, "
                      "memory: 100Mi}, default: {cpu: 50m, memory: 500Mi}, defaultRequest: {cpu: "
                      "10m, memory: 200Mi}, maxLimitRequestRatio: {cpu: 10}}\n"),
       {}},
      {"thirdparty-fields-all-valid-standard-container-resources",
       LimitRangeYaml("  - {type: thirdparty.com/foo, max: {cpu: 100m, memory: 10000T}, min: {cpu: "
                      "5m, memory: 100Mi}, default: {cpu: 50m, memory: 500Mi}, defaultRequest: "
                      "{cpu: 10m, memory: 200Mi}, maxLimitRequestRatio: {cpu: 10}}\n"),
       {}},
      {"thirdparty-fields-all-valid-storage-resources",
       LimitRangeYaml("  - {type: thirdparty.com/foo, max: {storage: 10000T}, min: {storage: "
                      "100Mi}, default: {storage: 500Mi}, defaultRequest: {storage: 200Mi}}\n"),
       {}},
      // TestValidateLimitRangeForLocalStorage.
      {"local-storage-all-fields-valid",
       LimitRangeYaml("  - {type: Pod, max: {ephemeral-storage: 10000Mi}, min: "
                      "{ephemeral-storage: 100Mi}}\n"
                      "  - {type: Container, max: {ephemeral-storage: 10000Mi}, min: "
                      "{ephemeral-storage: 100Mi}, default: {ephemeral-storage: 500Mi}, "
                      "defaultRequest: {ephemeral-storage: 200Mi}}\n"),
       {}},
      {"all-fields-valid, API-defaulted",
       LimitRangeYaml("  - {type: Container, max: {cpu: 100m, memory: 10000Mi}, min: {cpu: 5m, "
                      "memory: 100Mi}}\n"),
       {},
       true},
      {"no limits at all", LimitRangeYaml(""), {}},
  });
}

TEST(LimitRangeValidation, UpstreamErrorCases) {
  const std::string dns_subdomain =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
      "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const std::string dns_label =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
      "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
      "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  RunCases({
      {"zero-length-name",
       LimitRangeYaml("", "namespace: foo"),
       {"metadata.name: Required value: name or generateName is required"}},
      {"zero-length-namespace",
       LimitRangeYaml("", "name: abc"),
       {"metadata.namespace: Required value"}},
      {"invalid-name",
       LimitRangeYaml("", "name: ^Invalid, namespace: foo"),
       {"metadata.name: Invalid value: \"^Invalid\": " + dns_subdomain}},
      {"invalid-namespace",
       LimitRangeYaml("", "name: abc, namespace: ^Invalid"),
       {"metadata.namespace: Invalid value: \"^Invalid\": " + dns_label}},
      {"duplicate-limit-type",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 100m, memory: 10000m}, min: {cpu: 0m, memory: "
                      "100m}}\n"
                      "  - {type: Pod, min: {cpu: 0m, memory: 100m}}\n"),
       {"spec.limits[1].type: Duplicate value: \"Pod\""}},
      {"default-limit-type-pod",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 100m, memory: 10000m}, min: {cpu: 0m, memory: "
                      "100m}, default: {cpu: 10m, memory: 100m}}\n"),
       {"spec.limits[0].default: " + kPodForbidden}},
      {"default-request-limit-type-pod",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 100m, memory: 10000m}, min: {cpu: 0m, memory: "
                      "100m}, defaultRequest: {cpu: 10m, memory: 100m}}\n"),
       {"spec.limits[0].defaultRequest: " + kPodForbidden}},
      {"min value 100m is greater than max value 10m",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 10m}, min: {cpu: 100m}}\n"),
       {"spec.limits[0].min[cpu]: Invalid value: \"100m\": min value 100m is greater than max "
        "value "
        "10m"}},
      {"invalid spec default outside range",
       LimitRangeYaml("  - {type: Container, max: {cpu: 1}, min: {cpu: 100m}, default: {cpu: "
                      "2000m}}\n"),
       {"spec.limits[0].default[cpu]: Invalid value: \"1\": default value 2 is greater than max "
        "value 1"}},
      {"invalid spec default request outside range",
       LimitRangeYaml("  - {type: Container, max: {cpu: 1}, min: {cpu: 100m}, defaultRequest: "
                      "{cpu: 2000m}}\n"),
       {"spec.limits[0].defaultRequest[cpu]: Invalid value: \"2\": default request value 2 is "
        "greater than max value 1"}},
      {"invalid spec default request more than default",
       LimitRangeYaml("  - {type: Container, max: {cpu: 2}, min: {cpu: 100m}, default: {cpu: "
                      "500m}, defaultRequest: {cpu: 800m}}\n"),
       {"spec.limits[0].defaultRequest[cpu]: Invalid value: \"800m\": default request value 800m "
        "is "
        "greater than default limit value 500m"}},
      {"invalid spec maxLimitRequestRatio less than 1",
       LimitRangeYaml("  - {type: Pod, maxLimitRequestRatio: {cpu: 800m}}\n"),
       {"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"800m\": ratio 800m is less "
        "than "
        "1"}},
      {"invalid spec maxLimitRequestRatio greater than max/min",
       LimitRangeYaml("  - {type: Container, max: {memory: 2Gi}, min: {memory: 512Mi}, "
                      "maxLimitRequestRatio: {memory: 10}}\n"),
       {"spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: \"10\": ratio 10 is greater "
        "than "
        "max/min = 4.000000"}},
      {"invalid non standard limit type",
       LimitRangeYaml("  - {type: foo, max: {storage: 10000T}, min: {storage: 100Mi}, default: "
                      "{storage: 500Mi}, defaultRequest: {storage: 200Mi}}\n"),
       {"spec.limits[0].type: Invalid value: \"foo\": must be a standard limit type or fully "
        "qualified"}},
      {"min and max values missing, one required",
       LimitRangeYaml("  - {type: PersistentVolumeClaim}\n"),
       {"spec.limits[0].limits: Required value: either minimum or maximum storage value is "
        "required, but neither was provided"}},
      {"invalid min greater than max",
       LimitRangeYaml("  - {type: PersistentVolumeClaim, min: {storage: 10Gi}, max: {storage: "
                      "1Gi}}\n"),
       {"spec.limits[0].min[storage]: Invalid value: \"10Gi\": min value 10Gi is greater than max "
        "value 1Gi"}},
  });
}

TEST(LimitRangeValidation, EveryComparison) {
  RunCases({
      {"min greater than default request",
       LimitRangeYaml("  - {type: Container, min: {cpu: 500m}, defaultRequest: {cpu: 100m}}\n"),
       {"spec.limits[0].defaultRequest[cpu]: Invalid value: \"100m\": min value 500m is greater "
        "than "
        "default request value 100m"}},
      {"min greater than default",
       LimitRangeYaml("  - {type: Container, min: {cpu: 500m}, default: {cpu: 100m}}\n"),
       {"spec.limits[0].default[cpu]: Invalid value: \"500m\": min value 500m is greater than "
        "default value 100m"}},
      {"hugepages cannot be overcommitted",
       LimitRangeYaml("  - {type: Container, default: {hugepages-2Mi: 4Mi}, defaultRequest: "
                      "{hugepages-2Mi: 2Mi}}\n"),
       {"spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: \"2Mi\": default value 4Mi "
        "must equal to defaultRequest value 2Mi in hugepages-2Mi"}},
      {"extended resources cannot be overcommitted",
       LimitRangeYaml("  - {type: Container, default: {example.com/gpu: 2}, defaultRequest: "
                      "{example.com/gpu: 1}}\n"),
       {"spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: \"1\": default value 2 "
        "must "
        "equal to defaultRequest value 1 in example.com/gpu"}},
      {"cpu may be overcommitted",
       LimitRangeYaml("  - {type: Container, default: {cpu: 2}, defaultRequest: {cpu: 1}}\n"),
       {}},
      {"every chain violation of one resource, in upstream's order",
       LimitRangeYaml("  - {type: Container, max: {cpu: 1}, min: {cpu: 3}, default: {cpu: 2}, "
                      "defaultRequest: {cpu: 4}, maxLimitRequestRatio: {cpu: 500m}}\n"),
       {"spec.limits[0].min[cpu]: Invalid value: \"3\": min value 3 is greater than max value 1",
        "spec.limits[0].defaultRequest[cpu]: Invalid value: \"4\": default request value 4 is "
        "greater than max value 1",
        "spec.limits[0].defaultRequest[cpu]: Invalid value: \"4\": default request value 4 is "
        "greater than default limit value 2",
        "spec.limits[0].default[cpu]: Invalid value: \"3\": min value 3 is greater than default "
        "value 2",
        "spec.limits[0].default[cpu]: Invalid value: \"1\": default value 2 is greater than max "
        "value 1",
        "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"500m\": ratio 500m is less "
        "than 1",
        "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"500m\": ratio 500m is greater "
        "than max/min = 0.333333"}},
      {"ratio bound with min 0 is infinite",
       LimitRangeYaml("  - {type: Container, max: {cpu: 1}, min: {cpu: 0}, maxLimitRequestRatio: "
                      "{cpu: 100}}\n"),
       {}},
      {"ratio bound is compared in milli units",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 1500m}, min: {cpu: 1}, maxLimitRequestRatio: "
                      "{cpu: 1600m}}\n"),
       {"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"1600m\": ratio 1600m is "
        "greater "
        "than max/min = 1.500000"}},
      {"ratio bound falls back to whole units for big values",
       LimitRangeYaml("  - {type: Container, max: {memory: 10000T}, min: {memory: 100T}, "
                      "maxLimitRequestRatio: {memory: 200}}\n"),
       {"spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: \"200\": ratio 200 is greater "
        "than max/min = 100.000000"}},
      {"Pod items may carry a ratio",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 4}, min: {cpu: 1}, maxLimitRequestRatio: {cpu: "
                      "2}}\n"),
       {}},
      {"resources are compared independently and in name order",
       LimitRangeYaml("  - {type: Container, max: {memory: 1Mi, cpu: 1m}, min: {memory: 2Mi, cpu: "
                      "2m}}\n"),
       {"spec.limits[0].min[cpu]: Invalid value: \"2m\": min value 2m is greater than max value 1m",
        "spec.limits[0].min[memory]: Invalid value: \"2Mi\": min value 2Mi is greater than max "
        "value "
        "1Mi"}},
      {"errors of several items in item order",
       LimitRangeYaml("  - {type: Pod, max: {cpu: 1}, min: {cpu: 2}}\n"
                      "  - {type: Container, max: {cpu: 1}, min: {cpu: 2}}\n"),
       {"spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1",
        "spec.limits[1].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1"}},
      {"no non-negativity check outside pid",
       LimitRangeYaml("  - {type: Container, max: {cpu: -1}, min: {cpu: -2}}\n"),
       {}},
  });
}

TEST(LimitRangeValidation, TypeAndResourceNames) {
  const std::string name_part =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
      "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
      "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  RunCases({
      {"limit types are case sensitive",
       LimitRangeYaml("  - {type: pod}\n"),
       {"spec.limits[0].type: Invalid value: \"pod\": must be a standard limit type or fully "
        "qualified"}},
      {"an unqualified type name stops at the qualified-name error",
       LimitRangeYaml("  - {type: -Pod}\n"),
       {"spec.limits[0].type: Invalid value: \"-Pod\": " + name_part}},
      {"qualified custom types are valid and may repeat others",
       LimitRangeYaml("  - {type: example.com/custom, max: {storage: 1Gi}}\n"
                      "  - {type: Pod}\n"),
       {}},
      {"duplicates of custom types",
       LimitRangeYaml("  - {type: example.com/custom}\n  - {type: example.com/custom}\n"),
       {"spec.limits[1].type: Duplicate value: \"example.com/custom\""}},
      {"Container items hold container resources only",
       LimitRangeYaml("  - {type: Container, max: {foo: 1, storage: 1Gi, example.com/gpu: 1, "
                      "hugepages-2Mi: 2Mi}}\n"),
       {"spec.limits[0].max[foo]: Invalid value: \"foo\": must be a standard resource type or "
        "fully qualified",
        "spec.limits[0].max[foo]: Invalid value: \"foo\": must be a standard resource for "
        "containers",
        "spec.limits[0].max[storage]: Invalid value: \"storage\": must be a standard resource for "
        "containers"}},
      {"Pod items hold container resources only, in every map",
       LimitRangeYaml("  - {type: Pod, max: {pods: 1}, min: {requests.example.com/x: 1}, "
                      "maxLimitRequestRatio: {storage: 2}}\n"),
       {"spec.limits[0].max[pods]: Invalid value: \"pods\": must be a standard resource for "
        "containers",
        "spec.limits[0].min[requests.example.com/x]: Invalid value: \"requests.example.com/x\": "
        "doesn't follow extended resource name standard",
        "spec.limits[0].maxLimitRequestRatio[storage]: Invalid value: \"storage\": must be a "
        "standard resource for containers"}},
      {"PersistentVolumeClaim items take any standard name",
       LimitRangeYaml("  - {type: PersistentVolumeClaim, max: {storage: 1Gi, cpu: 1}, min: {foo: "
                      "1}}\n"),
       {"spec.limits[0].min[foo]: Invalid value: \"foo\": must be a standard resource type or "
        "fully qualified"}},
      {"names in default and defaultRequest are checked",
       LimitRangeYaml("  - {type: Container, default: {foo: 1}, defaultRequest: {pods: 1}}\n"),
       {"spec.limits[0].default[foo]: Invalid value: \"foo\": must be a standard resource type "
        "or fully qualified",
        "spec.limits[0].default[foo]: Invalid value: \"foo\": must be a standard resource for "
        "containers",
        "spec.limits[0].defaultRequest[pods]: Invalid value: \"pods\": must be a standard "
        "resource for containers"}},
  });
}

// ---------------------------------------------------------------------------------------------
// The pid extension.

FeatureGates GatesOff() {
  FeatureGates g;
  g.per_pod_pid_limit = false;
  return g;
}

TEST(LimitRangeValidation, PidInPodItems) {
  RunCases({
      {"min, max and default of pid in a Pod item",
       LimitRangeYaml("  - {type: Pod, max: {pid: 4096, cpu: 2}, min: {pid: 0}, default: {pid: "
                      "2048}}\n"),
       {}},
      {"API defaulting adds nothing to Pod items",
       LimitRangeYaml("  - {type: Pod, max: {pid: 4096}}\n"),
       {},
       true},
      {"default stays forbidden for other resources of a Pod item",
       LimitRangeYaml("  - {type: Pod, default: {pid: 2048, cpu: 1}}\n"),
       {"spec.limits[0].default: " + kPodForbidden}},
      {"defaultRequest stays forbidden, pid included",
       LimitRangeYaml("  - {type: Pod, defaultRequest: {pid: 2048}}\n"),
       {"spec.limits[0].defaultRequest: " + kPodForbidden}},
      {"pid has no request to compare a ratio with",
       LimitRangeYaml("  - {type: Pod, maxLimitRequestRatio: {pid: 2}}\n"),
       {"spec.limits[0].maxLimitRequestRatio[pid]: Forbidden: may not be specified for pid, "
        "which has no request"}},
      {"default below the pod range",
       LimitRangeYaml("  - {type: Pod, default: {pid: 512}}\n"),
       {"spec.limits[0].default[pid]: Invalid value: \"512\": must be between 1024 and 16384, "
        "inclusive"}},
      {"default above the pod range",
       LimitRangeYaml("  - {type: Pod, default: {pid: 20000}}\n"),
       {"spec.limits[0].default[pid]: Invalid value: \"20k\": must be between 1024 and 16384, "
        "inclusive"}},
      {"default at both ends of the pod range",
       LimitRangeYaml("  - {type: Pod, default: {pid: 1024}}\n"),
       {}},
      {"bounds outside the pod range are allowed",
       LimitRangeYaml("  - {type: Pod, min: {pid: 100}, max: {pid: 100000}, default: {pid: "
                      "16384}}\n"),
       {}},
      {"pid quantities are whole numbers",
       LimitRangeYaml("  - {type: Pod, max: {pid: 4096.5}, min: {pid: 0.5}, default: {pid: "
                      "2048.5}}\n"),
       {"spec.limits[0].max[pid]: Invalid value: \"4096500m\": must be an integer",
        "spec.limits[0].min[pid]: Invalid value: \"500m\": must be an integer",
        "spec.limits[0].default[pid]: Invalid value: \"2048500m\": must be an integer"}},
      {"pid quantities are not negative",
       LimitRangeYaml("  - {type: Pod, min: {pid: -1}}\n"),
       {"spec.limits[0].min[pid]: Invalid value: \"-1\": must be greater than or equal to 0"}},
      {"min above max",
       LimitRangeYaml("  - {type: Pod, min: {pid: 4096}, max: {pid: 2048}}\n"),
       {"spec.limits[0].min[pid]: Invalid value: \"4096\": min value 4096 is greater than max "
        "value "
        "2048"}},
      {"default above max",
       LimitRangeYaml("  - {type: Pod, max: {pid: 2048}, default: {pid: 4096}}\n"),
       {"spec.limits[0].default[pid]: Invalid value: \"2048\": default value 4096 is greater than "
        "max value 2048"}},
      {"min above default",
       LimitRangeYaml("  - {type: Pod, min: {pid: 4096}, default: {pid: 2048}}\n"),
       {"spec.limits[0].default[pid]: Invalid value: \"4096\": min value 4096 is greater than "
        "default value 2048"}},
  });
}

TEST(LimitRangeValidation, PidOutsidePodItems) {
  const std::string container_msg =
      "Invalid value: \"pid\": must be a standard resource for containers";
  RunCases({
      {"pid in a Container item",
       LimitRangeYaml("  - {type: Container, max: {pid: 2048}}\n"),
       {"spec.limits[0].max[pid]: " + container_msg}},
      {"pid in every map of a Container item",
       LimitRangeYaml("  - {type: Container, min: {pid: 1}, default: {pid: 2}, defaultRequest: "
                      "{pid: 2}, maxLimitRequestRatio: {pid: 1}}\n"),
       {"spec.limits[0].min[pid]: " + container_msg,
        "spec.limits[0].default[pid]: " + container_msg,
        "spec.limits[0].defaultRequest[pid]: " + container_msg,
        "spec.limits[0].maxLimitRequestRatio[pid]: " + container_msg}},
      // API defaulting copies max into default and defaultRequest first.
      {"pid in a Container item, API-defaulted",
       LimitRangeYaml("  - {type: Container, max: {pid: 2048}}\n"),
       {"spec.limits[0].max[pid]: " + container_msg,
        "spec.limits[0].default[pid]: " + container_msg,
        "spec.limits[0].defaultRequest[pid]: " + container_msg},
       true},
      {"pid in a PersistentVolumeClaim item",
       LimitRangeYaml("  - {type: PersistentVolumeClaim, max: {storage: 1Gi, pid: 10}}\n"),
       {"spec.limits[0].max[pid]: Forbidden: may only be specified when `type` is 'Pod'"}},
      {"pid in a custom item",
       LimitRangeYaml("  - {type: example.com/custom, min: {pid: 10}}\n"),
       {"spec.limits[0].min[pid]: Forbidden: may only be specified when `type` is 'Pod'"}},
  });
}

TEST(LimitRangeValidation, PidWithTheGatesOff) {
  const std::string unknown_type =
      "Invalid value: \"pid\": must be a standard resource type or fully qualified";
  const std::string not_container =
      "Invalid value: \"pid\": must be a standard resource for containers";
  FeatureGates no_pod_level;
  no_pod_level.per_pod_pid_limit = false;
  no_pod_level.pod_level_resources = false;
  RunCases({
      {"pid is an unknown resource without PerPodPIDLimit",
       LimitRangeYaml("  - {type: Pod, max: {pid: 2048}}\n"),
       {"spec.limits[0].max[pid]: " + unknown_type, "spec.limits[0].max[pid]: " + not_container},
       false,
       GatesOff()},
      {"and a Pod item's default is forbidden again",
       LimitRangeYaml("  - {type: Pod, default: {pid: 2048}}\n"),
       {"spec.limits[0].default: " + kPodForbidden},
       false,
       GatesOff()},
      {"the same without PodLevelResources",
       LimitRangeYaml("  - {type: Pod, min: {pid: 1}}\n"),
       {"spec.limits[0].min[pid]: " + unknown_type, "spec.limits[0].min[pid]: " + not_container},
       false,
       no_pod_level},
      {"and no integer or range checks apply",
       LimitRangeYaml("  - {type: PersistentVolumeClaim, max: {storage: 1Gi, pid: 1500m}}\n"),
       {"spec.limits[0].max[pid]: " + unknown_type},
       false,
       GatesOff()},
  });
}

TEST(LimitRangeValidation, InvalidMessage) {
  codec::Node tree =
      Decoded(LimitRangeYaml("  - {type: Container, max: {cpu: 1}, min: {cpu: 2}}\n"
                             "  - {type: Container, max: {cpu: 1}, min: {cpu: 2}}\n"));
  field::ErrorList errs = ValidateLimitRange(api::ReadLimitRange(tree));
  EXPECT_EQ(
      LimitRangeInvalidMessage("abc", errs),
      "LimitRange \"abc\" is invalid: [spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 "
      "is greater than max value 1, spec.limits[1].type: Duplicate value: \"Container\", "
      "spec.limits[1].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1]");
  field::ErrorList one = {errs.front(), errs.front()};
  EXPECT_EQ(
      LimitRangeInvalidMessage("abc", one),
      "LimitRange \"abc\" is invalid: spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 "
      "is greater than max value 1");
}

// ---------------------------------------------------------------------------------------------
// API defaulting.

TEST(LimitRangeDefaults, SetDefaultsLimitRangeItem) {
  struct DefaultsCase {
    std::string name;
    std::string items;
    std::string spec_json;  // spec after defaulting, compact JSON
  };
  const std::vector<DefaultsCase> cases = {
      {"max becomes the default limit and request", "  - {type: Container, max: {cpu: 2}}\n",
       R"({"limits":[{"type":"Container","max":{"cpu":"2"},"default":{"cpu":"2"},)"
       R"("defaultRequest":{"cpu":"2"}}]})"},
      {"with min and max the request defaults to max, not min",
       "  - {type: Container, min: {cpu: 100m}, max: {cpu: 2}}\n",
       R"({"limits":[{"type":"Container","min":{"cpu":"100m"},"max":{"cpu":"2"},)"
       R"("default":{"cpu":"2"},"defaultRequest":{"cpu":"2"}}]})"},
      {"min alone becomes the default request only", "  - {type: Container, min: {memory: 64Mi}}\n",
       R"({"limits":[{"type":"Container","min":{"memory":"64Mi"},)"
       R"("defaultRequest":{"memory":"64Mi"}}]})"},
      {"an explicit default feeds the request; explicit values stay",
       "  - {type: Container, max: {cpu: 2, memory: 1Gi}, default: {cpu: 1}, defaultRequest: "
       "{memory: 256Mi}}\n",
       R"({"limits":[{"type":"Container","max":{"cpu":"2","memory":"1Gi"},)"
       R"("default":{"cpu":"1","memory":"1Gi"},"defaultRequest":{"memory":"256Mi","cpu":"1"}}]})"},
      {"Pod, PersistentVolumeClaim and custom items get no defaults",
       "  - {type: Pod, max: {cpu: 2}, min: {cpu: 1}}\n"
       "  - {type: PersistentVolumeClaim, max: {storage: 1Gi}}\n"
       "  - {type: example.com/x, max: {cpu: 1}}\n",
       R"({"limits":[{"type":"Pod","max":{"cpu":"2"},"min":{"cpu":"1"}},)"
       R"({"type":"PersistentVolumeClaim","max":{"storage":"1Gi"}},)"
       R"({"type":"example.com/x","max":{"cpu":"1"}}]})"},
      {"nothing to add leaves no empty maps", "  - {type: Container}\n",
       R"({"limits":[{"type":"Container"}]})"},
      {"every list of every item is rounded up to milli",
       "  - {type: Container, max: {cpu: 1.5m}, min: {cpu: 0.0001}, maxLimitRequestRatio: {cpu: "
       "1.0001}}\n"
       "  - {type: Pod, max: {memory: 0.9999}}\n",
       R"({"limits":[{"type":"Container","max":{"cpu":"2m"},"min":{"cpu":"1m"},)"
       R"("maxLimitRequestRatio":{"cpu":"1001m"},"default":{"cpu":"2m"},)"
       R"("defaultRequest":{"cpu":"2m"}},{"type":"Pod","max":{"memory":"1"}}]})"},
      {"values already at milli precision keep their text",
       "  - {type: Pod, max: {cpu: 100m, memory: 1.5Gi, ephemeral-storage: 10000T}}\n",
       R"({"limits":[{"type":"Pod","max":{"cpu":"100m","memory":"1536Mi",)"
       R"("ephemeral-storage":"10P"}}]})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    codec::Node tree = Decoded(LimitRangeYaml(c.items));
    api::SetDefaultsLimitRange(tree);
    EXPECT_EQ(codec::EncodeJson(*tree.Find("spec"), 0), c.spec_json);
  }
}

TEST(LimitRangeDefaults, DefaultedObjectsValidate) {
  // Defaulting runs before validation: a max below an explicit defaultRequest is reported
  // against the copied default as well.
  RunCases({
      {"defaulted default is compared with an explicit request",
       LimitRangeYaml("  - {type: Container, max: {cpu: 1}, defaultRequest: {cpu: 2}}\n"),
       {"spec.limits[0].defaultRequest[cpu]: Invalid value: \"2\": default request value 2 is "
        "greater than max value 1",
        "spec.limits[0].defaultRequest[cpu]: Invalid value: \"2\": default request value 2 is "
        "greater than default limit value 1"},
       true},
      {"hugepages max copied to default and request match",
       LimitRangeYaml("  - {type: Container, max: {hugepages-2Mi: 4Mi}}\n"),
       {},
       true},
  });
}

}  // namespace
}  // namespace podlimits::validation
