#include "api/label_selector.h"

#include <algorithm>
#include <vector>

namespace podlimits::api {
namespace {

using codec::Node;

std::vector<std::string> Values(const Node* values) {
  std::vector<std::string> out;
  if (values && values->IsArray()) {
    for (const Node& v : values->items) out.push_back(StringOf(&v));
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> LabelsOf(const Node* labels) {
  std::map<std::string, std::string> out;
  if (labels && labels->IsObject()) {
    for (const auto& m : labels->members) out[m.key] = StringOf(&m.value);
  }
  return out;
}

bool LabelSelectorMatches(const Node& selector, const Node* labels) {
  const std::map<std::string, std::string> have = LabelsOf(labels);
  for (const auto& [key, value] : LabelsOf(selector.Find("matchLabels"))) {
    auto it = have.find(key);
    if (it == have.end() || it->second != value) return false;
  }
  if (const Node* exprs = selector.Find("matchExpressions"); exprs && exprs->IsArray()) {
    for (const Node& e : exprs->items) {
      const std::string key = StringOf(e.Find("key"));
      const std::string op = StringOf(e.Find("operator"));
      const std::vector<std::string> values = Values(e.Find("values"));
      auto it = have.find(key);
      const bool in = it != have.end() &&
                      std::find(values.begin(), values.end(), it->second) != values.end();
      if (op == "In" && !in) return false;
      if (op == "NotIn" && in) return false;
      if (op == "Exists" && it == have.end()) return false;
      if (op == "DoesNotExist" && it != have.end()) return false;
      if (op != "In" && op != "NotIn" && op != "Exists" && op != "DoesNotExist") return false;
    }
  }
  return true;
}

std::string FormatLabelSelector(const Node* selector) {
  if (selector == nullptr || !selector->IsObject()) return "<none>";
  std::vector<std::pair<std::string, std::string>> terms;  // (key, text)
  for (const auto& [key, value] : LabelsOf(selector->Find("matchLabels"))) {
    terms.emplace_back(key, key + "=" + value);
  }
  if (const Node* exprs = selector->Find("matchExpressions"); exprs && exprs->IsArray()) {
    for (const Node& e : exprs->items) {
      const std::string key = StringOf(e.Find("key"));
      const std::string op = StringOf(e.Find("operator"));
      std::vector<std::string> values = Values(e.Find("values"));
      std::sort(values.begin(), values.end());
      std::string joined;
      for (const auto& v : values) joined += (joined.empty() ? "" : ",") + v;
      if (op == "In") terms.emplace_back(key, key + " in (" + joined + ")");
      if (op == "NotIn") terms.emplace_back(key, key + " notin (" + joined + ")");
      if (op == "Exists") terms.emplace_back(key, key);
      if (op == "DoesNotExist") terms.emplace_back(key, "!" + key);
    }
  }
  std::stable_sort(terms.begin(), terms.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [key, text] : terms) out += (out.empty() ? "" : ",") + text;
  return out.empty() ? "<none>" : out;
}

}  // namespace podlimits::api
