#include "controllers/owned_objects.h"

#include "printers/human_duration.h"

namespace podlimits::controllers {

using codec::Node;

Node ControllerReference(const Node& owner) {
  Node ref = Node::Object();
  ref.Set("apiVersion", Node::String(codec::StringOf(owner.Find("apiVersion"))));
  ref.Set("kind", Node::String(codec::StringOf(owner.Find("kind"))));
  ref.Set("name", Node::String(codec::StringOf(owner.FindPath({"metadata", "name"}))));
  ref.Set("uid", Node::String(codec::StringOf(owner.FindPath({"metadata", "uid"}))));
  ref.Set("controller", Node::Bool(true));
  ref.Set("blockOwnerDeletion", Node::Bool(true));
  return ref;
}

std::string ControllerUid(const Node& object) {
  const Node* refs = object.FindPath({"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->IsArray()) return "";
  for (const Node& r : refs->items) {
    if (const Node* c = r.Find("controller"); c && c->AsBool()) return codec::StringOf(r.Find("uid"));
  }
  return "";
}

bool ControlledBy(const Node& object, std::string_view owner_uid) {
  return !owner_uid.empty() && ControllerUid(object) == owner_uid;
}

bool IsPodTerminating(const Node& pod) {
  return pod.FindPath({"metadata", "deletionTimestamp"}) != nullptr;
}

bool IsPodActive(const Node& pod) {
  const std::string phase = codec::StringOf(pod.FindPath({"status", "phase"}));
  return phase != "Succeeded" && phase != "Failed" && !IsPodTerminating(pod);
}

namespace {

const Node* ReadyCondition(const Node& pod) {
  const Node* conditions = pod.FindPath({"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return nullptr;
  for (const Node& c : conditions->items) {
    if (codec::StringOf(c.Find("type")) == "Ready") return &c;
  }
  return nullptr;
}

}  // namespace

bool IsPodReady(const Node& pod) {
  const Node* ready = ReadyCondition(pod);
  return ready && codec::StringOf(ready->Find("status")) == "True";
}

bool IsPodAvailable(const Node& pod, std::int64_t min_ready_seconds,
                    std::chrono::sys_seconds now) {
  if (!IsPodReady(pod)) return false;
  if (min_ready_seconds <= 0) return true;
  auto since = printers::ParseApiTime(codec::StringOf(ReadyCondition(pod)->Find("lastTransitionTime")));
  return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
}

std::vector<Object> OwnedPods(const ApiClient& api, std::string_view namespace_,
                              std::string_view owner_uid) {
  std::vector<Object> out;
  for (Object& pod : api.List("pods", namespace_)) {
    if (ControlledBy(pod.tree, owner_uid)) out.push_back(std::move(pod));
  }
  return out;
}

Node PodFromTemplate(const Node& owner) {
  Node pod = Node::Object();
  pod.Set("apiVersion", Node::String("v1"));
  pod.Set("kind", Node::String("Pod"));
  Node meta = Node::Object();
  meta.Set("generateName",
           Node::String(codec::StringOf(owner.FindPath({"metadata", "name"})) + "-"));
  meta.Set("namespace", Node::String(codec::StringOf(owner.FindPath({"metadata", "namespace"}))));
  const Node* tmpl = owner.FindPath({"spec", "template"});
  for (const char* key : {"labels", "annotations", "finalizers"}) {
    if (const Node* v = tmpl ? tmpl->FindPath({"metadata", key}) : nullptr) meta.Set(key, *v);
  }
  Node refs = Node::Array();
  refs.items.push_back(ControllerReference(owner));
  meta.Set("ownerReferences", std::move(refs));
  pod.Set("metadata", std::move(meta));
  pod.Set("spec", tmpl && tmpl->Find("spec") ? *tmpl->Find("spec") : Node::Object());
  return pod;
}

}  // namespace podlimits::controllers
