#include "api/decode.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "test_support.h"

namespace podlimits::api {
namespace {

using podlimits::testing::DecodeErrorOf;
using podlimits::testing::DecodeOne;

constexpr std::string_view kPodPrefix = "Pod in version \"v1\" cannot be handled as a Pod: ";

TEST(StrictDecode, RejectsWhatTheApiserverRejects) {
  struct Case {
    const char* name;
    const char* yaml;
    std::string want;  // after the "Pod in version ... as a Pod: " prefix
  };
  const Case cases[] = {
      {"typo in a limit field is an unknown field with its full path",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    image: i\n    securityContext:\n      ulimit: []\n",
       "strict decoding error: unknown field \"spec.containers[0].securityContext.ulimit\""},
      {"several unknown fields are listed in order",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labelz: {}}\nspec:\n  containerz: []\n",
       "strict decoding error: unknown field \"metadata.labelz\", unknown field "
       "\"spec.containerz\""},
      {"unknown field inside a ulimit",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    image: i\n    securityContext:\n      ulimits: [{name: nofile, soft: 1, hard: 1, max: "
       "2}]\n",
       "strict decoding error: unknown field "
       "\"spec.containers[0].securityContext.ulimits[0].max\""},
      {"unknown field in cgroupOptions",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    image: i\n    securityContext:\n      cgroupOptions: {mode: Writable}\n",
       "strict decoding error: unknown field "
       "\"spec.containers[0].securityContext.cgroupOptions.mode\""},
      {"string where an integer belongs",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    image: i\n    securityContext:\n      ulimits: [{name: nofile, soft: \"1\", hard: "
       "1}]\n",
       "json: cannot unmarshal string into Go struct field Ulimit.spec.containers.securityContext."
       "ulimits.soft of type int64 (line 9)"},
      {"fraction where an integer belongs",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: "
       "1.5\n"
       "  containers: []\n",
       "json: cannot unmarshal number 1.5 into Go struct field "
       "PodSpec.spec.terminationGracePeriodSeconds"
       " of type int64 (line 5)"},
      {"list where a map belongs",
       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: [a]\n",
       "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type "
       "map[string]string (line 5)"},
      {"map where a list belongs",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: {name: c}\n",
       "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type "
       "[]v1.Container (line 5)"},
      {"int32 overflow",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    ports: [{containerPort: 4294967296}]\n",
       "json: cannot unmarshal number 4294967296 into Go struct field "
       "ContainerPort.spec.containers."
       "ports.containerPort of type int32 (line 7)"},
      {"bad quantity",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resources:\n    limits:\n"
       "      pid: 1x\n",
       "quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (line 7)"},
      {"bad quantity suffix",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    resources: {limits: {cpu: 1K}}\n",
       "unable to parse quantity's suffix (line 7)"},
      {"array as a quantity: UnmarshalJSON parses the raw JSON, so the regexp message",
       "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    resources: {limits: {cpu: [1]}}\n",
       "quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (line 7)"},
      {"object as a quantity",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"overhead":{"cpu":{}}}})",
       "quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"duplicate field in JSON",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}})",
       "strict decoding error: duplicate field \"metadata.name\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DecodeErrorOf(c.yaml), std::string(kPodPrefix) + c.want);
  }
}

TEST(StrictDecode, WarnModeDropsUnknownFieldsAndWarns) {
  const char* yaml =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
      "    image: i\n    securityContext:\n      ulimit: []\n";
  DecodeOptions options;
  options.field_validation = FieldValidation::kWarn;
  auto results = DecodeManifests("t.yaml", yaml, options);
  ASSERT_EQ(results.size(), 1u);
  auto& obj = std::get<DecodedObject>(results[0]);
  ASSERT_EQ(obj.warnings.size(), 1u);
  EXPECT_EQ(obj.warnings[0], "unknown field \"spec.containers[0].securityContext.ulimit\"");
  EXPECT_EQ(obj.tree.FindPath({"spec"})
                ->Find("containers")
                ->items[0]
                .Find("securityContext")
                ->members.size(),
            0u);

  options.field_validation = FieldValidation::kIgnore;
  results = DecodeManifests("t.yaml", yaml, options);
  EXPECT_TRUE(std::get<DecodedObject>(results[0]).warnings.empty());
}

TEST(StrictDecode, YamlNumbersAndBoolsAreNotStrings) {
  // kubectl sends `version: 1.0` as the number 1 and `on: yes` as "true": true; a label value
  // must be a string, so the apiserver refuses both (a quoted value is the fix).
  EXPECT_EQ(DecodeErrorOf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {version: "
                          "1.0}\nspec:\n  containers: [{name: c, image: x}]\n"),
            std::string(kPodPrefix) +
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of "
                "type string (line 5)");
  auto obj = DecodeOne(
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {version: \"1.0\", on: \"yes\"}\n"
      "spec:\n  containers: [{name: c, image: \"3\"}]\n");
  EXPECT_EQ(obj.tree.FindPath({"metadata", "labels", "version"})->scalar, "1.0");
  // A plain `on` key is the boolean true, and sigs.k8s.io/yaml writes a boolean key as "true".
  ASSERT_NE(obj.tree.FindPath({"metadata", "labels", "true"}), nullptr);
  EXPECT_EQ(obj.tree.FindPath({"metadata", "labels", "true"})->scalar, "yes");
  EXPECT_EQ(obj.tree.FindPath({"metadata", "labels", "on"}), nullptr);
}

TEST(StrictDecode, JsonNumbersAreNotStrings) {
  EXPECT_EQ(DecodeErrorOf(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":1}})"),
            std::string(kPodPrefix) +
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of "
                "type string");
}

TEST(StrictDecode, QuantitiesAreCanonicalised) {
  auto obj = DecodeOne(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
      "    resources: {limits: {cpu: 1000m, memory: 1024Mi}, requests: {cpu: 0.5}}\n");
  const codec::Node* res = obj.tree.FindPath({"spec"})->Find("containers")->items[0].Find("resources");
  EXPECT_EQ(res->FindPath({"limits", "cpu"})->scalar, "1");
  EXPECT_EQ(res->FindPath({"limits", "memory"})->scalar, "1Gi");
  EXPECT_EQ(res->FindPath({"requests", "cpu"})->scalar, "500m");
}

TEST(StrictDecode, NullQuantityIsZero) {
  // Quantity.UnmarshalJSON: JSON null is a zero Quantity, stored as "0".
  auto obj = DecodeOne(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
      "    resources: {requests: {cpu: null, memory: ~}}\n");
  const codec::Node* requests =
      obj.tree.FindPath({"spec"})->Find("containers")->items[0].FindPath({"resources", "requests"});
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->Find("cpu")->scalar, "0");
  EXPECT_TRUE(requests->Find("cpu")->IsString());
  EXPECT_EQ(requests->Find("memory")->scalar, "0");
}

TEST(StrictDecode, NullFieldsAreDropped) {
  auto obj = DecodeOne("apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: null}\nspec: ~\n");
  EXPECT_EQ(obj.tree.FindPath({"metadata", "labels"}), nullptr);
  EXPECT_EQ(obj.tree.Find("spec"), nullptr);
}

TEST(StrictDecode, NothingIsLostOnTheWayThrough) {
  // Fields podlimits does not interpret survive decode → encode → decode unchanged.
  const char* yaml = R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
  annotations: {note: keep me}
spec:
  tolerations:
  - {key: k, operator: Exists, effect: NoSchedule}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
  containers:
  - name: web
    image: nginx:1.27
    ports: [{containerPort: 8080, name: http}]
    volumeMounts: [{name: data, mountPath: /data, readOnly: true}]
    livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 3}
    env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    securityContext:
      ulimits: [{name: nofile, soft: 1024, hard: 4096}]
      cgroupOptions: {mountMode: Writable}
  volumes:
  - {name: data, emptyDir: {sizeLimit: 1Gi}}
)";
  auto first = DecodeOne(yaml);
  std::string json = codec::EncodeJson(first.tree);
  auto again = DecodeManifests("again.json", json);
  ASSERT_EQ(again.size(), 1u);
  auto& second = std::get<DecodedObject>(again[0]);
  EXPECT_EQ(second.tree, first.tree);
  auto yaml_again = DecodeManifests("again.yaml", codec::EncodeYaml(first.tree));
  EXPECT_EQ(std::get<DecodedObject>(yaml_again[0]).tree, first.tree);
  EXPECT_NE(json.find("matchExpressions"), std::string::npos);
  EXPECT_NE(json.find("\"sizeLimit\": \"1Gi\""), std::string::npos);
}

TEST(DecodeManifests, ListsAreFlattenedAndKindsChecked) {
  const char* yaml = R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a}}
- {apiVersion: v1, kind: LimitRange, metadata: {name: l}, spec: {limits: []}}
- {apiVersion: v1, kind: Pod, metadata: {name: p}}
- {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s}}
- {apiVersion: v1, metadata: {name: x}}
- {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}
- {apiVersion: batch/v1, kind: Job, metadata: {name: j}}
- {apiVersion: v1, kind: Deployment, metadata: {name: wrong-group}}
)";
  auto results = DecodeManifests("list.yaml", yaml);
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(std::get<DecodedObject>(results[0]).kind, "Namespace");
  EXPECT_EQ(std::get<DecodedObject>(results[1]).kind, "LimitRange");
  EXPECT_EQ(std::get<DecodedObject>(results[2]).kind, "Pod");
  EXPECT_EQ(std::get<DecodeError>(results[3]).message,
            "resource mapping not found for name: \"s\" namespace: \"\" from \"list.yaml\": no "
            "matches for kind \"StatefulSet\" in version \"apps/v1\"");
  EXPECT_FALSE(std::get<DecodeError>(results[3]).from_server);
  // The workloads the admission chain admits (serve runs them), each in its own group version.
  EXPECT_EQ(std::get<DecodedObject>(results[5]).kind, "Deployment");
  EXPECT_EQ(std::get<DecodedObject>(results[6]).kind, "Job");
  EXPECT_EQ(std::get<DecodeError>(results[7]).message,
            "resource mapping not found for name: \"wrong-group\" namespace: \"\" from "
            "\"list.yaml\": no matches for kind \"Deployment\" in version \"v1\"");
  EXPECT_EQ(std::get<DecodeError>(results[4]).message,
            "unable to decode \"list.yaml\": Object 'Kind' is missing");
}

TEST(DecodeManifests, SyntaxErrorsNameFileAndLine) {
  auto results = DecodeManifests("bad.yaml", "a: b\n  c: d\n");
  ASSERT_EQ(results.size(), 1u);
  auto& err = std::get<DecodeError>(results[0]);
  EXPECT_FALSE(err.from_server);
  EXPECT_EQ(
      err.message.rfind("error parsing bad.yaml: error converting YAML to JSON: yaml: line 2: ", 0),
      0u)
      << err.message;
  // A repeated key fails its own object only, with the field's path and the line.
  auto dup = DecodeManifests(
      "dup.yaml",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: c\n"
      "    image: x\n    image: z\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n"
      "spec: {containers: [{name: c, image: x}]}\n");
  ASSERT_EQ(dup.size(), 2u);
  EXPECT_EQ(std::get<DecodeError>(dup[0]).message,
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: duplicate "
            "field \"spec.containers[0].image\" (line 8)");
  EXPECT_TRUE(std::holds_alternative<DecodedObject>(dup[1]));
}

// kubectl turns YAML into JSON without looking at the Pod's types (sigs.k8s.io/yaml into a
// RawExtension): what go-yaml resolves to a number or a bool arrives as one, and the apiserver
// rejects it where a string belongs.
TEST(DecodeManifests, YamlScalarsArriveAsKubectlSendsThem) {
  struct Case {
    const char* name;
    const char* spec;
    const char* error;  // "" when admitted
  };
  const Case cases[] = {
      {"number where a string belongs",
       "containers: [{name: c, image: x, env: [{name: A, value: 5}]}]",
       "json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of "
       "type string (line 5)"},
      {"y is a bool", "containers: [{name: y, image: x}]",
       "json: cannot unmarshal bool into Go struct field Container.spec.containers.name of type "
       "string (line 5)"},
      {"1.0 is the integer 1",
       "securityContext: {runAsUser: 1.0}\n  containers: [{name: c, image: x}]", ""},
      {"1_000 is 1000", "securityContext: {runAsUser: 1_000}\n  containers: [{name: c, image: x}]",
       ""},
      {"a float is not an integer",
       "securityContext: {runAsUser: 1.5}\n  containers: [{name: c, image: x}]",
       "json: cannot unmarshal number 1.5 into Go struct field "
       "PodSecurityContext.spec.securityContext.runAsUser of type int64 (line 5)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string text =
        std::string("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  ") + c.spec + "\n";
    auto results = DecodeManifests("p.yaml", text);
    ASSERT_EQ(results.size(), 1u);
    if (*c.error == 0) {
      ASSERT_TRUE(std::holds_alternative<DecodedObject>(results[0]))
          << std::get<DecodeError>(results[0]).message;
      continue;
    }
    ASSERT_TRUE(std::holds_alternative<DecodeError>(results[0]));
    EXPECT_EQ(std::get<DecodeError>(results[0]).message,
              std::string("Pod in version \"v1\" cannot be handled as a Pod: ") + c.error);
  }
  auto one =
      DecodeManifests("p.yaml",
                      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  securityContext: "
                      "{runAsUser: 1.0}\n  containers: [{name: c, image: x, resources: "
                      "{limits: {cpu: 1e3, memory: 1_000}}}]\n");
  const codec::Node& tree = std::get<DecodedObject>(one[0]).tree;
  EXPECT_EQ(tree.FindPath({"spec", "securityContext", "runAsUser"})->scalar, "1");
  const codec::Node& limits =
      *tree.FindPath({"spec"})->Find("containers")->items[0].FindPath({"resources", "limits"});
  EXPECT_EQ(limits.Find("cpu")->scalar, "1k");
  EXPECT_EQ(limits.Find("memory")->scalar, "1k");

  auto inf = DecodeManifests("inf.yaml", "a: 1\nb: .inf\n");
  ASSERT_EQ(inf.size(), 1u);
  EXPECT_EQ(std::get<DecodeError>(inf[0]).message,
            "error parsing inf.yaml: error converting YAML to JSON: json: unsupported value: +Inf "
            "(line 2)");
}

}  // namespace
}  // namespace podlimits::api
