#include "controllers/deployment_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "codec/json_codec.h"
#include "controllers/conditions.h"
#include "controllers/owned_objects.h"
#include "printers/human_duration.h"

namespace podlimits::controllers {

using codec::Node;

namespace {

constexpr std::string_view kHashLabel = "pod-template-hash";
constexpr std::string_view kRevision = "deployment.kubernetes.io/revision";
constexpr std::string_view kDesiredReplicas = "deployment.kubernetes.io/desired-replicas";
constexpr std::string_view kMaxReplicas = "deployment.kubernetes.io/max-replicas";

std::int64_t IntAt(const Node& n, std::initializer_list<std::string_view> path,
                   std::int64_t fallback = 0) {
  return codec::IntOf(n.FindPath(path)).value_or(fallback);
}

std::string Name(const Node& n) { return codec::StringOf(n.FindPath({"metadata", "name"})); }

std::int64_t RevisionOf(const Node& rs) {
  const Node* annotations = rs.FindPath({"metadata", "annotations"});
  const std::string text = codec::StringOf(annotations ? annotations->Find(kRevision) : nullptr);
  try {
    return text.empty() ? 0 : std::stoll(text);
  } catch (...) {
    return 0;
  }
}

// A template without the pod-template-hash label: what EqualIgnoreHash compares.
std::string TemplateKey(const Node* pod_template) {
  if (pod_template == nullptr) return "";
  Node copy = *pod_template;
  if (Node* labels = copy.FindPath({"metadata", "labels"})) {
    labels->Erase(kHashLabel);
    if (labels->members.empty()) copy.Ensure("metadata").Erase("labels");
  }
  return codec::EncodeJsonSorted(copy);
}

struct ReplicaSetView {
  Object object;
  std::int64_t replicas = 0;  // spec, as scaled this round
  std::int64_t status_replicas = 0, ready = 0, available = 0;
  std::int64_t revision = 0;
  std::string name, created;
};

ReplicaSetView ViewOf(Object rs) {
  ReplicaSetView v;
  v.replicas = IntAt(rs.tree, {"spec", "replicas"}, 1);
  v.status_replicas = IntAt(rs.tree, {"status", "replicas"});
  v.ready = IntAt(rs.tree, {"status", "readyReplicas"});
  v.available = IntAt(rs.tree, {"status", "availableReplicas"});
  v.revision = RevisionOf(rs.tree);
  v.name = Name(rs.tree);
  v.created = codec::StringOf(rs.tree.FindPath({"metadata", "creationTimestamp"}));
  v.object = std::move(rs);
  return v;
}

}  // namespace

std::string PodTemplateHash(const Node& pod_template, std::int64_t collision_count) {
  // FNV-32a, as ComputeHash feeds its hasher; then rand.SafeEncodeString of the decimal.
  std::uint32_t hash = 2166136261u;
  auto feed = [&](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 16777619u;
    }
  };
  feed(codec::EncodeJsonSorted(pod_template));
  if (collision_count > 0) feed(std::to_string(collision_count));
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out = std::to_string(hash);
  for (char& c : out) c = kAlphanums[static_cast<unsigned char>(c) % kAlphanums.size()];
  return out;
}

std::int64_t ScaledValue(const Node* value, std::int64_t total, bool round_up) {
  if (value == nullptr || value->IsNull()) return 0;
  if (!value->IsString()) return value->AsInt().value_or(0);
  std::string text = value->scalar;
  if (text.empty() || text.back() != '%') return 0;
  const std::int64_t percent = std::stoll(text.substr(0, text.size() - 1));
  return round_up ? (percent * total + 99) / 100 : percent * total / 100;
}

void DeploymentController::SyncAll() {
  for (const Object& d : api_.List("deployments")) Sync(d);
}

void DeploymentController::Sync(const Object& deployment) {
  const Node& d = deployment.tree;
  if (d.FindPath({"metadata", "deletionTimestamp"})) return;
  const std::string ns = codec::StringOf(d.FindPath({"metadata", "namespace"}));
  const std::string uid = codec::StringOf(d.FindPath({"metadata", "uid"}));
  const std::int64_t replicas = IntAt(d, {"spec", "replicas"}, 1);
  const bool rolling = codec::StringOf(d.FindPath({"spec", "strategy", "type"})) != "Recreate";
  const bool paused = d.FindPath({"spec", "paused"}) && d.FindPath({"spec", "paused"})->AsBool();
  std::int64_t surge = 0, unavailable = 0;
  if (rolling) {
    surge = ScaledValue(d.FindPath({"spec", "strategy", "rollingUpdate", "maxSurge"}), replicas, true);
    unavailable = ScaledValue(d.FindPath({"spec", "strategy", "rollingUpdate", "maxUnavailable"}),
                              replicas, false);
    if (surge == 0 && unavailable == 0) unavailable = 1;
  }
  const Node* pod_template = d.FindPath({"spec", "template"});
  const std::string template_key = TemplateKey(pod_template);

  std::vector<ReplicaSetView> old_sets;
  std::optional<ReplicaSetView> new_set;
  for (Object& rs : api_.List("replicasets", ns)) {
    if (!ControlledBy(rs.tree, uid)) continue;
    if (!new_set && TemplateKey(rs.tree.FindPath({"spec", "template"})) == template_key) {
      new_set = ViewOf(std::move(rs));
    } else {
      old_sets.push_back(ViewOf(std::move(rs)));
    }
  }
  std::sort(old_sets.begin(), old_sets.end(),
            [](const auto& a, const auto& b) { return a.created < b.created; });
  std::int64_t max_old_revision = 0;
  for (const auto& rs : old_sets) max_old_revision = std::max(max_old_revision, rs.revision);
  Node status = d.Find("status") && d.Find("status")->IsObject() ? *d.Find("status") : Node::Object();
  const Node old_status = status;
  const std::string now = api_.NowText();

  // Scales one ReplicaSet (its desired and max replicas annotations with it), with the event.
  auto scale = [&](ReplicaSetView& rs, std::int64_t to) {
    if (rs.replicas == to) return true;
    Node next = rs.object.tree;
    next.Ensure("spec").Set("replicas", Node::Int(to));
    Node& annotations = next.Ensure("metadata").Ensure("annotations");
    annotations.Set(kDesiredReplicas, Node::String(std::to_string(replicas)));
    annotations.Set(kMaxReplicas, Node::String(std::to_string(replicas + surge)));
    next.Ensure("metadata").Set("resourceVersion", Node::String(std::to_string(rs.object.revision)));
    if (!api_.Update("replicasets", next).ok()) return false;
    api_.Event(d, "Normal", "ScalingReplicaSet",
               fmt::format("Scaled {} replica set {} from {} to {}", to > rs.replicas ? "up" : "down",
                           rs.name, rs.replicas, to));
    rs.replicas = to;
    return true;
  };
  auto old_active = [&] {
    std::int64_t n = 0;
    for (const auto& rs : old_sets) n += rs.replicas + rs.status_replicas;
    return n;
  };

  if (!new_set && !paused) {
    std::int64_t all = 0;
    for (const auto& rs : old_sets) all += rs.replicas;
    std::int64_t initial = replicas;
    if (!rolling) {
      initial = old_active() == 0 ? replicas : 0;
    } else if (all > 0) {
      initial = std::clamp<std::int64_t>(replicas + surge - all, 0, replicas);
    }
    const std::int64_t collisions = IntAt(status, {"collisionCount"});
    const std::string hash = PodTemplateHash(*pod_template, collisions);
    Node rs = Node::Object();
    rs.Set("apiVersion", Node::String("apps/v1"));
    rs.Set("kind", Node::String("ReplicaSet"));
    Node meta = Node::Object();
    meta.Set("name", Node::String(Name(d) + "-" + hash));
    meta.Set("namespace", Node::String(ns));
    Node labels = pod_template->FindPath({"metadata", "labels"})
                      ? *pod_template->FindPath({"metadata", "labels"})
                      : Node::Object();
    labels.Set(kHashLabel, Node::String(hash));
    meta.Set("labels", labels);
    Node annotations = Node::Object();
    annotations.Set(kDesiredReplicas, Node::String(std::to_string(replicas)));
    annotations.Set(kMaxReplicas, Node::String(std::to_string(replicas + surge)));
    annotations.Set(kRevision, Node::String(std::to_string(max_old_revision + 1)));
    meta.Set("annotations", std::move(annotations));
    Node refs = Node::Array();
    refs.items.push_back(ControllerReference(d));
    meta.Set("ownerReferences", std::move(refs));
    rs.Set("metadata", std::move(meta));
    Node spec = Node::Object();
    spec.Set("replicas", Node::Int(initial));
    if (const Node* m = d.FindPath({"spec", "minReadySeconds"})) spec.Set("minReadySeconds", *m);
    Node selector = d.FindPath({"spec", "selector"}) ? *d.FindPath({"spec", "selector"}) : Node::Object();
    selector.Ensure("matchLabels").Set(kHashLabel, Node::String(hash));
    spec.Set("selector", std::move(selector));
    Node tmpl = *pod_template;
    tmpl.Ensure("metadata").Set("labels", std::move(labels));
    spec.Set("template", std::move(tmpl));
    rs.Set("spec", std::move(spec));
    ApiClient::Answer answer = api_.Create("replicasets", ns, rs);
    if (!answer.ok()) {
      if (answer.status == 409) {
        // A ReplicaSet of that name with another template: the next hash (collisionCount).
        status.Set("collisionCount", Node::Int(collisions + 1));
        Node next = d;
        next.Set("status", std::move(status));
        next.Ensure("metadata").Set("resourceVersion", Node::String(std::to_string(deployment.revision)));
        (void)api_.Update("deployments", next, "status");
      }
      return;
    }
    auto created = codec::ParseJsonStream(answer.body);
    if (!created || created->size() != 1) return;
    new_set = ViewOf(Object{std::move((*created)[0]), 0});
    if (initial > 0) {
      api_.Event(d, "Normal", "ScalingReplicaSet",
                 fmt::format("Scaled up replica set {} from 0 to {}", new_set->name, initial));
    }
    SetCondition(status,
                 {"Progressing", "True", "NewReplicaSetCreated",
                  fmt::format("Created new replica set \"{}\"", new_set->name)},
                 now);
  } else if (new_set) {
    if (new_set->revision <= max_old_revision) {
      // A template that came back (rollout undo): its ReplicaSet takes the next revision.
      Node next = new_set->object.tree;
      next.Ensure("metadata").Ensure("annotations").Set(
          kRevision, Node::String(std::to_string(max_old_revision + 1)));
      next.Ensure("metadata").Set("resourceVersion",
                                  Node::String(std::to_string(new_set->object.revision)));
      if (!api_.Update("replicasets", next).ok()) return;
      return;  // the next round sees it with its new revision
    }
    if (!FindCondition(status, "Progressing")) {
      SetCondition(status,
                   {"Progressing", "True", "FoundNewReplicaSet",
                    fmt::format("Found new replica set \"{}\"", new_set->name)},
                   now);
    }
  }

  // The Deployment's revision is its new ReplicaSet's.
  if (new_set) {
    const Node* annotations = d.FindPath({"metadata", "annotations"});
    const std::string have = codec::StringOf(annotations ? annotations->Find(kRevision) : nullptr);
    const std::string want = std::to_string(new_set->revision);
    if (have != want) {
      const std::string patch = fmt::format(R"({{"metadata":{{"annotations":{{"{}":"{}"}}}}}})",
                                            kRevision, want);
      (void)api_.Patch("deployments", ns, Name(d), "application/merge-patch+json", patch);
      return;  // the next round works on the patched object
    }
  }

  if (!paused && new_set) {
    if (rolling) {
      std::int64_t all = new_set->replicas;
      for (const auto& rs : old_sets) all += rs.replicas;
      if (new_set->replicas > replicas) {
        scale(*new_set, replicas);
      } else if (new_set->replicas < replicas && all < replicas + surge) {
        const std::int64_t up = std::min(replicas + surge - all, replicas - new_set->replicas);
        scale(*new_set, new_set->replicas + up);
      }
      std::int64_t old_total = 0;
      for (const auto& rs : old_sets) old_total += rs.replicas;
      if (old_total > 0) {
        all = new_set->replicas + old_total;
        const std::int64_t min_available = replicas - unavailable;
        const std::int64_t new_unavailable = new_set->replicas - new_set->available;
        const std::int64_t max_scaled_down = all - min_available - new_unavailable;
        if (max_scaled_down > 0) {
          std::int64_t cleaned = 0;
          for (auto& rs : old_sets) {
            if (cleaned >= max_scaled_down) break;
            // Only the replicas that are not available (a status counting more available pods
            // than the spec, before the ReplicaSet caught up with a scale-down, has none).
            if (rs.replicas == 0 || rs.replicas <= rs.available) continue;
            const std::int64_t down = std::min(max_scaled_down - cleaned, rs.replicas - rs.available);
            if (scale(rs, rs.replicas - down)) cleaned += down;
          }
          std::int64_t all_available = new_set->available;
          for (const auto& rs : old_sets) all_available += rs.available;
          std::int64_t can = all_available - min_available;
          for (auto& rs : old_sets) {
            if (can <= 0) break;
            if (rs.replicas == 0) continue;
            const std::int64_t down = std::min(rs.replicas, can);
            if (scale(rs, rs.replicas - down)) can -= down;
          }
        }
      }
    } else {
      bool scaled_down = false;
      for (auto& rs : old_sets) {
        if (rs.replicas > 0) scaled_down = scale(rs, 0) || scaled_down;
      }
      if (!scaled_down && old_active() == 0 && new_set->replicas != replicas) {
        scale(*new_set, replicas);
      }
    }
    // Revision history: old ReplicaSets that run nothing, beyond the limit, lowest first.
    const std::int64_t limit = IntAt(d, {"spec", "revisionHistoryLimit"}, 10);
    std::vector<ReplicaSetView*> idle;
    for (auto& rs : old_sets) {
      if (rs.replicas == 0 && rs.status_replicas == 0) idle.push_back(&rs);
    }
    std::sort(idle.begin(), idle.end(), [](auto* a, auto* b) { return a->revision < b->revision; });
    for (std::size_t i = 0; i + limit < idle.size(); ++i) {
      (void)api_.Delete("replicasets", ns, idle[i]->name);
    }
  }

  // Status.
  std::int64_t total = 0, ready = 0, available = 0;
  auto count = [&](const ReplicaSetView& rs) {
    total += rs.status_replicas;
    ready += rs.ready;
    available += rs.available;
  };
  for (const auto& rs : old_sets) count(rs);
  if (new_set) count(*new_set);
  const std::int64_t updated = new_set ? new_set->status_replicas : 0;
  auto set_count = [&](std::string_view key, std::int64_t v) {
    if (v == 0) {
      status.Erase(key);
    } else {
      status.Set(key, Node::Int(v));
    }
  };
  const std::int64_t generation = IntAt(d, {"metadata", "generation"});
  set_count("observedGeneration", generation);
  set_count("replicas", total);
  set_count("updatedReplicas", updated);
  set_count("readyReplicas", ready);
  set_count("availableReplicas", available);
  set_count("unavailableReplicas", std::max<std::int64_t>(0, replicas - available));
  if (available >= replicas - unavailable) {
    SetCondition(status, {"Available", "True", "MinimumReplicasAvailable",
                          "Deployment has minimum availability."},
                 now);
  } else {
    SetCondition(status, {"Available", "False", "MinimumReplicasUnavailable",
                          "Deployment does not have minimum availability."},
                 now);
  }
  if (new_set && !paused) {
    const bool complete = updated == replicas && total == replicas && available == replicas;
    auto old_count = [&](std::string_view key) { return IntAt(old_status, {key}); };
    const bool progressing = updated > old_count("updatedReplicas") ||
                             total - updated < old_count("replicas") - old_count("updatedReplicas") ||
                             ready > old_count("readyReplicas") ||
                             available > old_count("availableReplicas");
    const Node* current = FindCondition(status, "Progressing");
    if (complete) {
      SetCondition(status,
                   {"Progressing", "True", "NewReplicaSetAvailable",
                    fmt::format("ReplicaSet \"{}\" has successfully progressed.", new_set->name)},
                   now);
    } else if (progressing) {
      // A new lastUpdateTime even when the reason stays (progress resets the deadline); the
      // transition time of a condition that stays True is kept.
      std::string transition = now;
      if (current && codec::StringOf(current->Find("status")) == "True") {
        transition = codec::StringOf(current->Find("lastTransitionTime"));
      }
      RemoveCondition(status, "Progressing");
      SetCondition(status,
                   {"Progressing", "True", "ReplicaSetUpdated",
                    fmt::format("ReplicaSet \"{}\" is progressing.", new_set->name)},
                   now);
      status.Find("conditions")->items.back().Set("lastTransitionTime", Node::String(transition));
    } else if (current && codec::StringOf(current->Find("reason")) != "NewReplicaSetAvailable" &&
               codec::StringOf(current->Find("status")) == "True") {
      const std::int64_t deadline = IntAt(d, {"spec", "progressDeadlineSeconds"}, 600);
      auto updated_at = printers::ParseApiTime(codec::StringOf(current->Find("lastUpdateTime")));
      if (updated_at && *updated_at + std::chrono::seconds(deadline) < api_.Now()) {
        SetCondition(status,
                     {"Progressing", "False", "ProgressDeadlineExceeded",
                      fmt::format("ReplicaSet \"{}\" has timed out progressing.", new_set->name)},
                     now);
      }
    }
  }
  if (codec::EncodeJsonSorted(status) == codec::EncodeJsonSorted(old_status)) return;
  Node next = d;
  next.Set("status", std::move(status));
  next.Ensure("metadata").Set("resourceVersion", Node::String(std::to_string(deployment.revision)));
  (void)api_.Update("deployments", next, "status");
}

}  // namespace podlimits::controllers
