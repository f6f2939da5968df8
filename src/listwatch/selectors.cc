#include "listwatch/selectors.h"

#include <fmt/format.h>

#include <algorithm>

namespace podlimits::apiserver {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on ',' outside parentheses.
std::vector<std::string_view> SplitTerms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

Result<Requirement> ParseLabelTerm(std::string_view term, std::string_view whole) {
  auto fail = [&](std::string why) {
    return Failure(fmt::format("unable to parse requirement: {} in label selector {}", why,
                               "\"" + std::string(whole) + "\""));
  };
  term = Trim(term);
  if (term.empty()) return fail("found '', expected: identifier");
  Requirement r;
  if (term.front() == '!') {
    r.op = Requirement::Op::kNotExists;
    r.key = std::string(Trim(term.substr(1)));
    if (r.key.empty()) return fail("found '', expected: identifier");
    return r;
  }
  for (auto [text, op] : {std::pair{std::string_view(" notin "), Requirement::Op::kNotIn},
                          std::pair{std::string_view(" in "), Requirement::Op::kIn}}) {
    std::size_t at = term.find(text);
    if (at == std::string_view::npos) continue;
    r.key = std::string(Trim(term.substr(0, at)));
    std::string_view rest = Trim(term.substr(at + text.size()));
    if (rest.empty() || rest.front() != '(') {
      return fail("found '" + std::string(rest) + "', expected: '('");
    }
    if (rest.size() < 2 || rest.back() != ')') {
      return fail("found '" + std::string(rest) + "', expected: ')'");
    }
    rest = rest.substr(1, rest.size() - 2);
    std::size_t pos = 0;
    while (pos <= rest.size()) {
      std::size_t comma = rest.find(',', pos);
      if (comma == std::string_view::npos) comma = rest.size();
      r.values.emplace_back(Trim(rest.substr(pos, comma - pos)));
      pos = comma + 1;
    }
    r.op = op;
    return r;
  }
  for (auto [text, op] : {std::pair{std::string_view("!="), Requirement::Op::kNotEquals},
                          std::pair{std::string_view("=="), Requirement::Op::kEquals},
                          std::pair{std::string_view("="), Requirement::Op::kEquals}}) {
    std::size_t at = term.find(text);
    if (at == std::string_view::npos) continue;
    r.key = std::string(Trim(term.substr(0, at)));
    r.values = {std::string(Trim(term.substr(at + text.size())))};
    r.op = op;
    if (r.key.empty()) return fail("found '" + std::string(text) + "', expected: identifier");
    return r;
  }
  if (term.find(' ') != std::string_view::npos) {
    return fail("found '" + std::string(term.substr(term.find(' ') + 1)) +
                "', expected: in, notin, =, ==, !=, gt, lt");
  }
  r.key = std::string(term);
  return r;
}

}  // namespace

bool Selector::Matches(const codec::Node* labels) const {
  for (const Requirement& r : requirements) {
    const codec::Node* v = labels ? labels->Find(r.key) : nullptr;
    const bool has = v != nullptr;
    const std::string value = has ? v->scalar : "";
    auto in = [&] { return std::find(r.values.begin(), r.values.end(), value) != r.values.end(); };
    switch (r.op) {
      case Requirement::Op::kExists:
        if (!has) return false;
        break;
      case Requirement::Op::kNotExists:
        if (has) return false;
        break;
      case Requirement::Op::kEquals:
      case Requirement::Op::kIn:
        if (!has || !in()) return false;
        break;
      case Requirement::Op::kNotEquals:
      case Requirement::Op::kNotIn:
        if (has && in()) return false;
        break;
    }
  }
  return true;
}

Result<Selector> ParseLabelSelector(std::string_view text) {
  Selector s;
  if (Trim(text).empty()) return s;
  for (std::string_view term : SplitTerms(text)) {
    auto r = ParseLabelTerm(term, text);
    if (!r) return std::unexpected(r.error());
    s.requirements.push_back(std::move(*r));
  }
  return s;
}

Result<Selector> ParseFieldSelector(std::string_view text, std::string_view resource) {
  Selector s;
  if (Trim(text).empty()) return s;
  for (std::string_view term : SplitTerms(text)) {
    term = Trim(term);
    Requirement r;
    std::size_t at = term.find("!=");
    std::size_t len = 2;
    r.op = Requirement::Op::kNotEquals;
    if (at == std::string_view::npos) {
      at = term.find("==");
      r.op = Requirement::Op::kEquals;
    }
    if (at == std::string_view::npos) {
      at = term.find('=');
      len = 1;
    }
    if (at == std::string_view::npos) {
      return Failure(fmt::format("invalid selector: '{}'; can't understand '{}'", text, term));
    }
    r.key = std::string(Trim(term.substr(0, at)));
    r.values = {std::string(Trim(term.substr(at + len)))};
    if (!SelectableField(resource, r.key)) {
      return Failure("field label not supported: " + r.key);
    }
    s.requirements.push_back(std::move(r));
  }
  return s;
}

codec::Node SelectableFields(std::string_view resource, const codec::Node& object) {
  codec::Node fields = codec::Node::Object();
  for (std::string_view field : ResourceSelectableFields(resource)) {
    // The field's path in the object: its dotted name ("spec.nodeName").
    const codec::Node* at = &object;
    std::string_view rest = field;
    while (at != nullptr && !rest.empty()) {
      const std::size_t dot = rest.find('.');
      at = at->Find(std::string(rest.substr(0, dot)));
      rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    }
    std::string value;
    if (at != nullptr && (at->IsString() || at->kind == codec::Node::Kind::kBool ||
                          at->kind == codec::Node::Kind::kNumber)) {
      value = at->scalar;
    } else if (field == "spec.hostNetwork") {
      value = "false";  // the pod's field selector reads an unset bool as false
    }
    fields.Set(std::string(field), codec::Node::String(std::move(value)));
  }
  return fields;
}

std::span<const std::string_view> ResourceSelectableFields(std::string_view resource) {
  // Each registry's GetAttrs / the conversion funcs' field label lists (pkg/registry/core/*).
  static constexpr std::string_view kCommon[] = {"metadata.name", "metadata.namespace"};
  static constexpr std::string_view kSecrets[] = {"metadata.name", "metadata.namespace", "type"};
  static constexpr std::string_view kPods[] = {
      "metadata.name",        "metadata.namespace",      "spec.nodeName",
      "spec.restartPolicy",   "spec.schedulerName",      "spec.serviceAccountName",
      "spec.hostNetwork",     "status.phase",            "status.podIP",
      "status.nominatedNodeName"};
  static constexpr std::string_view kEvents[] = {
      "metadata.name",           "metadata.namespace",
      "involvedObject.kind",     "involvedObject.namespace",
      "involvedObject.name",     "involvedObject.uid",
      "involvedObject.apiVersion", "involvedObject.resourceVersion",
      "involvedObject.fieldPath", "reason",
      "reportingComponent",      "source",
      "type"};
  static constexpr std::string_view kNodes[] = {"metadata.name", "spec.unschedulable"};
  static constexpr std::string_view kNamespaces[] = {"metadata.name", "status.phase"};
  if (resource == "secrets") return kSecrets;
  if (resource == "pods") return kPods;
  if (resource == "events") return kEvents;
  if (resource == "nodes") return kNodes;
  if (resource == "namespaces") return kNamespaces;
  return kCommon;
}

bool SelectableField(std::string_view resource, std::string_view field) {
  for (std::string_view f : ResourceSelectableFields(resource)) {
    if (f == field) return true;
  }
  return false;
}

}  // namespace podlimits::apiserver
