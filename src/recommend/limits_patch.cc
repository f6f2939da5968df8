#include "recommend/limits_patch.h"

namespace podlimits::recommend {
namespace {

using codec::Node;

Node Op(std::string_view op, std::string path, Node value) {
  Node n = Node::Object();
  n.Set("op", Node::String(std::string(op)));
  n.Set("path", Node::String(std::move(path)));
  n.Set("value", std::move(value));
  return n;
}

Node Nofile(std::int64_t limit) {
  Node u = Node::Object();
  u.Set("name", Node::String("nofile"));
  u.Set("soft", Node::Int(limit));
  u.Set("hard", Node::Int(limit));
  return u;
}

void PidLimitOps(const Node& pod, std::int64_t limit, Node& ops) {
  Node pid = Node::String(std::to_string(limit));
  const Node* resources = pod.FindPath({"spec", "resources"});
  if (resources == nullptr || !resources->IsObject()) {
    Node limits = Node::Object();
    limits.Set("pid", std::move(pid));
    Node r = Node::Object();
    r.Set("limits", std::move(limits));
    ops.items.push_back(Op("add", "/spec/resources", std::move(r)));
    return;
  }
  const Node* limits = resources->Find("limits");
  if (limits == nullptr || !limits->IsObject()) {
    Node l = Node::Object();
    l.Set("pid", std::move(pid));
    ops.items.push_back(Op("add", "/spec/resources/limits", std::move(l)));
    return;
  }
  ops.items.push_back(Op("add", "/spec/resources/limits/pid", std::move(pid)));
}

void NofileOps(const Node& container, const std::string& base, std::int64_t limit, Node& ops) {
  ops.items.push_back(Op("test", base + "/name", *container.Find("name")));
  const Node* sc = container.Find("securityContext");
  if (sc == nullptr || !sc->IsObject()) {
    Node ulimits = Node::Array();
    ulimits.items.push_back(Nofile(limit));
    Node s = Node::Object();
    s.Set("ulimits", std::move(ulimits));
    ops.items.push_back(Op("add", base + "/securityContext", std::move(s)));
    return;
  }
  const Node* ulimits = sc->Find("ulimits");
  if (ulimits == nullptr || !ulimits->IsArray()) {
    Node u = Node::Array();
    u.items.push_back(Nofile(limit));
    ops.items.push_back(Op("add", base + "/securityContext/ulimits", std::move(u)));
    return;
  }
  for (std::size_t j = 0; j < ulimits->items.size(); ++j) {
    if (codec::StringOf(ulimits->items[j].Find("name")) == "nofile") {
      ops.items.push_back(
          Op("replace", base + "/securityContext/ulimits/" + std::to_string(j), Nofile(limit)));
      return;
    }
  }
  ops.items.push_back(Op("add", base + "/securityContext/ulimits/-", Nofile(limit)));
}

}  // namespace

Node LimitsJsonPatch(const Node& pod, const PodLimits& limits) {
  Node ops = Node::Array();
  if (limits.pid_limit) PidLimitOps(pod, *limits.pid_limit, ops);
  for (const char* list : {"initContainers", "containers"}) {
    const Node* containers = pod.FindPath({"spec", list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (std::size_t i = 0; i < containers->items.size(); ++i) {
      const Node& c = containers->items[i];
      auto nofile = limits.nofile.find(codec::StringOf(c.Find("name")));
      if (nofile == limits.nofile.end()) continue;
      NofileOps(c, "/spec/" + std::string(list) + "/" + std::to_string(i), nofile->second, ops);
    }
  }
  return ops;
}

}  // namespace podlimits::recommend
