// LimitRanger admission: upstream's admission_test.go cases (TestPodLimitFunc and friends) by
// name, with the exact messages, plus the aggregation, annotation, multi-LimitRange, exact-ratio
// and pid-extension rules of podlimits.
#include "admission/limit_ranger.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/limit_range_defaults.h"
#include "api/objects.h"
#include "codec/node.h"

namespace podlimits::admission {
namespace {

using codec::Node;
using resource::Quantity;
using api::ResourceList;

// ---------------------------------------------------------------------------------------------
// Builders mirroring upstream's test helpers (getComputeResourceList, validPod, validPodInit,
// withRestartableInitContainer, validPodWithPodLevelResources, createLimitRange).

using Entries = std::vector<std::pair<std::string, std::string>>;

Entries Compute(std::string cpu, std::string memory) {
  Entries e;
  if (!cpu.empty()) e.emplace_back("cpu", std::move(cpu));
  if (!memory.empty()) e.emplace_back("memory", std::move(memory));
  return e;
}

Entries LocalStorage(std::string ephemeral_storage) {
  Entries e;
  if (!ephemeral_storage.empty()) e.emplace_back("ephemeral-storage", std::move(ephemeral_storage));
  return e;
}

Entries None() {
  return {};
}

struct Requirements {
  Entries requests;
  Entries limits;
};

Node ListNode(const Entries& entries) {
  Node list = Node::Object();
  for (const auto& [name, value] : entries) list.Set(name, Node::String(value));
  return list;
}

// Empty maps are left out, as omitempty leaves them out of the wire form.
Node ResourcesNode(const Requirements& r) {
  Node resources = Node::Object();
  if (!r.limits.empty()) resources.Set("limits", ListNode(r.limits));
  if (!r.requests.empty()) resources.Set("requests", ListNode(r.requests));
  return resources;
}

Node ContainerNode(const std::string& name, const Requirements& r, bool sidecar = false) {
  Node c = Node::Object();
  c.Set("name", Node::String(name));
  c.Set("image", Node::String("foo:V"));
  c.Set("resources", ResourcesNode(r));
  if (sidecar) c.Set("restartPolicy", Node::String("Always"));
  return c;
}

Node ValidPod(const std::string& name, int containers, const Requirements& r) {
  Node pod = Node::Object();
  Node& meta = pod.Ensure("metadata");
  meta.Set("name", Node::String(name));
  meta.Set("namespace", Node::String("test"));
  Node& list = pod.Ensure("spec").Ensure("containers", Node::Kind::kArray);
  for (int i = 0; i < containers; ++i) {
    list.items.push_back(ContainerNode("foo-" + std::to_string(i), r));
  }
  return pod;
}

Node& InitContainers(Node& pod) {
  return pod.Ensure("spec").Ensure("initContainers", Node::Kind::kArray);
}

Node ValidPodInit(Node pod, const std::vector<Requirements>& inits) {
  Node& list = InitContainers(pod);
  for (std::size_t i = 0; i < inits.size(); ++i) {
    list.items.push_back(ContainerNode("foo-" + std::to_string(i), inits[i]));
  }
  return pod;
}

Node WithRestartableInitContainer(const Entries& requests, const Entries& limits, Node pod) {
  Node& list = InitContainers(pod);
  list.items.push_back(
      ContainerNode("foo-" + std::to_string(list.items.size()), {requests, limits}, true));
  return pod;
}

Node WithPodLevelResources(Node pod, const Requirements& r) {
  pod.Ensure("spec").Set("resources", ResourcesNode(r));
  return pod;
}

struct ItemSpec {
  std::string type;
  Entries min, max, default_limit, default_request, ratio;
};

Node LimitRangeTree(const std::string& name, const std::vector<ItemSpec>& items) {
  Node lr = Node::Object();
  lr.Set("apiVersion", Node::String("v1"));
  lr.Set("kind", Node::String("LimitRange"));
  Node& meta = lr.Ensure("metadata");
  meta.Set("name", Node::String(name));
  meta.Set("namespace", Node::String("test"));
  Node& limits = lr.Ensure("spec").Ensure("limits", Node::Kind::kArray);
  for (const ItemSpec& it : items) {
    Node item = Node::Object();
    item.Set("type", Node::String(it.type));
    auto add = [&](const char* key, const Entries& e) {
      if (!e.empty()) item.Set(key, ListNode(e));
    };
    add("max", it.max);
    add("min", it.min);
    add("default", it.default_limit);
    add("defaultRequest", it.default_request);
    add("maxLimitRequestRatio", it.ratio);
    limits.items.push_back(std::move(item));
  }
  return lr;
}

// createLimitRange: one item, built without API defaulting, like upstream's unit tests.
api::LimitRange CreateLimitRange(const std::string& type, Entries min, Entries max,
                                 Entries default_limit, Entries default_request, Entries ratio) {
  return api::ReadLimitRange(
      LimitRangeTree("abc", {{type, std::move(min), std::move(max), std::move(default_limit),
                              std::move(default_request), std::move(ratio)}}));
}

// The same LimitRange after kube-apiserver's defaulting (what a real cluster stores).
api::LimitRange DefaultedLimitRange(const std::string& name, const std::vector<ItemSpec>& items) {
  Node tree = LimitRangeTree(name, items);
  api::SetDefaultsLimitRange(tree);
  return api::ReadLimitRange(tree);
}

api::LimitRange ValidLimitRange() {
  return api::ReadLimitRange(
      LimitRangeTree("abc", {{"Pod", Compute("50m", "2Mi"), Compute("200m", "4Gi"), {}, {}, {}},
                             {"Container",
                              Compute("25m", "1Mi"),
                              Compute("100m", "2Gi"),
                              Compute("75m", "10Mi"),
                              Compute("50m", "5Mi"),
                              {}}}));
}

api::LimitRange ValidLimitRangeNoDefaults() {
  return api::ReadLimitRange(LimitRangeTree(
      "abc", {{"Pod", Compute("50m", "2Mi"), Compute("200m", "4Gi"), {}, {}, {}},
              {"Container", Compute("25m", "1Mi"), Compute("100m", "2Gi"), {}, {}, {}}}));
}

validation::FeatureGates Gates(bool pod_level_resources, bool per_pod_pid_limit = true) {
  validation::FeatureGates gates;
  gates.pod_level_resources = pod_level_resources;
  gates.per_pod_pid_limit = per_pod_pid_limit && pod_level_resources;
  return gates;
}

// Admit then Validate, as the chain does (validation sees the defaulted pod).
std::optional<std::string> AdmitAndValidate(const std::vector<api::LimitRange>& lrs, Node& pod_tree,
                                            const validation::FeatureGates& gates) {
  LimitRanger ranger(lrs, gates);
  ranger.Admit(pod_tree);
  return ranger.Validate(api::ReadPod(pod_tree));
}

std::string Annotation(const Node& pod) {
  const Node* a = pod.FindPath({"metadata", "annotations", kLimitRangerAnnotation});
  return a ? a->scalar : "<none>";
}

std::string Value(const Node& holder, std::string_view list, std::string_view name) {
  const Node* v = holder.FindPath({"resources", list, name});
  return v ? v->scalar : "<none>";
}

const Node& Container(const Node& pod, std::string_view list, std::size_t i) {
  return pod.FindPath({"spec", list})->items[i];
}

// ---------------------------------------------------------------------------------------------
// TestPodLimitFunc: every upstream case, by name. `error` is the message after
// `pods "NAME" is forbidden: `; none means the pod is admitted.

struct PodLimitCase {
  Node pod;
  api::LimitRange limit_range;
  std::optional<std::string> error;
  bool pod_level_resources = false;
};

std::string PodName(const Node& pod) {
  return pod.FindPath({"metadata", "name"})->scalar;
}

void RunPodLimitCases(std::vector<PodLimitCase> cases) {
  for (PodLimitCase& c : cases) {
    std::string name = PodName(c.pod);
    SCOPED_TRACE(name);
    auto got = AdmitAndValidate({c.limit_range}, c.pod, Gates(c.pod_level_resources));
    if (c.error) {
      EXPECT_EQ(got, "pods \"" + name + "\" is forbidden: " + *c.error);
    } else {
      EXPECT_EQ(got, std::nullopt);
    }
  }
}

TEST(LimitRangerPodLimitFunc, UpstreamSuccessCases) {
  std::vector<PodLimitCase> cases;
  auto add = [&](Node pod, api::LimitRange lr, bool plr = false) {
    cases.push_back({std::move(pod), std::move(lr), std::nullopt, plr});
  };
  add(ValidPod("ctr-min-cpu-request", 1, {Compute("100m", ""), None()}),
      CreateLimitRange("Container", Compute("50m", ""), {}, {}, {}, {}));
  add(ValidPod("ctr-min-cpu-request-limit", 1, {Compute("100m", ""), Compute("200m", "")}),
      CreateLimitRange("Container", Compute("50m", ""), {}, {}, {}, {}));
  add(ValidPod("ctr-min-memory-request", 1, {Compute("", "60Mi"), None()}),
      CreateLimitRange("Container", Compute("", "50Mi"), {}, {}, {}, {}));
  add(ValidPod("ctr-min-memory-request-limit", 1, {Compute("", "60Mi"), Compute("", "100Mi")}),
      CreateLimitRange("Container", Compute("", "50Mi"), {}, {}, {}, {}));
  add(ValidPod("ctr-max-cpu-request-limit", 1, {Compute("500m", ""), Compute("1", "")}),
      CreateLimitRange("Container", {}, Compute("2", ""), {}, {}, {}));
  add(ValidPod("ctr-max-cpu-limit", 1, {None(), Compute("1", "")}),
      CreateLimitRange("Container", {}, Compute("2", ""), {}, {}, {}));
  add(ValidPod("ctr-max-mem-request-limit", 1, {Compute("", "250Mi"), Compute("", "500Mi")}),
      CreateLimitRange("Container", {}, Compute("", "1Gi"), {}, {}, {}));
  add(ValidPod("ctr-max-cpu-ratio", 1, {Compute("500m", ""), Compute("750m", "")}),
      CreateLimitRange("Container", {}, {}, {}, {}, Compute("1.5", "")));
  add(ValidPod("ctr-max-mem-limit", 1, {None(), Compute("", "500Mi")}),
      CreateLimitRange("Container", {}, Compute("", "1Gi"), {}, {}, {}));
  add(ValidPod("pod-min-cpu-request", 2, {Compute("75m", ""), None()}),
      CreateLimitRange("Pod", Compute("100m", ""), {}, {}, {}, {}));
  add(ValidPod("pod-min-cpu-request-limit", 2, {Compute("75m", ""), Compute("200m", "")}),
      CreateLimitRange("Pod", Compute("100m", ""), {}, {}, {}, {}));
  add(ValidPod("pod-min-memory-request", 2, {Compute("", "60Mi"), None()}),
      CreateLimitRange("Pod", Compute("", "100Mi"), {}, {}, {}, {}));
  add(ValidPod("pod-min-memory-request-limit", 2, {Compute("", "60Mi"), Compute("", "100Mi")}),
      CreateLimitRange("Pod", Compute("", "100Mi"), {}, {}, {}, {}));
  add(ValidPodInit(ValidPod("pod-init-min-memory-request", 2, {Compute("", "60Mi"), None()}),
                   {{Compute("", "100Mi"), None()}}),
      CreateLimitRange("Pod", Compute("", "100Mi"), {}, {}, {}, {}));
  add(ValidPodInit(ValidPod("pod-init-min-memory-request-limit", 2,
                            {Compute("", "60Mi"), Compute("", "100Mi")}),
                   {{Compute("", "80Mi"), Compute("", "100Mi")}}),
      CreateLimitRange("Pod", Compute("", "100Mi"), {}, {}, {}, {}));
  add(ValidPod("pod-max-cpu-request-limit", 2, {Compute("500m", ""), Compute("1", "")}),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}));
  add(ValidPod("pod-max-cpu-limit", 2, {None(), Compute("1", "")}),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}));
  add(ValidPodInit(
          ValidPod("pod-init-max-cpu-request-limit", 2, {Compute("500m", ""), Compute("1", "")}),
          {{Compute("1", ""), Compute("2", "")}, {Compute("1", ""), Compute("1", "")}}),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}));
  add(ValidPodInit(ValidPod("pod-init-max-cpu-limit", 2, {None(), Compute("1", "")}),
                   {{None(), Compute("2", "")}, {None(), Compute("2", "")}}),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}));
  add(ValidPod("pod-max-mem-request-limit", 2, {Compute("", "250Mi"), Compute("", "500Mi")}),
      CreateLimitRange("Pod", {}, Compute("", "1Gi"), {}, {}, {}));
  add(ValidPod("pod-max-mem-limit", 2, {None(), Compute("", "500Mi")}),
      CreateLimitRange("Pod", {}, Compute("", "1Gi"), {}, {}, {}));
  add(ValidPod("pod-max-mem-ratio", 3, {Compute("", "300Mi"), Compute("", "450Mi")}),
      CreateLimitRange("Pod", {}, Compute("", "2Gi"), {}, {}, Compute("", "1.5")));
  add(ValidPod("ctr-1-min-local-ephemeral-storage-request", 1, {LocalStorage("60Mi"), None()}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}));
  add(ValidPod("ctr-1-min-local-ephemeral-storage-request-limit", 1,
               {LocalStorage("60Mi"), LocalStorage("100Mi")}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}));
  add(ValidPod("ctr-1-max-local-ephemeral-storage-request-limit", 1,
               {LocalStorage("250Mi"), LocalStorage("500Mi")}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}));
  add(ValidPod("ctr-1-max-local-ephemeral-storage-limit", 1, {None(), LocalStorage("500Mi")}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}));
  add(ValidPod("ctr-2-min-local-ephemeral-storage-request", 2, {LocalStorage("60Mi"), None()}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}));
  add(ValidPod("ctr-2-min-local-ephemeral-storage-request-limit", 2,
               {LocalStorage("60Mi"), LocalStorage("100Mi")}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}));
  add(ValidPod("ctr-2-max-local-ephemeral-storage-request-limit", 2,
               {LocalStorage("250Mi"), LocalStorage("500Mi")}),
      CreateLimitRange("Container", {}, LocalStorage("600Mi"), {}, {}, {}));
  add(ValidPod("ctr-2-max-local-ephemeral-storage-limit", 2, {None(), LocalStorage("500Mi")}),
      CreateLimitRange("Container", {}, LocalStorage("600Mi"), {}, {}, {}));
  add(ValidPod("pod-min-local-ephemeral-storage-request", 2, {LocalStorage("60Mi"), None()}),
      CreateLimitRange("Pod", LocalStorage("100Mi"), {}, {}, {}, {}));
  add(ValidPod("pod-min-local-ephemeral-storage-request-limit", 2,
               {LocalStorage("60Mi"), LocalStorage("100Mi")}),
      CreateLimitRange("Pod", LocalStorage("100Mi"), {}, {}, {}, {}));
  add(ValidPodInit(ValidPod("pod-init-min-local-ephemeral-storage-request", 2,
                            {LocalStorage("60Mi"), None()}),
                   {{LocalStorage("100Mi"), None()}}),
      CreateLimitRange("Pod", LocalStorage("100Mi"), {}, {}, {}, {}));
  add(ValidPodInit(ValidPod("pod-init-min-local-ephemeral-storage-request-limit", 2,
                            {LocalStorage("60Mi"), LocalStorage("100Mi")}),
                   {{LocalStorage("80Mi"), LocalStorage("100Mi")}}),
      CreateLimitRange("Pod", LocalStorage("100Mi"), {}, {}, {}, {}));
  add(ValidPod("pod-max-local-ephemeral-storage-request-limit", 2,
               {LocalStorage("250Mi"), LocalStorage("500Mi")}),
      CreateLimitRange("Pod", {}, LocalStorage("1Gi"), {}, {}, {}));
  add(ValidPod("pod-max-local-ephemeral-storage-limit", 2, {None(), LocalStorage("500Mi")}),
      CreateLimitRange("Pod", {}, LocalStorage("1Gi"), {}, {}, {}));
  add(ValidPod("pod-max-local-ephemeral-storage-ratio", 3,
               {LocalStorage("300Mi"), LocalStorage("450Mi")}),
      CreateLimitRange("Pod", {}, LocalStorage("2Gi"), {}, {}, LocalStorage("1.5")));
  add(WithPodLevelResources(ValidPod("pod-level-resources-with-min-max", 3,
                                     {Compute("100m", "60Mi"), Compute("200m", "100Mi")}),
                            {Compute("200m", "180Mi"), Compute("400m", "200Mi")}),
      CreateLimitRange("Pod", {}, Compute("400m", "200Mi"), {}, {}, {}), true);
  add(WithPodLevelResources(
          ValidPod("pod-level-requests-with-min", 3, {Compute("50m", "60Mi"), None()}),
          {Compute("160m", "200Mi"), None()}),
      CreateLimitRange("Pod", Compute("160m", "200Mi"), {}, {}, {}, {}), true);
  add(WithPodLevelResources(
          ValidPod("pod-level-limits-with-max", 3, {None(), Compute("50m", "60Mi")}),
          {None(), Compute("160m", "200Mi")}),
      CreateLimitRange("Pod", {}, Compute("160m", "200Mi"), {}, {}, {}), true);
  ASSERT_EQ(cases.size(), 40u);
  RunPodLimitCases(std::move(cases));
}

TEST(LimitRangerPodLimitFunc, UpstreamErrorCases) {
  std::vector<PodLimitCase> cases;
  auto add = [&](Node pod, api::LimitRange lr, std::string error, bool plr = false) {
    cases.push_back({std::move(pod), std::move(lr), std::move(error), plr});
  };
  add(ValidPod("ctr-min-cpu-request", 1, {Compute("40m", ""), None()}),
      CreateLimitRange("Container", Compute("50m", ""), {}, {}, {}, {}),
      "minimum cpu usage per Container is 50m, but request is 40m");
  add(ValidPod("ctr-min-cpu-request-limit", 1, {Compute("40m", ""), Compute("200m", "")}),
      CreateLimitRange("Container", Compute("50m", ""), {}, {}, {}, {}),
      "minimum cpu usage per Container is 50m, but request is 40m");
  add(ValidPod("ctr-min-cpu-no-request-limit", 1, {None(), None()}),
      CreateLimitRange("Container", Compute("50m", ""), {}, {}, {}, {}),
      "minimum cpu usage per Container is 50m.  No request is specified");
  add(ValidPod("ctr-min-memory-request", 1, {Compute("", "40Mi"), None()}),
      CreateLimitRange("Container", Compute("", "50Mi"), {}, {}, {}, {}),
      "minimum memory usage per Container is 50Mi, but request is 40Mi");
  add(ValidPod("ctr-min-memory-request-limit", 1, {Compute("", "40Mi"), Compute("", "100Mi")}),
      CreateLimitRange("Container", Compute("", "50Mi"), {}, {}, {}, {}),
      "minimum memory usage per Container is 50Mi, but request is 40Mi");
  add(ValidPod("ctr-min-memory-no-request-limit", 1, {None(), None()}),
      CreateLimitRange("Container", Compute("", "50Mi"), {}, {}, {}, {}),
      "minimum memory usage per Container is 50Mi.  No request is specified");
  add(ValidPod("ctr-max-cpu-request-limit", 1, {Compute("500m", ""), Compute("2500m", "")}),
      CreateLimitRange("Container", {}, Compute("2", ""), {}, {}, {}),
      "maximum cpu usage per Container is 2, but limit is 2500m");
  add(ValidPod("ctr-max-cpu-limit", 1, {None(), Compute("2500m", "")}),
      CreateLimitRange("Container", {}, Compute("2", ""), {}, {}, {}),
      "maximum cpu usage per Container is 2, but limit is 2500m");
  add(ValidPod("ctr-max-cpu-no-request-limit", 1, {None(), None()}),
      CreateLimitRange("Container", {}, Compute("2", ""), {}, {}, {}),
      "maximum cpu usage per Container is 2.  No limit is specified");
  add(ValidPod("ctr-max-cpu-ratio", 1, {Compute("1250m", ""), Compute("2500m", "")}),
      CreateLimitRange("Container", {}, {}, {}, {}, Compute("1", "")),
      "cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000");
  add(ValidPod("ctr-max-mem-request-limit", 1, {Compute("", "250Mi"), Compute("", "2Gi")}),
      CreateLimitRange("Container", {}, Compute("", "1Gi"), {}, {}, {}),
      "maximum memory usage per Container is 1Gi, but limit is 2Gi");
  add(ValidPod("ctr-max-mem-limit", 1, {None(), Compute("", "2Gi")}),
      CreateLimitRange("Container", {}, Compute("", "1Gi"), {}, {}, {}),
      "maximum memory usage per Container is 1Gi, but limit is 2Gi");
  add(ValidPod("ctr-max-mem-no-request-limit", 1, {None(), None()}),
      CreateLimitRange("Container", {}, Compute("", "1Gi"), {}, {}, {}),
      "maximum memory usage per Container is 1Gi.  No limit is specified");
  add(ValidPod("pod-min-cpu-request", 1, {Compute("75m", ""), None()}),
      CreateLimitRange("Pod", Compute("100m", ""), {}, {}, {}, {}),
      "minimum cpu usage per Pod is 100m, but request is 75m");
  add(ValidPod("pod-min-cpu-request-limit", 1, {Compute("75m", ""), Compute("200m", "")}),
      CreateLimitRange("Pod", Compute("100m", ""), {}, {}, {}, {}),
      "minimum cpu usage per Pod is 100m, but request is 75m");
  add(ValidPod("pod-min-memory-request", 1, {Compute("", "60Mi"), None()}),
      CreateLimitRange("Pod", Compute("", "100Mi"), {}, {}, {}, {}),
      "minimum memory usage per Pod is 100Mi, but request is 60Mi");
  add(ValidPod("pod-min-memory-request-limit", 1, {Compute("", "60Mi"), Compute("", "100Mi")}),
      CreateLimitRange("Pod", Compute("", "100Mi"), {}, {}, {}, {}),
      "minimum memory usage per Pod is 100Mi, but request is 60Mi");
  add(ValidPod("pod-max-cpu-request-limit", 3, {Compute("500m", ""), Compute("1", "")}),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}),
      "maximum cpu usage per Pod is 2, but limit is 3");
  add(ValidPod("pod-max-cpu-limit", 3, {None(), Compute("1", "")}),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}),
      "maximum cpu usage per Pod is 2, but limit is 3");
  add(ValidPod("pod-max-mem-request-limit", 3, {Compute("", "250Mi"), Compute("", "500Mi")}),
      CreateLimitRange("Pod", {}, Compute("", "1Gi"), {}, {}, {}),
      "maximum memory usage per Pod is 1Gi, but limit is 1500Mi");
  add(ValidPod("pod-max-mem-limit", 3, {None(), Compute("", "500Mi")}),
      CreateLimitRange("Pod", {}, Compute("", "1Gi"), {}, {}, {}),
      "maximum memory usage per Pod is 1Gi, but limit is 1500Mi");
  add(ValidPodInit(ValidPod("pod-init-max-mem-limit", 1, {None(), Compute("", "500Mi")}),
                   {{None(), Compute("", "1.5Gi")}}),
      CreateLimitRange("Pod", {}, Compute("", "1Gi"), {}, {}, {}),
      "maximum memory usage per Pod is 1Gi, but limit is 1536Mi");
  add(ValidPod("pod-max-mem-ratio", 3, {Compute("", "250Mi"), Compute("", "500Mi")}),
      CreateLimitRange("Pod", {}, Compute("", "2Gi"), {}, {}, Compute("", "1.5")),
      "memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000");
  add(ValidPod("ctr-1-min-local-ephemeral-storage-request", 1, {LocalStorage("40Mi"), None()}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi");
  add(ValidPod("ctr-1-min-local-ephemeral-storage-request-limit", 1,
               {LocalStorage("40Mi"), LocalStorage("100Mi")}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi");
  add(ValidPod("ctr-1-min-local-ephemeral-storage-no-request-limit", 1, {None(), None()}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Container is 50Mi.  No request is specified");
  add(ValidPod("ctr-1-max-local-ephemeral-storage-request-limit", 1,
               {LocalStorage("250Mi"), LocalStorage("2Gi")}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi");
  add(ValidPod("ctr-1-max-local-ephemeral-storage-limit", 1, {None(), LocalStorage("2Gi")}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi");
  add(ValidPod("ctr-1-max-local-ephemeral-storage-no-request-limit", 1, {None(), None()}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Container is 1Gi.  No limit is specified");
  // Two identical containers violate the same rule twice; the aggregate keeps one message.
  add(ValidPod("ctr-2-min-local-ephemeral-storage-request", 2, {LocalStorage("40Mi"), None()}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi");
  add(ValidPod("ctr-2-min-local-ephemeral-storage-request-limit", 2,
               {LocalStorage("40Mi"), LocalStorage("100Mi")}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi");
  add(ValidPod("ctr-2-min-local-ephemeral-storage-no-request-limit", 2, {None(), None()}),
      CreateLimitRange("Container", LocalStorage("50Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Container is 50Mi.  No request is specified");
  add(ValidPod("ctr-2-max-local-ephemeral-storage-request-limit", 2,
               {LocalStorage("250Mi"), LocalStorage("2Gi")}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi");
  add(ValidPod("ctr-2-max-local-ephemeral-storage-limit", 2, {None(), LocalStorage("2Gi")}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi");
  add(ValidPod("ctr-2-max-local-ephemeral-storage-no-request-limit", 2, {None(), None()}),
      CreateLimitRange("Container", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Container is 1Gi.  No limit is specified");
  add(ValidPod("pod-min-local-ephemeral-storage-request", 1, {LocalStorage("60Mi"), None()}),
      CreateLimitRange("Pod", LocalStorage("100Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Pod is 100Mi, but request is 60Mi");
  add(ValidPod("pod-min-local-ephemeral-storage-request-limit", 1,
               {LocalStorage("60Mi"), LocalStorage("100Mi")}),
      CreateLimitRange("Pod", LocalStorage("100Mi"), {}, {}, {}, {}),
      "minimum ephemeral-storage usage per Pod is 100Mi, but request is 60Mi");
  add(ValidPod("pod-max-local-ephemeral-storage-request-limit", 3,
               {LocalStorage("250Mi"), LocalStorage("500Mi")}),
      CreateLimitRange("Pod", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1500Mi");
  add(ValidPod("pod-max-local-ephemeral-storage-limit", 3, {None(), LocalStorage("500Mi")}),
      CreateLimitRange("Pod", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1500Mi");
  add(ValidPodInit(ValidPod("pod-init-max-local-ephemeral-storage-limit", 1,
                            {None(), LocalStorage("500Mi")}),
                   {{None(), LocalStorage("1.5Gi")}}),
      CreateLimitRange("Pod", {}, LocalStorage("1Gi"), {}, {}, {}),
      "maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1536Mi");
  add(ValidPod("pod-max-local-ephemeral-storage-ratio", 3,
               {LocalStorage("250Mi"), LocalStorage("500Mi")}),
      CreateLimitRange("Pod", {}, LocalStorage("2Gi"), {}, {}, LocalStorage("1.5")),
      "ephemeral-storage max limit to request ratio per Pod is 1500m, but provided ratio is "
      "2.000000");
  // The sidecar's request adds to the running containers': 1 + 1500m.
  add(WithRestartableInitContainer(Compute("1500m", ""), {},
                                   ValidPod("ctr-max-cpu-limit-restartable-init-container", 1,
                                            {Compute("1000m", ""), Compute("1500m", "")})),
      CreateLimitRange("Pod", {}, Compute("2", ""), {}, {}, {}),
      "maximum cpu usage per Pod is 2, but request is 2500m");
  add(WithPodLevelResources(ValidPod("pod-level-resources-exceeding-max", 3,
                                     {Compute("100m", "60Mi"), Compute("200m", "100Mi")}),
                            {Compute("200m", "180Mi"), Compute("500m", "280Mi")}),
      CreateLimitRange("Pod", {}, Compute("400m", "200Mi"), {}, {}, {}),
      "[maximum cpu usage per Pod is 400m, but limit is 500m, maximum memory usage per Pod is "
      "200Mi, but limit is 280Mi]",
      true);
  add(WithPodLevelResources(
          ValidPod("pod-level-requests-less-than-min", 3, {Compute("50m", "60Mi"), None()}),
          {Compute("100m", "200Mi"), None()}),
      CreateLimitRange("Pod", Compute("160m", "200Mi"), {}, {}, {}, {}),
      "minimum cpu usage per Pod is 160m, but request is 100m", true);
  add(WithPodLevelResources(
          ValidPod("pod-level-limits-exceeding-max", 3, {None(), Compute("50m", "60Mi")}),
          {None(), Compute("160m", "300Mi")}),
      CreateLimitRange("Pod", {}, Compute("160m", "200Mi"), {}, {}, {}),
      "maximum memory usage per Pod is 200Mi, but limit is 300Mi", true);
  ASSERT_EQ(cases.size(), 45u);
  RunPodLimitCases(std::move(cases));
}

// Upstream's unit tests skip API defaulting of the LimitRange; on a real cluster a Container
// item's max becomes the default limit and request, so pods without resources are admitted.
TEST(LimitRangerPodLimitFunc, ApiDefaultedLimitRangeAdmitsWhatTheRawOneRejects) {
  struct Case {
    std::string name;
    ItemSpec item;
    Requirements resources;
    std::optional<std::string> error;
  };
  std::vector<Case> cases = {
      {"ctr-max-cpu-no-request-limit", {"Container", {}, Compute("2", ""), {}, {}, {}}, {}, {}},
      {"ctr-max-mem-no-request-limit", {"Container", {}, Compute("", "1Gi"), {}, {}, {}}, {}, {}},
      {"ctr-min-cpu-no-request-limit",
       {"Container", Compute("50m", ""), {}, {}, {}, {}},
       {},
       std::nullopt},
      {"ctr-1-max-local-ephemeral-storage-no-request-limit",
       {"Container", {}, LocalStorage("1Gi"), {}, {}, {}},
       {},
       std::nullopt},
      // Defaulting fills only what is missing: a limit above max still fails.
      {"ctr-max-cpu-limit",
       {"Container", {}, Compute("2", ""), {}, {}, {}},
       {None(), Compute("2500m", "")},
       "maximum cpu usage per Container is 2, but limit is 2500m"},
      // Pod items get no defaults, so this one is still rejected.
      {"pod-min-cpu-no-request",
       {"Pod", Compute("100m", ""), {}, {}, {}, {}},
       {},
       "minimum cpu usage per Pod is 100m.  No request is specified"},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    Node pod = ValidPod(c.name, 1, c.resources);
    auto got = AdmitAndValidate({DefaultedLimitRange("abc", {c.item})}, pod, Gates(true));
    if (c.error) {
      EXPECT_EQ(got, "pods \"" + c.name + "\" is forbidden: " + *c.error);
    } else {
      EXPECT_EQ(got, std::nullopt);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Mutation: defaults and the annotation.

TEST(LimitRangerAdmit, DefaultContainerResourceRequirements) {
  // TestDefaultContainerResourceRequirements / TestPodLimitFuncApplyDefault.
  Node pod = ValidPodInit(ValidPod("foo", 1, {}), {Requirements{}});
  LimitRanger({ValidLimitRange()}, Gates(true)).Admit(pod);
  for (std::string_view list : {"containers", "initContainers"}) {
    SCOPED_TRACE(list);
    const Node& c = Container(pod, list, 0);
    EXPECT_EQ(Value(c, "limits", "memory"), "10Mi");
    EXPECT_EQ(Value(c, "limits", "cpu"), "75m");
    EXPECT_EQ(Value(c, "requests", "memory"), "5Mi");
    EXPECT_EQ(Value(c, "requests", "cpu"), "50m");
  }
  EXPECT_EQ(Annotation(pod),
            "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit "
            "for container foo-0; cpu, memory request for init container foo-0; cpu, memory "
            "limit for init container foo-0");
}

TEST(LimitRangerAdmit, MergePodResourceRequirements) {
  struct Case {
    std::string name;
    Node pod;
    std::string annotation;  // "<none>" when it must not be set
    // Expected values after the merge, container 0 and (if any) init container 0.
    Entries requests, limits, init_requests, init_limits;
  };
  std::vector<Case> cases;
  cases.push_back({"empty-resources",
                   ValidPod("empty-resources", 1, {}),
                   "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory "
                   "limit for container foo-0",
                   Compute("50m", "5Mi"),
                   Compute("75m", "10Mi"),
                   {},
                   {}});
  // Only what is missing is merged, in the init container too. (Upstream's version of this case
  // expects no init-container entries only because its test pod shares one Go map between the
  // container and the init container; decoded pods never share maps.)
  cases.push_back({"limit-memory",
                   ValidPodInit(ValidPod("limit-memory", 1, {Compute("", "512Mi"), None()}),
                                {{Compute("", "512Mi"), None()}}),
                   "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for "
                   "container foo-0; cpu request for init container foo-0; cpu, memory limit for "
                   "init container foo-0",
                   Compute("50m", "512Mi"), Compute("75m", "10Mi"), Compute("50m", "512Mi"),
                   Compute("75m", "10Mi")});
  cases.push_back(
      {"all-resources-enumerated",
       ValidPodInit(ValidPod("limit-memory", 1, {Compute("100m", "512Mi"), Compute("200m", "1G")}),
                    {{Compute("200m", "1G"), Compute("400m", "2G")}}),
       "<none>", Compute("100m", "512Mi"), Compute("200m", "1G"), Compute("200m", "1G"),
       Compute("400m", "2G")});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    LimitRanger({ValidLimitRange()}, Gates(true)).Admit(c.pod);
    EXPECT_EQ(Annotation(c.pod), c.annotation);
    for (const auto& [name, value] : c.requests) {
      EXPECT_EQ(Value(Container(c.pod, "containers", 0), "requests", name), value);
    }
    for (const auto& [name, value] : c.limits) {
      EXPECT_EQ(Value(Container(c.pod, "containers", 0), "limits", name), value);
    }
    for (const auto& [name, value] : c.init_requests) {
      EXPECT_EQ(Value(Container(c.pod, "initContainers", 0), "requests", name), value);
    }
    for (const auto& [name, value] : c.init_limits) {
      EXPECT_EQ(Value(Container(c.pod, "initContainers", 0), "limits", name), value);
    }
  }
}

TEST(LimitRangerAdmit, AnnotationRules) {
  struct Case {
    std::string name;
    std::vector<api::LimitRange> lrs;
    Node pod;
    std::string annotation;
  };
  auto with_annotation = [](Node pod, const std::string& value) {
    pod.Ensure("metadata").Ensure("annotations").Set(kLimitRangerAnnotation, Node::String(value));
    return pod;
  };
  api::LimitRange cpu_lr = api::ReadLimitRange(
      LimitRangeTree("cpu", {{"Container", {}, {}, Compute("1", ""), Compute("500m", ""), {}}}));
  api::LimitRange memory_lr = api::ReadLimitRange(
      LimitRangeTree("mem", {{"Container", {}, {}, Compute("", "1Gi"), {}, {}}}));
  std::vector<Case> cases;
  cases.push_back({"nothing set leaves an existing annotation alone",
                   {cpu_lr},
                   with_annotation(ValidPod("p", 1, {Compute("1", ""), Compute("1", "")}), "old"),
                   "old"});
  cases.push_back({"something set replaces an existing annotation",
                   {cpu_lr},
                   with_annotation(ValidPod("p", 1, {Compute("1", ""), None()}), "old"),
                   "LimitRanger plugin set: cpu limit for container foo-0"});
  cases.push_back({"request entry before limit entry, containers in spec order",
                   {cpu_lr},
                   ValidPod("p", 2, {}),
                   "LimitRanger plugin set: cpu request for container foo-0; cpu limit for "
                   "container foo-0; cpu request for container foo-1; cpu limit for container "
                   "foo-1"});
  cases.push_back(
      {"sidecars are init containers",
       {cpu_lr},
       WithRestartableInitContainer({}, {}, ValidPod("p", 1, {Compute("1", ""), Compute("1", "")})),
       "LimitRanger plugin set: cpu request for init container foo-0; cpu limit for "
       "init container foo-0"});
  // Each LimitRange that sets something replaces the annotation: the last one wins.
  cases.push_back({"the last LimitRange that set something names the annotation",
                   {cpu_lr, memory_lr},
                   ValidPod("p", 1, {}),
                   "LimitRanger plugin set: memory limit for container foo-0"});
  cases.push_back({"a later LimitRange that sets nothing keeps the earlier annotation",
                   {memory_lr, cpu_lr},
                   ValidPod("p", 1, {Compute("1", ""), Compute("1", "")}),
                   "LimitRanger plugin set: memory limit for container foo-0"});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    LimitRanger(c.lrs, Gates(true)).Admit(c.pod);
    EXPECT_EQ(Annotation(c.pod), c.annotation);
  }
}

TEST(LimitRangerAdmit, DefaultsFillOnlyMissingKeys) {
  // Requests and limits are defaulted independently: a request above the default limit stays
  // (pod validation rejects it later; LimitRanger does not reconcile).
  Node pod = ValidPod("p", 1, {Compute("2", ""), None()});
  api::LimitRange lr = api::ReadLimitRange(
      LimitRangeTree("lr", {{"Container", {}, {}, Compute("1", ""), Compute("500m", ""), {}}}));
  LimitRanger({lr}, Gates(true)).Admit(pod);
  EXPECT_EQ(Value(Container(pod, "containers", 0), "requests", "cpu"), "2");
  EXPECT_EQ(Value(Container(pod, "containers", 0), "limits", "cpu"), "1");

  // A present key counts even when its value is 0.
  Node zero = ValidPod("z", 1, {Compute("0", ""), Compute("0", "")});
  LimitRanger({lr}, Gates(true)).Admit(zero);
  EXPECT_EQ(Value(Container(zero, "containers", 0), "limits", "cpu"), "0");
  EXPECT_EQ(Annotation(zero), "<none>");

  // The first LimitRange to default a key wins; later Container items of one LimitRange
  // overwrite earlier ones.
  api::LimitRange first =
      api::ReadLimitRange(LimitRangeTree("a", {{"Container", {}, {}, Compute("1", ""), {}, {}},
                                               {"Container", {}, {}, Compute("3", ""), {}, {}}}));
  api::LimitRange second = api::ReadLimitRange(
      LimitRangeTree("b", {{"Container", {}, {}, Compute("2", "1Gi"), {}, {}}}));
  Node both = ValidPod("b", 1, {});
  LimitRanger({first, second}, Gates(true)).Admit(both);
  EXPECT_EQ(Value(Container(both, "containers", 0), "limits", "cpu"), "3");
  EXPECT_EQ(Value(Container(both, "containers", 0), "limits", "memory"), "1Gi");

  // Any resource name is defaulted: extended resources and hugepages too. Pod items and
  // ephemeral containers are not touched.
  Node ext = ValidPod("e", 1, {});
  ext.Ensure("spec")
      .Ensure("ephemeralContainers", Node::Kind::kArray)
      .items.push_back(ContainerNode("debug", {}));
  api::LimitRange ext_lr = api::ReadLimitRange(
      LimitRangeTree("x", {{"Container",
                            {},
                            {},
                            {{"example.com/gpu", "1"}, {"hugepages-2Mi", "4Mi"}},
                            {{"example.com/gpu", "1"}},
                            {}},
                           {"Pod", {}, Compute("4", ""), {}, {}, {}}}));
  LimitRanger({ext_lr}, Gates(true)).Admit(ext);
  EXPECT_EQ(Value(Container(ext, "containers", 0), "limits", "example.com/gpu"), "1");
  EXPECT_EQ(Value(Container(ext, "containers", 0), "limits", "hugepages-2Mi"), "4Mi");
  EXPECT_EQ(Value(Container(ext, "containers", 0), "requests", "example.com/gpu"), "1");
  EXPECT_EQ(Container(ext, "ephemeralContainers", 0).FindPath({"resources", "limits"}), nullptr);
  EXPECT_EQ(Annotation(ext),
            "LimitRanger plugin set: example.com/gpu request for container foo-0; "
            "example.com/gpu, hugepages-2Mi limit for container foo-0");
  EXPECT_EQ(ext.FindPath({"spec", "resources"}), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Validation: order, aggregation, names, several LimitRanges.

TEST(LimitRangerValidate, UpstreamAdmitPodWithoutResources) {
  // TestLimitRangerAdmitPod / TestLimitRangerIgnoresSubresource: validLimitRangeNoDefaults and a
  // pod without resources. Item order, then min / max blocks, names sorted within a block.
  Node pod = ValidPod("testPod", 1, {});
  EXPECT_EQ(AdmitAndValidate({ValidLimitRangeNoDefaults()}, pod, Gates(true)),
            "pods \"testPod\" is forbidden: [minimum cpu usage per Pod is 50m.  No request is "
            "specified, minimum memory usage per Pod is 2Mi.  No request is specified, maximum "
            "cpu usage per Pod is 200m.  No limit is specified, maximum memory usage per Pod is "
            "4Gi.  No limit is specified, minimum cpu usage per Container is 25m.  No request is "
            "specified, minimum memory usage per Container is 1Mi.  No request is specified, "
            "maximum cpu usage per Container is 100m.  No limit is specified, maximum memory "
            "usage per Container is 2Gi.  No limit is specified]");
  // With the defaults of validLimitRange the same pod is admitted.
  Node defaulted = ValidPod("testPod", 1, {});
  EXPECT_EQ(AdmitAndValidate({ValidLimitRange()}, defaulted, Gates(true)), std::nullopt);
}

TEST(LimitRangerValidate, MessageOrderAndAggregation) {
  struct Case {
    std::string name;
    Node pod;
    std::vector<api::LimitRange> lrs;
    std::optional<std::string> message;
  };
  api::LimitRange ctr = CreateLimitRange("Container", Compute("100m", "100Mi"), Compute("1", "1Gi"),
                                         {}, {}, Compute("2", ""));
  std::vector<Case> cases;
  cases.push_back(
      {"per container: min block, max block, ratio block; containers before init containers",
       ValidPodInit(ValidPod("p", 1, {Compute("50m", "50Mi"), Compute("2", "2Gi")}),
                    {{Compute("500m", "200Mi"), Compute("3", "2Gi")}}),
       {ctr},
       "pods \"p\" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, "
       "minimum memory usage per Container is 100Mi, but request is 50Mi, maximum cpu usage per "
       "Container is 1, but limit is 2, maximum memory usage per Container is 1Gi, but limit is "
       "2Gi, cpu max limit to request ratio per Container is 2, but provided ratio is "
       "40.000000, maximum cpu usage per Container is 1, but limit is 3, cpu max limit to "
       "request ratio per Container is 2, but provided ratio is 6.000000]"});
  cases.push_back({"limit below min is reported when the request is fine",
                   ValidPod("p", 1, {Compute("200m", ""), Compute("50m", "")}),
                   {CreateLimitRange("Container", Compute("100m", ""), {}, {}, {}, {})},
                   "pods \"p\" is forbidden: minimum cpu usage per Container is 100m, but limit "
                   "is 50m"});
  cases.push_back({"request above max is reported when the limit is fine",
                   ValidPod("p", 1, {Compute("3", ""), Compute("1", "")}),
                   {CreateLimitRange("Container", {}, Compute("2", ""), {}, {}, {})},
                   "pods \"p\" is forbidden: maximum cpu usage per Container is 2, but request "
                   "is 3"});
  cases.push_back({"equality passes everywhere",
                   ValidPod("p", 1, {Compute("100m", ""), Compute("200m", "")}),
                   {CreateLimitRange("Container", Compute("100m", ""), Compute("200m", ""), {}, {},
                                     Compute("2", ""))},
                   std::nullopt});
  cases.push_back({"ratio with a zero request",
                   ValidPod("p", 1, {Compute("0", ""), Compute("1", "")}),
                   {CreateLimitRange("Container", {}, {}, {}, {}, Compute("2", ""))},
                   "pods \"p\" is forbidden: cpu max limit to request ratio per Container is 2, "
                   "but no request is specified or request is 0"});
  cases.push_back({"ratio with a zero limit",
                   ValidPod("p", 1, {Compute("1", ""), Compute("0", "")}),
                   {CreateLimitRange("Container", {}, {}, {}, {}, Compute("2", ""))},
                   "pods \"p\" is forbidden: cpu max limit to request ratio per Container is 2, "
                   "but no limit is specified or limit is 0"});
  cases.push_back({"a zero request is present for min",
                   ValidPod("p", 1, {Compute("0", ""), None()}),
                   {CreateLimitRange("Container", Compute("100m", ""), {}, {}, {}, {})},
                   "pods \"p\" is forbidden: minimum cpu usage per Container is 100m, but "
                   "request is 0"});
  // the plugin enforces any resource name, extended resources and hugepages included.
  cases.push_back(
      {"extended resources and hugepages",
       ValidPod("p", 1,
                {{{"example.com/gpu", "3"}}, {{"example.com/gpu", "3"}, {"hugepages-2Mi", "8Mi"}}}),
       {CreateLimitRange("Container", {}, {{"example.com/gpu", "2"}, {"hugepages-2Mi", "4Mi"}}, {},
                         {}, {})},
       "pods \"p\" is forbidden: [maximum example.com/gpu usage per Container is 2, "
       "but limit is 3, maximum hugepages-2Mi usage per Container is 4Mi, but limit is "
       "8Mi]"});
  // Items of other types do not apply to pods.
  cases.push_back({"PersistentVolumeClaim and custom items are ignored",
                   ValidPod("p", 1, {}),
                   {api::ReadLimitRange(LimitRangeTree(
                       "abc", {{"PersistentVolumeClaim", {{"storage", "1Gi"}}, {}, {}, {}, {}},
                               {"example.com/custom", Compute("1", ""), {}, {}, {}, {}}}))},
                   std::nullopt});
  // The first LimitRange that rejects decides; later ones are not consulted.
  cases.push_back({"first rejecting LimitRange wins",
                   ValidPod("p", 1, {Compute("50m", ""), Compute("5", "")}),
                   {CreateLimitRange("Container", {}, Compute("10", ""), {}, {}, {}),
                    CreateLimitRange("Container", Compute("100m", ""), {}, {}, {}, {}),
                    CreateLimitRange("Container", {}, Compute("1", ""), {}, {}, {})},
                   "pods \"p\" is forbidden: minimum cpu usage per Container is 100m, but "
                   "request is 50m"});
  // Ephemeral containers are never checked.
  {
    Node pod = ValidPod("p", 1, {Compute("1", ""), Compute("1", "")});
    pod.Ensure("spec")
        .Ensure("ephemeralContainers", Node::Kind::kArray)
        .items.push_back(ContainerNode("debug", {}));
    cases.push_back(
        {"ephemeral containers are ignored",
         std::move(pod),
         {CreateLimitRange("Container", Compute("1", ""), Compute("1", ""), {}, {}, {})},
         std::nullopt});
  }
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AdmitAndValidate(c.lrs, c.pod, Gates(true)), c.message);
  }
}

TEST(LimitRangerValidate, PodNameInMessage) {
  api::LimitRange lr = CreateLimitRange("Container", {}, Compute("1", ""), {}, {}, {});
  Node named = ValidPod("web", 1, {});
  EXPECT_EQ(AdmitAndValidate({lr}, named, Gates(true)),
            "pods \"web\" is forbidden: maximum cpu usage per Container is 1.  No limit is "
            "specified");
  // Validate runs after the registry generated the name (the chain does that before calling
  // it), so a generateName pod is named by its generated name.
  Node generated = ValidPod("web-x7k2p", 1, {});
  generated.Ensure("metadata").Set("generateName", Node::String("web-"));
  EXPECT_EQ(AdmitAndValidate({lr}, generated, Gates(true)),
            "pods \"web-x7k2p\" is forbidden: maximum cpu usage per Container is 1.  No limit "
            "is specified");
  // admission.NewForbidden's own fallbacks (extractResourceName) for an object without a
  // name, which the chain never hands over: its generateName, else "Unknown".
  Node ungenerated = ValidPod("", 1, {});
  ungenerated.Ensure("metadata").Erase("name");
  ungenerated.Ensure("metadata").Set("generateName", Node::String("web-"));
  EXPECT_EQ(AdmitAndValidate({lr}, ungenerated, Gates(true)),
            "pods \"web-\" is forbidden: maximum cpu usage per Container is 1.  No limit is "
            "specified");
  Node nameless = ValidPod("", 1, {});
  nameless.Ensure("metadata").Erase("name");
  EXPECT_EQ(AdmitAndValidate({lr}, nameless, Gates(true)),
            "pods \"Unknown\" is forbidden: maximum cpu usage per Container is 1.  No limit is "
            "specified");
}

// ---------------------------------------------------------------------------------------------
// Pod aggregates: sums, sidecars, init containers, pod-level resources.

TEST(LimitRangerPodAggregates, RequestsAndLimits) {
  struct Case {
    std::string name;
    Node pod;
    bool pod_level_resources;
    Entries requests;  // expected aggregate, canonical strings, sorted by name
    Entries limits;
  };
  std::vector<Case> cases;
  // a container lacking a key contributes nothing; it does not drop the key.
  cases.push_back({"sum over the containers that have the key",
                   [] {
                     Node pod = ValidPod("p", 1, {Compute("500m", "1Gi"), Compute("1", "")});
                     pod.Find("spec")
                         ->Find("containers")
                         ->items.push_back(ContainerNode("b", {Compute("500m", "512Mi"), None()}));
                     pod.Find("spec")
                         ->Find("containers")
                         ->items.push_back(
                             ContainerNode("c", {Compute("500m", ""), Compute("", "1Gi")}));
                     return pod;
                   }(),
                   false,
                   {{"cpu", "1500m"}, {"memory", "1536Mi"}},
                   {{"cpu", "1"}, {"memory", "1Gi"}}});
  cases.push_back(
      {"plain init containers: the larger of the sum and the biggest init container",
       ValidPodInit(ValidPod("p", 2, {Compute("250m", "100Mi"), None()}),
                    {{Compute("1", "50Mi"), None()}, {Compute("300m", "300Mi"), None()}}),
       false,
       {{"cpu", "1"}, {"memory", "300Mi"}},
       {}});
  // Sidecar S1 (200m), init I (1), sidecar S2 (300m), containers 100m:
  // total = 100m + 200m + 300m = 600m; init peak = max(S1, I + S1, S1 + S2) = 1200m.
  cases.push_back({"init container runs beside the sidecars started before it",
                   [] {
                     Node pod = ValidPod("p", 1, {Compute("100m", ""), None()});
                     pod = WithRestartableInitContainer(Compute("200m", ""), {}, std::move(pod));
                     Node& inits = InitContainers(pod);
                     inits.items.push_back(ContainerNode("init", {Compute("1", ""), None()}));
                     return WithRestartableInitContainer(Compute("300m", ""), {}, std::move(pod));
                   }(),
                   false,
                   {{"cpu", "1200m"}},
                   {}});
  cases.push_back(
      {"sidecars add to the running total",
       WithRestartableInitContainer(Compute("1", "1Gi"), Compute("2", "2Gi"),
                                    ValidPod("p", 1, {Compute("1", "1Gi"), Compute("2", "2Gi")})),
       false,
       {{"cpu", "2"}, {"memory", "2Gi"}},
       {{"cpu", "4"}, {"memory", "4Gi"}}});
  // PodLevelResources: pod-level cpu and memory replace the aggregate, key by key; pod-level
  // hugepages are ignored (upstream #141247); other keys keep the aggregate.
  cases.push_back(
      {"pod-level values override cpu and memory only",
       WithPodLevelResources(ValidPod("p", 2,
                                      {{{"cpu", "100m"}, {"ephemeral-storage", "1Gi"}},
                                       {{"cpu", "200m"}, {"hugepages-2Mi", "2Mi"}}}),
                             {Compute("1", ""), {{"cpu", "2"}, {"hugepages-2Mi", "8Mi"}}}),
       true,
       {{"cpu", "1"}, {"ephemeral-storage", "2Gi"}},
       {{"cpu", "2"}, {"hugepages-2Mi", "4Mi"}}});
  cases.push_back({"pod-level values are ignored with PodLevelResources off",
                   WithPodLevelResources(ValidPod("p", 2, {Compute("100m", ""), None()}),
                                         {Compute("1", ""), None()}),
                   false,
                   {{"cpu", "200m"}},
                   {}});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod = api::ReadPod(c.pod);
    auto render = [](const ResourceList& list) {
      Entries out;
      for (const auto& [name, q] : list) out.emplace_back(name, q.String());
      return out;
    };
    EXPECT_EQ(render(PodRequests(pod, c.pod_level_resources)), c.requests);
    EXPECT_EQ(render(PodLimits(pod, c.pod_level_resources, c.pod_level_resources)), c.limits);
  }
}

TEST(LimitRangerPodAggregates, PodLevelResourcesGateDecidesWhatIsChecked) {
  // pod-level-resources-exceeding-max with the gate off: the container sums are checked.
  Node pod = WithPodLevelResources(ValidPod("pod-level-resources-exceeding-max", 3,
                                            {Compute("100m", "60Mi"), Compute("200m", "100Mi")}),
                                   {Compute("200m", "180Mi"), Compute("500m", "280Mi")});
  EXPECT_EQ(AdmitAndValidate({CreateLimitRange("Pod", {}, Compute("400m", "200Mi"), {}, {}, {})},
                             pod, Gates(false)),
            "pods \"pod-level-resources-exceeding-max\" is forbidden: [maximum cpu usage per Pod "
            "is 400m, but limit is 600m, maximum memory usage per Pod is 200Mi, but limit is "
            "300Mi]");
  // Container items never look at pod-level resources.
  Node ctr = WithPodLevelResources(ValidPod("ctr", 1, {None(), Compute("2", "")}),
                                   {None(), Compute("1", "")});
  EXPECT_EQ(AdmitAndValidate({CreateLimitRange("Container", {}, Compute("1", ""), {}, {}, {})}, ctr,
                             Gates(true)),
            "pods \"ctr\" is forbidden: maximum cpu usage per Container is 1, but limit is 2");
}

// ---------------------------------------------------------------------------------------------
// Exact comparison (upstream PR #141348): the constraint functions directly.

TEST(LimitRangerExactComparison, LimitRequestRatioConstraint) {
  // TestLimitRequestRatioConstraint / TestLimitRangerRatioIsExact, plus X-19.
  struct Case {
    std::string desc, request, limit, max_ratio;
    std::optional<std::string> error;
  };
  auto msg = [](const std::string& max, const std::string& ratio) {
    return "memory max limit to request ratio per Container is " + max +
           ", but provided ratio is " + ratio;
  };
  std::vector<Case> cases = {
      {"ratio under the maximum", "1", "1", "2", {}},
      {"ratio at the maximum", "1", "2", "2", {}},
      {"ratio above the maximum", "1", "3", "2", msg("2", "3.000000")},
      {"ratio at the maximum past float64", "1e400", "2e400", "2", {}},
      {"ratio above the maximum with the limit past float64", "1e308", "3e308", "2",
       msg("2", "3.000000")},
      {"ratio above the maximum with both operands past float64", "1e400", "3e400", "2",
       msg("2", "3.000000")},
      {"ratio under the maximum with both operands negative", "-1", "-1", "2", {}},
      {"ratio above the maximum with both operands negative", "-1", "-3", "2",
       msg("2", "3.000000")},
      {"ratio above the maximum with only the request negative", "-1", "3", "2",
       msg("2", "3.000000")},
      {"ratio above the maximum with only the limit negative", "1", "-3", "2",
       msg("2", "3.000000")},
      {"ratio with operands at different scales", "1", "1500m", "1", msg("1", "1.500000")},
      {"ratio too large to print in full", "1", "1e2147483647", "2",
       msg("2", "1.000000e2147483647")},
      {"ratio whose coefficients differ in width", "10000000", "1e50", "2",
       msg("2", "1.000000e43")},
      {"same ratio with the request written as an exponent", "1e7", "1e50", "2",
       msg("2", "1.000000e43")},
      {"small ratio whose operands are at far apart scales", "10000000", "3e50", "2",
       msg("2", "3.000000e43")},
      {"small ratio that needs no exponent once normalized",
       "100000000000000000000000000000000000000000000000000", "3e50", "2", msg("2", "3.000000")},
      {"ratio just below the rounding boundary", "10000000", "99999994e50", "2",
       msg("2", "9.999999e50")},
      {"ratio whose mantissa carries to ten", "10000000", "99999999e50", "2",
       msg("2", "1.000000e51")},
      {"ratio at the rounding tie with an odd digit kept", "10000000", "99999995e50", "2",
       msg("2", "1.000000e51")},
      {"ratio at the rounding tie with an even digit kept", "10000000", "99999985e50", "2",
       msg("2", "9.999998e50")},
      {"ratio whose coefficient quotient is below one", "5", "1e50", "2", msg("2", "2.000000e49")},
      {"ratio whose limit coefficient is the wider of the two", "1", "12345678e50", "2",
       msg("2", "1.234568e57")},
      {"ratio at the last scale gap the plain form covers", "1", "1e40", "2",
       msg("2", "10000000000000000000000000000000000000000.000000")},
      {"ratio one scale gap past the plain form", "1", "1e41", "2", msg("2", "1.000000e41")},
      {"ratio at the last negative scale gap the plain form covers", "1e31",
       "10000000000000000000000000000000000000001", "2", msg("2", "1000000000.000000")},
      // TestLimitRangerRatioIsExact.
      {"exact: ratio at the maximum", "100", "200", "2", {}},
      {"exact: limit whose projection wraps negative", "1", "9223372036854775809", "2",
       msg("2", "9223372036854775809.000000")},
      {"exact: equal request and limit at 2^63",
       "9223372036854775808",
       "9223372036854775808",
       "1",
       {}},
      {"exact: equal request and limit at 2^64",
       "18446744073709551616",
       "18446744073709551616",
       "1",
       {}},
      {"exact: ratio at the maximum past 2^63",
       "9223372036854775808",
       "18446744073709551616",
       "2",
       {}},
      {"exact: ratio above the maximum past 2^63", "9223372036854775808", "27670116110564327424",
       "2", msg("2", "3.000000")},
      {"exact: one unit below the maximum", "9007199254740992", "18014398509481983", "2", {}},
      {"exact: exactly at the maximum", "9007199254740992", "18014398509481984", "2", {}},
      {"exact: one unit above the maximum", "9007199254740992", "18014398509481985", "2",
       msg("2", "2.000000")},
      {"exact: well under a suffixed maximum at the largest exponent",
       "1e2147483647",
       "1e2147483647",
       "1k",
       {}},
      {"exact: at a suffixed maximum at the largest exponent",
       "1e2147483647",
       "1000e2147483647",
       "1k",
       {}},
      {"exact: above a suffixed maximum at the largest exponent", "1e2147483647",
       "10000e2147483647", "1k", msg("1k", "10000.000000")},
      // float64 made 2007m / 1 * 1000 = 2007.0000000000002 > 2007; exactly it is equal.
      {"X-19 exact tie that float64 rejected", "1", "2007m", "2.007", {}},
      // TestConstraintsRejectValuesTheProjectionRounded.
      {"ratio a fraction above the maximum", "1.0001", "2.001", "2", msg("2", "2.000800")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.desc);
    auto parse = [](const std::string& s) {
      auto q = Quantity::Parse(s);
      EXPECT_TRUE(q.has_value()) << s;
      return q.value_or(Quantity());
    };
    ResourceList requests = {{"memory", parse(c.request)}};
    ResourceList limits = {{"memory", parse(c.limit)}};
    EXPECT_EQ(
        LimitRequestRatioConstraint("Container", "memory", parse(c.max_ratio), requests, limits),
        c.error);
  }
}

TEST(LimitRangerExactComparison, MinAndMaxAreOverflowSafe) {
  // TestConstraintsAreOverflowSafe / TestConstraintsRejectValuesTheProjectionRounded.
  auto q = [](const char* s) { return Quantity::Parse(s).value(); };
  ResourceList none;
  ResourceList huge = {{"memory", q("18446744073709551616")}};
  ResourceList small = {{"memory", q("1")}};
  EXPECT_EQ(MaxConstraint("Container", "memory", q("1000"), none, huge),
            "maximum memory usage per Container is 1k, but limit is 18446744073709551616");
  EXPECT_EQ(MinConstraint("Container", "memory", q("18446744073709551616"), small, none),
            "minimum memory usage per Container is 18446744073709551616, but request is 1");
  EXPECT_EQ(MaxConstraint("Container", "memory", q("1000"), none, small), std::nullopt);
  EXPECT_EQ(MinConstraint("Container", "memory", q("1"), {{"memory", q("0.9999")}}, none),
            "minimum memory usage per Container is 1, but request is 999900u");
  EXPECT_EQ(MaxConstraint("Container", "memory", q("1.0001"), none, {{"memory", q("1.0009")}}),
            "maximum memory usage per Container is 1000100u, but limit is 1000900u");
  // 2^64 would wrap to 0 through Value(); it must still exceed the maximum as a request.
  EXPECT_EQ(MaxConstraint("Container", "memory", q("1000"), huge, {{"memory", q("1")}}),
            "maximum memory usage per Container is 1k, but request is 18446744073709551616");
}

// ---------------------------------------------------------------------------------------------
// The pid extension (KEP-6063 story 2).

api::LimitRange PidLimitRange(const std::string& name, Entries min, Entries max, Entries def) {
  return api::ReadLimitRange(
      LimitRangeTree(name, {{"Pod", std::move(min), std::move(max), std::move(def), {}, {}}}));
}

Entries Pid(const std::string& v) {
  return {{"pid", v}};
}

TEST(LimitRangerPid, DefaultFillsThePodLimit) {
  struct Case {
    std::string name;
    Node pod;
    std::vector<api::LimitRange> lrs;
    validation::FeatureGates gates;
    std::string pid;         // spec.resources.limits.pid after Admit, "<none>" if absent
    std::string annotation;  // "<none>" if absent
  };
  api::LimitRange tenant = PidLimitRange("tenant", {}, Pid("2048"), Pid("2048"));
  api::LimitRange container_defaults = api::ReadLimitRange(LimitRangeTree(
      "both", {{"Container", {}, {}, Compute("500m", "256Mi"), Compute("250m", "128Mi"), {}},
               {"Pod", {}, {}, Pid("2048"), {}, {}}}));
  std::vector<Case> cases;
  cases.push_back({"a pod without a pid limit gets the default",
                   ValidPod("web", 1, {Compute("1", ""), Compute("1", "")}),
                   {tenant},
                   Gates(true),
                   "2048",
                   "LimitRanger plugin set: pid limit for pod"});
  cases.push_back({"a pod's own pid limit is kept",
                   WithPodLevelResources(ValidPod("web", 1, {}), {None(), Pid("1024")}),
                   {tenant},
                   Gates(true),
                   "1024",
                   "<none>"});
  cases.push_back({"pod-level cpu is kept next to the defaulted pid",
                   WithPodLevelResources(ValidPod("web", 1, {}), {None(), Compute("1", "")}),
                   {tenant},
                   Gates(true),
                   "2048",
                   "LimitRanger plugin set: pid limit for pod"});
  cases.push_back({"the pod entry follows the container entries",
                   ValidPodInit(ValidPod("web", 1, {}), {Requirements{}}),
                   {container_defaults},
                   Gates(true),
                   "2048",
                   "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory "
                   "limit for container foo-0; cpu, memory request for init container foo-0; cpu, "
                   "memory limit for init container foo-0; pid limit for pod"});
  cases.push_back({"the first LimitRange with a pid default wins",
                   ValidPod("web", 1, {}),
                   {PidLimitRange("a", {}, {}, Pid("4096")), tenant},
                   Gates(true),
                   "4096",
                   "LimitRanger plugin set: pid limit for pod"});
  cases.push_back({"no default without PerPodPIDLimit",
                   ValidPod("web", 1, {}),
                   {tenant},
                   Gates(true, false),
                   "<none>",
                   "<none>"});
  cases.push_back({"no default without PodLevelResources",
                   ValidPod("web", 1, {}),
                   {tenant},
                   Gates(false),
                   "<none>",
                   "<none>"});
  // A Container item's default.pid is not a pod default (validation rejects it anyway).
  cases.push_back(
      {"Container items do not default the pod",
       ValidPod("web", 1, {Compute("1", ""), Compute("1", "")}),
       {api::ReadLimitRange(LimitRangeTree("c", {{"Container", {}, {}, Pid("2048"), {}, {}}}))},
       Gates(true),
       "<none>",
       "LimitRanger plugin set: pid limit for container foo-0"});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    LimitRanger(c.lrs, c.gates).Admit(c.pod);
    EXPECT_EQ(Value(*c.pod.Find("spec"), "limits", "pid"), c.pid);
    EXPECT_EQ(Annotation(c.pod), c.annotation);
  }
}

TEST(LimitRangerPid, MinAndMaxBoundThePodLimit) {
  struct Case {
    std::string name;
    Node pod;
    std::vector<api::LimitRange> lrs;
    validation::FeatureGates gates;
    std::optional<std::string> message;
  };
  auto pod_with_pid = [](const std::string& pid) {
    return WithPodLevelResources(ValidPod("web", 1, {}), {None(), Pid(pid)});
  };
  std::vector<Case> cases;
  cases.push_back({"within bounds",
                   pod_with_pid("2048"),
                   {PidLimitRange("lr", Pid("1024"), Pid("4096"), {})},
                   Gates(true),
                   {}});
  cases.push_back({"at both bounds",
                   pod_with_pid("2048"),
                   {PidLimitRange("lr", Pid("2048"), Pid("2048"), {})},
                   Gates(true),
                   {}});
  cases.push_back(
      {"above max",
       pod_with_pid("4096"),
       {PidLimitRange("lr", {}, Pid("2048"), {})},
       Gates(true),
       "pods \"web\" is forbidden: maximum pid usage per Pod is 2048, but limit is 4096"});
  cases.push_back(
      {"below min",
       pod_with_pid("512"),
       {PidLimitRange("lr", Pid("1024"), {}, {})},
       Gates(true),
       "pods \"web\" is forbidden: minimum pid usage per Pod is 1024, but limit is 512"});
  cases.push_back({"max without a limit",
                   ValidPod("web", 1, {}),
                   {PidLimitRange("lr", {}, Pid("2048"), {})},
                   Gates(true),
                   "pods \"web\" is forbidden: maximum pid usage per Pod is 2048.  No limit is "
                   "specified"});
  cases.push_back({"min without a limit",
                   ValidPod("web", 1, {}),
                   {PidLimitRange("lr", Pid("1024"), {}, {})},
                   Gates(true),
                   "pods \"web\" is forbidden: minimum pid usage per Pod is 1024.  No limit is "
                   "specified"});
  cases.push_back({"the default satisfies the bounds of its own LimitRange",
                   ValidPod("web", 1, {}),
                   {PidLimitRange("lr", Pid("1024"), Pid("2048"), Pid("2048"))},
                   Gates(true),
                   {}});
  cases.push_back(
      {"an earlier default is checked against a later LimitRange",
       ValidPod("web", 1, {}),
       {PidLimitRange("a", {}, {}, Pid("8192")), PidLimitRange("b", {}, Pid("4096"), {})},
       Gates(true),
       "pods \"web\" is forbidden: maximum pid usage per Pod is 4096, but limit is 8192"});
  cases.push_back(
      {"pid sorts among the other resources of a Pod item",
       WithPodLevelResources(ValidPod("web", 1, {Compute("1", "1Gi"), Compute("2", "2Gi")}),
                             {None(), Pid("4096")}),
       {api::ReadLimitRange(LimitRangeTree(
           "lr", {{"Pod", {}, {{"cpu", "1"}, {"memory", "1Gi"}, {"pid", "2048"}}, {}, {}, {}}}))},
       Gates(true),
       "pods \"web\" is forbidden: [maximum cpu usage per Pod is 1, but limit is 2, "
       "maximum memory usage per Pod is 1Gi, but limit is 2Gi, maximum pid usage per "
       "Pod is 2048, but limit is 4096]"});
  cases.push_back({"pid bounds are not enforced without PerPodPIDLimit",
                   ValidPod("web", 1, {}),
                   {PidLimitRange("lr", Pid("1024"), Pid("2048"), {})},
                   Gates(true, false),
                   {}});
  cases.push_back({"pid bounds are not enforced without PodLevelResources",
                   ValidPod("web", 1, {}),
                   {PidLimitRange("lr", Pid("1024"), Pid("2048"), {})},
                   Gates(false),
                   {}});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AdmitAndValidate(c.lrs, c.pod, c.gates), c.message);
  }
}

TEST(LimitRangerPid, LimitOnlyMinConstraint) {
  auto q = [](const char* s) { return Quantity::Parse(s).value(); };
  EXPECT_EQ(LimitOnlyMinConstraint("Pod", "pid", q("1024"), {}),
            "minimum pid usage per Pod is 1024.  No limit is specified");
  EXPECT_EQ(LimitOnlyMinConstraint("Pod", "pid", q("1024"), {{"pid", q("1023")}}),
            "minimum pid usage per Pod is 1024, but limit is 1023");
  EXPECT_EQ(LimitOnlyMinConstraint("Pod", "pid", q("1024"), {{"pid", q("1024")}}), std::nullopt);
}

}  // namespace
}  // namespace podlimits::admission
