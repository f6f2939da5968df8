#include "nodeagent/pod_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "api/objects.h"
#include "kubelet/lifecycle/declared_features.h"
#include "resource/quantity.h"

namespace podlimits::nodeagent {

using codec::Node;

namespace {

constexpr std::string_view kUnschedulableTaint = "node.kubernetes.io/unschedulable";

// Toleration.ToleratesTaint: an empty effect or key matches any; the operator Equal (or empty)
// compares values, Exists does not.
bool Tolerates(const Node& toleration, std::string_view key, std::string_view value,
               std::string_view effect) {
  const std::string t_effect = codec::StringOf(toleration.Find("effect"));
  const std::string t_key = codec::StringOf(toleration.Find("key"));
  if (!t_effect.empty() && t_effect != effect) return false;
  if (!t_key.empty() && t_key != key) return false;
  const std::string op = codec::StringOf(toleration.Find("operator"));
  if (op.empty() || op == "Equal") return codec::StringOf(toleration.Find("value")) == value;
  return op == "Exists";
}

bool AnyTolerates(const Node& pod, std::string_view key, std::string_view value,
                  std::string_view effect) {
  const Node* tolerations = pod.FindPath({"spec", "tolerations"});
  if (tolerations == nullptr || !tolerations->IsArray()) return false;
  return std::any_of(tolerations->items.begin(), tolerations->items.end(),
                     [&](const Node& t) { return Tolerates(t, key, value, effect); });
}

std::optional<std::int64_t> Integer(std::string_view text) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// One NodeSelectorRequirement against the node's labels (or, for matchFields, its fields).
bool RequirementMatches(const Node& requirement, const Node* values_of) {
  const std::string key = codec::StringOf(requirement.Find("key"));
  const std::string op = codec::StringOf(requirement.Find("operator"));
  const Node* have = values_of && values_of->IsObject() ? values_of->Find(key) : nullptr;
  const bool present = have != nullptr && have->IsString();
  const std::string value = present ? have->scalar : std::string();
  std::vector<std::string> values;
  if (const Node* v = requirement.Find("values"); v && v->IsArray()) {
    for (const Node& item : v->items) values.push_back(codec::StringOf(&item));
  }
  auto listed = [&] { return std::find(values.begin(), values.end(), value) != values.end(); };
  if (op == "In") return present && listed();
  if (op == "NotIn") return !present || !listed();
  if (op == "Exists") return present;
  if (op == "DoesNotExist") return !present;
  if (op == "Gt" || op == "Lt") {
    if (!present || values.size() != 1) return false;
    auto mine = Integer(value);
    auto bound = Integer(values[0]);
    if (!mine || !bound) return false;
    return op == "Gt" ? *mine > *bound : *mine < *bound;
  }
  return false;
}

// A NodeSelectorTerm: its expressions and fields all match; a term with neither matches nothing.
bool TermMatches(const Node& term, const Node& node) {
  const Node* expressions = term.Find("matchExpressions");
  const Node* fields = term.Find("matchFields");
  const bool has_expressions = expressions && expressions->IsArray() && !expressions->items.empty();
  const bool has_fields = fields && fields->IsArray() && !fields->items.empty();
  if (!has_expressions && !has_fields) return false;
  const Node* labels = node.FindPath({"metadata", "labels"});
  if (has_expressions) {
    for (const Node& r : expressions->items) {
      if (!RequirementMatches(r, labels)) return false;
    }
  }
  if (has_fields) {
    Node node_fields = Node::Object();  // the one field selectable here
    node_fields.Set("metadata.name", Node::String(codec::StringOf(node.FindPath({"metadata", "name"}))));
    for (const Node& r : fields->items) {
      if (!RequirementMatches(r, &node_fields)) return false;
    }
  }
  return true;
}

bool AffinityMatches(const Node& pod, const Node& node) {
  if (const Node* selector = pod.FindPath({"spec", "nodeSelector"});
      selector && selector->IsObject()) {
    const Node* labels = node.FindPath({"metadata", "labels"});
    for (const auto& m : selector->members) {
      const Node* have = labels && labels->IsObject() ? labels->Find(m.key) : nullptr;
      if (have == nullptr || codec::StringOf(have) != codec::StringOf(&m.value)) return false;
    }
  }
  const Node* required = pod.FindPath({"spec", "affinity", "nodeAffinity",
                                       "requiredDuringSchedulingIgnoredDuringExecution",
                                       "nodeSelectorTerms"});
  if (required == nullptr || !required->IsArray()) return true;
  return std::any_of(required->items.begin(), required->items.end(),
                     [&](const Node& term) { return TermMatches(term, node); });
}

}  // namespace

std::optional<std::string> UnfitReason(const Node& pod, const Node& node,
                                       std::int64_t pods_on_node) {
  if (const Node* u = node.FindPath({"spec", "unschedulable"}); u && u->AsBool()) {
    if (!AnyTolerates(pod, kUnschedulableTaint, "", "NoSchedule")) {
      return "node(s) were unschedulable";
    }
  }
  if (const Node* taints = node.FindPath({"spec", "taints"}); taints && taints->IsArray()) {
    for (const Node& taint : taints->items) {
      const std::string effect = codec::StringOf(taint.Find("effect"));
      if (effect != "NoSchedule" && effect != "NoExecute") continue;
      const std::string key = codec::StringOf(taint.Find("key"));
      const std::string value = codec::StringOf(taint.Find("value"));
      if (!AnyTolerates(pod, key, value, effect)) {
        return fmt::format("node(s) had untolerated taint {{{}: {}}}", key, value);
      }
    }
  }
  if (!AffinityMatches(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  // NodeResourcesFit (after NodeAffinity in the default profile): one more pod than allowed.
  if (const Node* allowed = node.FindPath({"status", "allocatable", "pods"})) {
    auto q = resource::Quantity::Parse(codec::StringOf(allowed));
    if (q && pods_on_node + 1 > q->Value()) return std::string(kTooManyPods);
  }
  // NodeDeclaredFeatures (KEP-5328; last of these in the default profile): every feature the pod
  // needs is in status.declaredFeatures, or the pod waits for a node that declares it instead of
  // being bound here and failing node admission.
  const Node* declared = node.FindPath({"status", "declaredFeatures"});
  for (std::string_view needed : kubelet::RequiredFeatures(api::ReadPod(pod))) {
    const bool has = declared && declared->IsArray() &&
                     std::any_of(declared->items.begin(), declared->items.end(),
                                 [&](const Node& f) { return codec::StringOf(&f) == needed; });
    if (!has) return std::string(kUnmatchedFeatures);
  }
  return std::nullopt;
}

std::string FitErrorMessage(std::string_view reason) {
  // A resource shortage is Unschedulable, not UnschedulableAndUnresolvable: preemption looks for
  // victims, and this scheduler has none to offer.
  const std::string_view preemption = reason == kTooManyPods
                                          ? "No preemption victims found for incoming pod."
                                          : "Preemption is not helpful for scheduling.";
  return fmt::format("0/1 nodes are available: 1 {}. preemption: 0/1 nodes are available: 1 {}",
                     reason, preemption);
}

}  // namespace podlimits::nodeagent
