// AdmissionReviews answered as `podlimits webhook` answers them: annotations standing for the
// seeds' fields, the same rules and messages as `admit`, the mutation's JSONPatch, and clear
// 400s for bodies that are not reviews.
#include "webhook/admission_review.h"
#include "webhook/webhook_config.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "base/base64.h"
#include "codec/json_codec.h"
#include "test_support.h"

namespace podlimits::webhook {
namespace {

using ::testing::HasSubstr;
using podlimits::testing::ParseJsonValue;

ReviewPolicy Policy() {
  ReviewPolicy p;
  p.namespaces["ci"] = ParseJsonValue(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ci","labels":{)"
      R"("pod-security.kubernetes.io/enforce":"privileged"}}})");
  p.namespaces["tenants"] = ParseJsonValue(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"tenants","labels":{)"
      R"("pod-security.kubernetes.io/enforce":"baseline"}}})");
  p.limit_ranges["tenants"].push_back(ParseJsonValue(
      R"({"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"pids","namespace":"tenants"},)"
      R"("spec":{"limits":[{"type":"Pod","default":{"pid":"1024"},"max":{"pid":"4096"}}]}})"));
  return p;
}

// An AdmissionReview of a pod CREATE in `ns` with these annotations (a JSON object's members).
std::string PodReview(std::string_view ns, std::string_view annotations,
                      std::string_view spec_extra = "", std::string_view operation = "CREATE",
                      std::string_view old_annotations = "") {
  const std::string pod = fmt::format(
      R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web","namespace":"{}")"
      R"({}}},"spec":{{{}"containers":[{{"name":"app","image":"busybox"}}],)"
      R"("initContainers":[{{"name":"init","image":"busybox"}}]}}}})",
      ns, annotations.empty() ? "" : fmt::format(R"(,"annotations":{{{}}})", annotations),
      spec_extra);
  std::string old;
  if (operation == "UPDATE") {
    old = fmt::format(
        R"(,"oldObject":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web",)"
        R"("namespace":"{}","annotations":{{{}}}}},"spec":{{"containers":[]}}}})",
        ns, old_annotations);
  }
  return fmt::format(
      R"({{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{)"
      R"("uid":"u-1","kind":{{"group":"","version":"v1","kind":"Pod"}},)"
      R"("resource":{{"group":"","version":"v1","resource":"pods"}},"namespace":"{}",)"
      R"("operation":"{}","userInfo":{{"username":"alice"}},"object":{}{}}}}})",
      ns, operation, pod, old);
}

const std::string kNofile =
    R"("ulimits.noderesource.dev/container.app":"- type: RLIMIT_NOFILE\n  soft: 1024\n  hard: 4096\n")";

TEST(WebhookReviewTest, AnswersAsAdmitDoes) {
  struct Case {
    std::string name, body;
    ReviewMode mode;
    int http;
    std::vector<std::string> has;  // substrings of the answer
    std::string patch;             // the decoded JSONPatch ("" for none)
  };
  const std::vector<Case> cases = {
      {"no podlimits field: allowed untouched", PodReview("tenants", ""), ReviewMode::kMutate,
       200, {R"("response":{"uid":"u-1","allowed":true})"}, ""},
      {"ulimits where privileged: runtime class set", PodReview("ci", kNofile),
       ReviewMode::kMutate, 200, {R"("uid":"u-1","allowed":true,"patch":")", R"(","patchType":"JSONPatch"}})"},
       R"([{"op":"add","path":"/spec/runtimeClassName","value":"podlimits"}])"},
      {"validate does not patch", PodReview("ci", kNofile), ReviewMode::kValidate, 200,
       {R"("response":{"uid":"u-1","allowed":true})"}, ""},
      {"ulimits at baseline: Pod Security", PodReview("tenants", kNofile), ReviewMode::kValidate,
       200,
       {R"("allowed":false,"status":{"metadata":{},"status":"Failure","message":"pods \"web\" )"
        R"(is forbidden: violates PodSecurity \"baseline:latest\": )",
        R"("reason":"Forbidden","code":403)"},
       ""},
      {"the field's rules", PodReview("ci", R"("ulimits.noderesource.dev/container.app":"- type: nofile\n  soft: 8\n  hard: 4\n")"),
       ReviewMode::kValidate, 200,
       {R"(Pod \"web\" is invalid: spec.containers[0].securityContext.ulimits[0].soft)",
        R"("code":422)"},
       ""},
      {"the allowlist", PodReview("ci", R"("ulimits.noderesource.dev/container.app":"- {type: RLIMIT_AS, soft: 1, hard: 1}")"),
       ReviewMode::kValidate, 200,
       {R"(spec.containers[0].securityContext.ulimits[0].name: Unsupported value: \"as\")"}, ""},
      {"no such container", PodReview("ci", R"("ulimits.noderesource.dev/container.db":"- {type: nofile, soft: 1, hard: 1}")"),
       ReviewMode::kValidate, 200,
       {R"(metadata.annotations[ulimits.noderesource.dev/container.db]: Invalid value: )",
        R"(no container named \"db\" in the pod)"},
       ""},
      {"not the adjuster's format", PodReview("ci", R"("ulimits.noderesource.dev/container.app":"nofile=1024")"),
       ReviewMode::kValidate, 200, {"must be a YAML list of {type, soft, hard}"}, ""},
      {"deprecated key warns",
       PodReview("ci", R"("ulimits.nri.containerd.io/container.app":"- {type: nofile, soft: 1, hard: 1}")"),
       ReviewMode::kValidate, 200,
       {R"("allowed":true,"warnings":["metadata.annotations[ulimits.nri.containerd.io/container.app]: )"
        R"(deprecated, use ulimits.noderesource.dev/container.app"])"},
       ""},
      {"writable false asks for nothing",
       PodReview("tenants", R"("podlimits.dev/writable-cgroups.container.app":"false")"),
       ReviewMode::kMutate, 200, {R"("allowed":true)"}, ""},
      {"pod PID limit above the LimitRange",
       PodReview("tenants", R"("podlimits.dev/pod-pid-limit":"8192")"), ReviewMode::kValidate,
       200, {R"(maximum pid usage per Pod is 4096)", R"("code":403)"}, ""},
      {"pod PID limit within it: the class of nodes that hold one",
       PodReview("tenants", R"("podlimits.dev/pod-pid-limit":"2048")"), ReviewMode::kMutate, 200,
       {R"("allowed":true)"},
       R"([{"op":"add","path":"/spec/runtimeClassName","value":"podlimits-pid"}])"},
      {"writable cgroups for every container (CRI-O's key): the class of nsdelegate nodes",
       PodReview("ci", R"("io.kubernetes.cri-o.cgroup2-mount-hierarchy-rw":"true")"),
       ReviewMode::kMutate, 200, {R"("allowed":true)"},
       R"([{"op":"add","path":"/spec/runtimeClassName","value":"podlimits-cgroups"}])"},
      {"a class above the need is the pod's choice",
       PodReview("ci", kNofile, R"("runtimeClassName":"podlimits-cgroups",)"), ReviewMode::kMutate,
       200, {R"("allowed":true)"}, ""},
      {"a class below it is refused",
       PodReview("tenants", R"("podlimits.dev/pod-pid-limit":"2048")", R"("runtimeClassName":"podlimits",)"),
       ReviewMode::kMutate, 200,
       {R"(spec.runtimeClassName: Invalid value: \"podlimits\": a pod that uses podlimits' fields )"
        R"(runs with runtime class \"podlimits-pid\")"},
       ""},
      {"writable must be a boolean",
       PodReview("ci", R"("cgroups.noderesource.dev/writable":"yes")"), ReviewMode::kValidate, 200,
       {R"(metadata.annotations[cgroups.noderesource.dev/writable]: Invalid value: \"yes\": )"
        R"(must be true or false)"},
       ""},
      {"annotation against the field",
       PodReview("ci", R"("podlimits.dev/pod-pid-limit":"100")", R"("resources":{"limits":{"pid":"200"}},)"),
       ReviewMode::kValidate, 200, {"conflicts with spec.resources.limits.pid"}, ""},
      {"another runtime class", PodReview("ci", kNofile, R"("runtimeClassName":"gvisor",)"),
       ReviewMode::kMutate, 200,
       {R"(spec.runtimeClassName: Invalid value: \"gvisor\": a pod that uses podlimits' fields )"
        R"(runs with runtime class \"podlimits\")"},
       ""},
      {"update keeps the annotations",
       PodReview("ci", kNofile, "", "UPDATE", kNofile), ReviewMode::kValidate, 200,
       {R"("allowed":true)"}, ""},
      {"update may not change them",
       PodReview("ci", kNofile, "", "UPDATE", ""), ReviewMode::kValidate, 200,
       {R"(metadata.annotations: Forbidden: podlimits' limit annotations are immutable)"}, ""},
  };
  const ReviewPolicy policy = Policy();
  for (const auto& c : cases) {
    ReviewAnswer a = AnswerReview(c.body, c.mode, policy);
    EXPECT_EQ(a.http_status, c.http) << c.name << ": " << a.body;
    for (const auto& s : c.has) EXPECT_THAT(a.body, HasSubstr(s)) << c.name;
    const codec::Node answer = ParseJsonValue(a.body);
    const codec::Node* patch = answer.FindPath({"response", "patch"});
    EXPECT_EQ(patch ? *Base64Decode(patch->scalar) : "", c.patch) << c.name;
  }
}

TEST(WebhookReviewTest, ARememberedUlimitsParseAnswersAsTheFirst) {
  // The ulimits annotation's parse is remembered per thread (a few texts, the oldest replaced):
  // more distinct texts than it keeps, valid and not, answered twice in turn, must be answered
  // the same both times, and as their own text says.
  const ReviewPolicy policy = Policy();
  std::vector<std::string> bodies;
  for (int i = 1; i <= 40; ++i) {
    // Every third one is invalid: soft above hard.
    const int soft = i % 3 == 0 ? 9000 + i : i;
    bodies.push_back(PodReview(
        "ci", fmt::format(R"("ulimits.noderesource.dev/container.app":"- type: RLIMIT_NOFILE\n  )"
                          R"(soft: {}\n  hard: 9000\n")",
                          soft)));
  }
  std::vector<std::string> first;
  for (const auto& body : bodies) first.push_back(AnswerReview(body, ReviewMode::kValidate, policy).body);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const std::string again = AnswerReview(bodies[i], ReviewMode::kValidate, policy).body;
    EXPECT_EQ(again, first[i]) << "review " << i + 1;
    const bool valid = (i + 1) % 3 != 0;
    EXPECT_THAT(again, HasSubstr(valid ? R"("allowed":true)" : R"("allowed":false)"))
        << "review " << i + 1;
    // The same text back to back: the second from the memo.
    EXPECT_EQ(AnswerReview(bodies[i], ReviewMode::kValidate, policy).body, first[i])
        << "review " << i + 1;
  }
}

TEST(WebhookReviewTest, ALimitRangeDefaultBecomesTheAnnotation) {
  // A pod that asks for a podlimits field in a namespace whose LimitRange defaults the pod PID
  // limit: the node's wrapper must see the default, so it is written as the annotation.
  ReviewAnswer a = AnswerReview(
      PodReview("tenants", R"("podlimits.dev/writable-cgroups.container.app":"true")"),
      ReviewMode::kMutate, Policy());
  const codec::Node answer = ParseJsonValue(a.body);
  const codec::Node* patch = answer.FindPath({"response", "patch"});
  ASSERT_NE(patch, nullptr) << a.body;
  EXPECT_EQ(*Base64Decode(patch->scalar),
            R"([{"op":"add","path":"/spec/runtimeClassName","value":"podlimits-cgroups"},)"
            R"({"op":"add","path":"/metadata/annotations/podlimits.dev~1pod-pid-limit",)"
            R"("value":"1024"}])");
}

TEST(WebhookReviewTest, NriClustersGetNoRuntimeClass) {
  // nodeEnforcement NRI: `podlimits nri` judges every pod on its node, so the mutation neither
  // sets a class nor refuses one; the rest (validation, the LimitRange default as the
  // annotation the plugin reads) is as with RuntimeClasses.
  struct Case {
    std::string name, body;
    ReviewMode mode;
    std::vector<std::string> has;  // substrings of the answer
    std::string patch;             // the decoded JSONPatch ("" for none)
  };
  const std::vector<Case> cases = {
      {"ulimits: allowed without a patch", PodReview("ci", kNofile), ReviewMode::kMutate,
       {R"("response":{"uid":"u-1","allowed":true})"}, ""},
      {"a pod PID limit: allowed without a patch",
       PodReview("tenants", R"("podlimits.dev/pod-pid-limit":"2048")"), ReviewMode::kMutate,
       {R"("response":{"uid":"u-1","allowed":true})"}, ""},
      {"a LimitRange default: the annotation alone",
       PodReview("tenants", R"("podlimits.dev/writable-cgroups.container.app":"true")"),
       ReviewMode::kMutate, {R"("allowed":true)"},
       R"([{"op":"add","path":"/metadata/annotations/podlimits.dev~1pod-pid-limit",)"
       R"("value":"1024"}])"},
      {"another runtime class is the pod's own",
       PodReview("ci", kNofile, R"("runtimeClassName":"gvisor",)"), ReviewMode::kMutate,
       {R"("response":{"uid":"u-1","allowed":true})"}, ""},
      {"a class below the need is not judged",
       PodReview("tenants", R"("podlimits.dev/pod-pid-limit":"2048")",
                 R"("runtimeClassName":"podlimits",)"),
       ReviewMode::kMutate, {R"("response":{"uid":"u-1","allowed":true})"}, ""},
      {"still validated", PodReview("tenants", R"("podlimits.dev/pod-pid-limit":"8192")"),
       ReviewMode::kMutate, {R"(maximum pid usage per Pod is 4096)", R"("code":403)"}, ""},
      {"still Pod Security", PodReview("tenants", kNofile), ReviewMode::kValidate,
       {R"(violates PodSecurity \"baseline:latest\")"}, ""},
  };
  ReviewPolicy policy = Policy();
  policy.node_enforcement = NodeEnforcement::kNri;
  for (const auto& c : cases) {
    ReviewAnswer a = AnswerReview(c.body, c.mode, policy);
    EXPECT_EQ(a.http_status, 200) << c.name << ": " << a.body;
    for (const auto& s : c.has) EXPECT_THAT(a.body, HasSubstr(s)) << c.name;
    const codec::Node answer = ParseJsonValue(a.body);
    const codec::Node* patch = answer.FindPath({"response", "patch"});
    EXPECT_EQ(patch ? *Base64Decode(patch->scalar) : "", c.patch) << c.name;
  }
}

TEST(WebhookReviewTest, OtherRequestsAreAllowed) {
  const std::string configmap =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-2",)"
      R"("kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"",)"
      R"("version":"v1","resource":"configmaps"},"operation":"CREATE","object":{}}})";
  EXPECT_EQ(AnswerReview(configmap, ReviewMode::kValidate, Policy()).body,
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{)"
            R"("uid":"u-2","allowed":true}})");
}

// "0,0,...,0": `count` values.
std::string Zeros(std::size_t count) {
  std::string out;
  out.reserve(count * 2);
  for (std::size_t i = 0; i < count; ++i) out += i == 0 ? "0" : ",0";
  return out;
}

TEST(WebhookReviewTest, MalformedBodiesAreA400) {
  struct Case {
    std::string name, body, message;
  };
  const std::vector<Case> cases = {
      {"not json", "{", "the body is not JSON"},
      {"two values", "{} {}", "not one JSON object"},
      {"another kind", R"({"apiVersion":"v1","kind":"Pod"})",
       R"(expected apiVersion admission.k8s.io/v1, kind AdmissionReview; got \"v1\" \"Pod\")"},
      {"v1beta1", R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"})",
       "expected apiVersion admission.k8s.io/v1"},
      {"no request", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
       "it has no request"},
      {"no uid",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})",
       "request.uid is missing"},
      {"a request of the wrong type",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":"x"})",
       "malformed AdmissionReview"},
      {"a pod that is not an object",
       R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",)"
       R"("kind":{"kind":"Pod"},"resource":{"resource":"pods"},"operation":"CREATE",)"
       R"("object":[]}})",
       "malformed AdmissionReview"},
      // 3 MiB of zeros: 400 MB as a tree, beyond the webhook's 128 MiB; refused by count.
      {"more values than a review holds", "[" + Zeros(1'500'000) + "]",
       "the body is not JSON: more than 100000 values"},
  };
  for (const auto& c : cases) {
    ReviewAnswer a = AnswerReview(c.body, ReviewMode::kValidate, Policy());
    EXPECT_EQ(a.http_status, 400) << c.name << ": " << a.body;
    EXPECT_THAT(a.body, HasSubstr(c.message)) << c.name;
    EXPECT_THAT(a.body, HasSubstr(R"("reason":"BadRequest","code":400)")) << c.name;
  }
}

TEST(WebhookConfigTest, RuntimeClassNames) {
  auto defaults = ParseWebhookConfig("", "c.yaml", ".");
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->policy.runtime_classes.ulimits, "podlimits");
  EXPECT_EQ(defaults->policy.runtime_classes.pod_pid_limit, "podlimits-pid");
  EXPECT_EQ(defaults->policy.runtime_classes.writable_cgroups, "podlimits-cgroups");

  auto one = ParseWebhookConfig(
      "apiVersion: podlimits.dev/v1alpha1\nkind: WebhookConfiguration\nruntimeClassName: pl\n"
      "runtimeClassNames: {writableCgroups: pl-v2}\n",
      "c.yaml", ".");
  ASSERT_TRUE(one) << one.error();
  EXPECT_EQ(one->policy.runtime_classes.ulimits, "pl");
  EXPECT_EQ(one->policy.runtime_classes.pod_pid_limit, "pl");
  EXPECT_EQ(one->policy.runtime_classes.writable_cgroups, "pl-v2");

  auto bad = ParseWebhookConfig(
      "apiVersion: podlimits.dev/v1alpha1\nkind: WebhookConfiguration\n"
      "runtimeClassNames: {pid: x}\n",
      "c.yaml", ".");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().Message(), HasSubstr("runtimeClassNames.pid: unknown or empty (it has ulimits, "
                                     "podPIDLimit and writableCgroups)"));
}

TEST(WebhookConfigTest, NodeEnforcement) {
  struct Case {
    std::string name, text;
    std::optional<NodeEnforcement> want;  // unset: an error
    std::string error;                    // the whole message
  };
  const std::string head = "apiVersion: podlimits.dev/v1alpha1\nkind: WebhookConfiguration\n";
  const std::vector<Case> cases = {
      {"no file: RuntimeClass", "", NodeEnforcement::kRuntimeClass, ""},
      {"unset: RuntimeClass", head + "runtimeClassName: pl\n", NodeEnforcement::kRuntimeClass,
       ""},
      {"RuntimeClass", head + "nodeEnforcement: RuntimeClass\n", NodeEnforcement::kRuntimeClass,
       ""},
      {"RuntimeClass with names",
       head + "nodeEnforcement: RuntimeClass\nruntimeClassNames: {ulimits: pl}\n",
       NodeEnforcement::kRuntimeClass, ""},
      {"NRI", head + "nodeEnforcement: NRI\n", NodeEnforcement::kNri, ""},
      {"spelt otherwise", head + "nodeEnforcement: nri\n", std::nullopt,
       R"(c.yaml:1: WebhookConfiguration: nodeEnforcement: Unsupported value: "nri": )"
       R"(supported values: "NRI", "RuntimeClass")"},
      {"empty", head + "nodeEnforcement: \"\"\n", std::nullopt,
       R"(c.yaml:1: WebhookConfiguration: unknown or empty field "nodeEnforcement" (it has )"
       R"(nodeEnforcement, runtimeClassName and runtimeClassNames))"},
      {"not a string", head + "nodeEnforcement: {mode: NRI}\n", std::nullopt,
       R"(c.yaml:1: WebhookConfiguration: unknown or empty field "nodeEnforcement" (it has )"
       R"(nodeEnforcement, runtimeClassName and runtimeClassNames))"},
      {"NRI with a class", head + "nodeEnforcement: NRI\nruntimeClassName: podlimits\n",
       std::nullopt,
       "c.yaml:1: WebhookConfiguration: runtimeClassName: Forbidden: may not be set with "
       "nodeEnforcement NRI (the NRI plugin enforces on every node; no RuntimeClass is set or "
       "required)"},
      {"NRI with classes, in any order",
       "---\n" + head + "runtimeClassNames: {ulimits: pl}\nnodeEnforcement: NRI\n", std::nullopt,
       "c.yaml:2: WebhookConfiguration: runtimeClassNames: Forbidden: may not be set with "
       "nodeEnforcement NRI (the NRI plugin enforces on every node; no RuntimeClass is set or "
       "required)"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseWebhookConfig(c.text, "c.yaml", ".");
    if (c.want) {
      ASSERT_TRUE(parsed) << c.name << ": " << parsed.error();
      EXPECT_EQ(parsed->policy.node_enforcement, *c.want) << c.name;
    } else {
      ASSERT_FALSE(parsed) << c.name;
      EXPECT_EQ(parsed.error().Message(), c.error) << c.name;
    }
  }
}

}  // namespace
}  // namespace podlimits::webhook
