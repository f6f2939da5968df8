#include "controllers/replica_set_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/label_selector.h"
#include "codec/json_codec.h"
#include "controllers/conditions.h"
#include "controllers/owned_objects.h"

namespace podlimits::controllers {

using codec::Node;

namespace {

// ActivePodsWithRanks, reduced: a smaller rank is deleted first.
std::tuple<int, int, int, std::string> DeletionRank(const Node& pod) {
  const bool scheduled = !codec::StringOf(pod.FindPath({"spec", "nodeName"})).empty();
  const std::string phase = codec::StringOf(pod.FindPath({"status", "phase"}));
  const int phase_rank = phase == "Pending" ? 0 : phase == "Unknown" ? 1 : 2;
  // Newest first: the creation time negated by sorting the reverse string.
  std::string created = codec::StringOf(pod.FindPath({"metadata", "creationTimestamp"}));
  for (char& ch : created) ch = static_cast<char>(255 - static_cast<unsigned char>(ch));
  return {scheduled ? 1 : 0, phase_rank, IsPodReady(pod) ? 1 : 0, created};
}

}  // namespace

void ReplicaSetController::SyncAll() {
  for (const Object& rs : api_.List("replicasets")) Sync(rs);
}

void ReplicaSetController::Sync(const Object& rs) {
  const Node& tree = rs.tree;
  if (tree.FindPath({"metadata", "deletionTimestamp"})) return;
  const std::string ns = codec::StringOf(tree.FindPath({"metadata", "namespace"}));
  const std::string uid = codec::StringOf(tree.FindPath({"metadata", "uid"}));
  std::vector<Object> active;
  for (Object& pod : OwnedPods(api_, ns, uid)) {
    if (IsPodActive(pod.tree)) active.push_back(std::move(pod));
  }
  const std::int64_t desired = codec::IntOf(tree.FindPath({"spec", "replicas"})).value_or(1);
  const std::int64_t diff = static_cast<std::int64_t>(active.size()) - desired;
  std::optional<std::string> create_failure;
  if (diff < 0) {
    const Node pod = PodFromTemplate(tree);
    for (std::int64_t i = 0; i < -diff; ++i) {
      ApiClient::Answer answer = api_.Create("pods", ns, pod);
      if (!answer.ok()) {
        create_failure = answer.Message();
        api_.Event(tree, "Warning", "FailedCreate", "Error creating: " + *create_failure);
        break;
      }
      std::string name;
      if (auto created = codec::ParseJsonStream(answer.body); created && created->size() == 1) {
        name = codec::StringOf((*created)[0].FindPath({"metadata", "name"}));
      }
      api_.Event(tree, "Normal", "SuccessfulCreate", "Created pod: " + name);
    }
  } else if (diff > 0) {
    std::vector<const Object*> ranked;
    for (const Object& pod : active) ranked.push_back(&pod);
    std::sort(ranked.begin(), ranked.end(), [](const Object* a, const Object* b) {
      return DeletionRank(a->tree) < DeletionRank(b->tree);
    });
    for (std::int64_t i = 0; i < diff; ++i) {
      const std::string name = codec::StringOf(ranked[i]->tree.FindPath({"metadata", "name"}));
      if (api_.Delete("pods", ns, name).ok()) {
        api_.Event(tree, "Normal", "SuccessfulDelete", "Deleted pod: " + name);
      }
    }
  }

  // The status of what was listed: the creates and deletes show in the next round.
  const std::int64_t min_ready = codec::IntOf(tree.FindPath({"spec", "minReadySeconds"})).value_or(0);
  const Node* template_labels = tree.FindPath({"spec", "template", "metadata", "labels"});
  std::int64_t labeled = 0, ready = 0, available = 0;
  for (const Object& pod : active) {
    const Node* labels = pod.tree.FindPath({"metadata", "labels"});
    bool full = true;
    for (const auto& [k, v] : api::LabelsOf(template_labels)) {
      full = full && api::LabelsOf(labels).count(k) && api::LabelsOf(labels).at(k) == v;
    }
    if (full) ++labeled;
    if (IsPodReady(pod.tree)) ++ready;
    if (IsPodAvailable(pod.tree, min_ready, api_.Now())) ++available;
  }
  Node status = tree.Find("status") && tree.Find("status")->IsObject() ? *tree.Find("status")
                                                                       : Node::Object();
  auto set_count = [&](std::string_view key, std::int64_t v, bool always = false) {
    if (v == 0 && !always) {
      status.Erase(key);
    } else {
      status.Set(key, Node::Int(v));
    }
  };
  set_count("replicas", static_cast<std::int64_t>(active.size()), true);
  set_count("fullyLabeledReplicas", labeled);
  set_count("readyReplicas", ready);
  set_count("availableReplicas", available);
  set_count("observedGeneration",
            codec::IntOf(tree.FindPath({"metadata", "generation"})).value_or(0));
  if (create_failure) {
    SetCondition(status, {"ReplicaFailure", "True", "FailedCreate", *create_failure}, api_.NowText());
  } else if (diff <= 0 && !create_failure) {
    RemoveCondition(status, "ReplicaFailure");
  }
  const Node* before = tree.Find("status");
  if (before && codec::EncodeJsonSorted(*before) == codec::EncodeJsonSorted(status)) return;
  Node next = tree;
  next.Set("status", std::move(status));
  next.Ensure("metadata").Set("resourceVersion", Node::String(std::to_string(rs.revision)));
  (void)api_.Update("replicasets", next, "status");
}

}  // namespace podlimits::controllers
