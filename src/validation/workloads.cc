#include "validation/workloads.h"

#include <regex>

#include "api/label_selector.h"
#include "api/objects.h"
#include "api/pod_strategy.h"
#include "codec/json_codec.h"
#include "validation/cron_job.h"
#include "validation/object_meta.h"
#include "validation/pod_warnings.h"

namespace podlimits::validation {
namespace {

using codec::Node;

const field::Path kSpec("spec");

// json.Marshal of a value, as field.Error prints values that are not scalars.
field::Json JsonValue(const Node* n) {
  if (n == nullptr || n->IsNull()) return field::Json{"null"};
  return field::Json{codec::EncodeJsonSorted(*n)};
}

// ValidateNonnegativeField for an optional integer at spec.<name>.
void NonNegative(const Node& spec, std::string_view name, field::ErrorList& errs) {
  if (auto v = codec::IntOf(spec.Find(name)); v && *v < 0) {
    errs.push_back(field::Invalid(kSpec.Child(name), *v, "must be greater than or equal to 0"));
  }
}

// "spec.containers[0]..." -> "spec.template.spec.containers[0]...".
std::string UnderTemplate(const std::string& path) {
  if (path.starts_with("spec") || path.starts_with("metadata")) return "spec.template." + path;
  return path;
}

// The selector rules Deployment and ReplicaSet share; false when the template cannot be matched
// against it (missing or malformed).
bool ValidateSelector(const Node& spec, field::ErrorList& errs) {
  const Node* selector = spec.Find("selector");
  if (selector == nullptr || selector->IsNull()) {
    errs.push_back(field::Required(kSpec.Child("selector"), ""));
    return false;
  }
  field::ErrorList selector_errs = ValidateLabelSelector(*selector, kSpec.Child("selector"));
  const bool well_formed = selector_errs.empty();
  field::Append(errs, std::move(selector_errs));
  const Node* labels = selector->Find("matchLabels");
  const Node* exprs = selector->Find("matchExpressions");
  const std::size_t terms = (labels && labels->IsObject() ? labels->members.size() : 0) +
                            (exprs && exprs->IsArray() ? exprs->items.size() : 0);
  if (terms == 0) {
    // Upstream's ReplicaSet validation says "deployment" too.
    errs.push_back(field::Invalid(kSpec.Child("selector"), JsonValue(selector),
                                  "empty selector is invalid for deployment"));
  }
  return well_formed && terms > 0;
}

// ValidatePodTemplateSpecForReplicaSet's own rules.
void ValidateReplicaSetTemplate(const Node& spec, bool selector_usable, field::ErrorList& errs) {
  const field::Path tmpl = kSpec.Child("template");
  const Node* t = spec.Find("template");
  const Node* labels = t ? t->FindPath({"metadata", "labels"}) : nullptr;
  if (selector_usable && !api::LabelSelectorMatches(*spec.Find("selector"), labels)) {
    errs.push_back(field::Invalid(tmpl.Child("metadata").Child("labels"),
                                  JsonValue(labels ? labels : nullptr),
                                  "`selector` does not match template `labels`"));
  }
  const std::string restart = codec::StringOf(t ? t->FindPath({"spec", "restartPolicy"}) : nullptr);
  if (restart != "Always") {
    errs.push_back(field::NotSupported(tmpl.Child("spec").Child("restartPolicy"), restart,
                                       {"Always"}));
  }
  if (t && t->FindPath({"spec", "activeDeadlineSeconds"})) {
    errs.push_back(field::Forbidden(tmpl.Child("spec").Child("activeDeadlineSeconds"),
                                    "activeDeadlineSeconds in ReplicaSet is not Supported"));
  }
}

// An IntOrString of a rolling update: a non-negative int, or a percent string.
void ValidateIntOrPercent(const Node* v, const field::Path& path, field::ErrorList& errs) {
  if (v == nullptr || v->IsNull()) return;
  if (v->IsString()) {
    static const std::regex kPercent("^[0-9]+%$");
    if (!std::regex_match(v->scalar, kPercent)) {
      errs.push_back(field::Invalid(path, v->scalar,
                                    "a valid percent string must be a numeric string followed by "
                                    "an ending '%' (e.g. '1%',  or '93%', regex used for "
                                    "validation is '[0-9]+%')"));
      return;
    }
    if (std::stoll(v->scalar.substr(0, v->scalar.size() - 1)) > 100) {
      errs.push_back(field::Invalid(path, v->scalar, "must not be greater than 100%"));
    }
    return;
  }
  if (auto n = v->AsInt(); n && *n < 0) {
    errs.push_back(field::Invalid(path, *n, "must be greater than or equal to 0"));
  }
}

bool IsZero(const Node* v) {
  if (v == nullptr || v->IsNull()) return true;
  if (v->IsString()) return v->scalar == "0%";
  return v->AsInt() == 0;
}

void ValidateStrategy(const Node& spec, field::ErrorList& errs) {
  const field::Path path = kSpec.Child("strategy");
  const Node* strategy = spec.Find("strategy");
  if (strategy == nullptr) return;
  const std::string type = codec::StringOf(strategy->Find("type"));
  const Node* rolling = strategy->Find("rollingUpdate");
  if (type == "Recreate") {
    if (rolling && !rolling->IsNull()) {
      errs.push_back(field::Forbidden(path.Child("rollingUpdate"),
                                      "may not be specified when strategy `type` is 'Recreate'"));
    }
    return;
  }
  if (type != "RollingUpdate") {
    errs.push_back(field::NotSupported(path.Child("type"), type, {"Recreate", "RollingUpdate"}));
    return;
  }
  if (rolling == nullptr) {
    errs.push_back(field::Required(path.Child("rollingUpdate"),
                                   "this should be defaulted and never be nil"));
    return;
  }
  const field::Path r = path.Child("rollingUpdate");
  ValidateIntOrPercent(rolling->Find("maxUnavailable"), r.Child("maxUnavailable"), errs);
  ValidateIntOrPercent(rolling->Find("maxSurge"), r.Child("maxSurge"), errs);
  if (IsZero(rolling->Find("maxUnavailable")) && IsZero(rolling->Find("maxSurge"))) {
    const Node* mu = rolling->Find("maxUnavailable");
    field::BadValue value = mu && mu->IsString() ? field::BadValue(mu->scalar)
                                                 : field::BadValue(std::int64_t{0});
    errs.push_back(field::Invalid(r.Child("maxUnavailable"), value,
                                  "may not be 0 when `maxSurge` is 0"));
  }
}

}  // namespace

std::string WorkloadGroupKind(std::string_view kind) {
  if (kind == "Job" || kind == "CronJob") return std::string(kind) + ".batch";
  return std::string(kind) + ".apps";
}

field::ErrorList ValidateLabelSelector(const Node& selector, const field::Path& path) {
  field::ErrorList errs;
  if (const Node* labels = selector.Find("matchLabels"); labels && labels->IsObject()) {
    for (const auto& m : labels->members) {
      const field::Path p = path.Child("matchLabels");
      for (const auto& msg : IsQualifiedName(m.key)) errs.push_back(field::Invalid(p, m.key, msg));
      for (const auto& msg : IsValidLabelValue(codec::StringOf(&m.value))) {
        errs.push_back(field::Invalid(p, codec::StringOf(&m.value), msg));
      }
    }
  }
  if (const Node* exprs = selector.Find("matchExpressions"); exprs && exprs->IsArray()) {
    for (std::size_t i = 0; i < exprs->items.size(); ++i) {
      const Node& e = exprs->items[i];
      const field::Path p = path.Child("matchExpressions").Index(i);
      const std::string op = codec::StringOf(e.Find("operator"));
      const Node* values = e.Find("values");
      const std::size_t count = values && values->IsArray() ? values->items.size() : 0;
      if (op == "In" || op == "NotIn") {
        if (count == 0) {
          errs.push_back(field::Required(p.Child("values"),
                                         "must be specified when `operator` is 'In' or 'NotIn'"));
        }
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (count > 0) {
          errs.push_back(field::Forbidden(
              p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        }
      } else {
        errs.push_back(field::Invalid(p.Child("operator"), op, "not a valid selector operator"));
      }
      const std::string key = codec::StringOf(e.Find("key"));
      for (const auto& msg : IsQualifiedName(key)) {
        errs.push_back(field::Invalid(p.Child("key"), key, msg));
      }
    }
  }
  return errs;
}

ValidationResult ValidatePodTemplate(const Node& workload, const FeatureGates& gates) {
  ValidationResult out;
  const Node* t = workload.FindPath({"spec", "template"});
  if (t == nullptr || !t->IsObject()) {
    out.errors.push_back(field::Required(kSpec.Child("template"), ""));
    return out;
  }
  // The template as a pod of a name and namespace that are valid: their rules are the pod's,
  // not the template's.
  Node pod = Node::Object();
  pod.Set("apiVersion", Node::String("v1"));
  pod.Set("kind", Node::String("Pod"));
  Node meta = t->Find("metadata") && t->Find("metadata")->IsObject() ? *t->Find("metadata")
                                                                     : Node::Object();
  meta.Set("name", Node::String("template"));
  meta.Set("namespace", Node::String("default"));
  meta.Erase("generateName");
  pod.Set("metadata", std::move(meta));
  pod.Set("spec", t->Find("spec") ? *t->Find("spec") : Node::Object());
  api::PreparedPod prepared = api::PrepareForCreate(pod, api::PrepareForCreateOptions{gates.pod_level_resources});
  ValidationResult v = ValidatePodCreate(prepared.pod, gates);
  for (auto& e : v.errors) {
    if (e.field.starts_with("metadata.name") || e.field.starts_with("metadata.namespace") ||
        e.field.starts_with("metadata.generateName")) {
      continue;
    }
    e.field = UnderTemplate(e.field);
    out.errors.push_back(std::move(e));
  }
  if (v.errors.empty()) {
    for (auto& w : WarningsOnCreate(prepared.pod)) v.warnings.push_back(std::move(w));
  }
  for (auto& w : v.warnings) out.warnings.push_back(UnderTemplate(w));
  return out;
}

ValidationResult ValidateWorkloadCreate(std::string_view kind, const Node& object,
                                        const FeatureGates& gates) {
  if (kind == "CronJob") return ValidateCronJob(object, nullptr, gates);
  ValidationResult out;
  const api::ObjectMeta meta = api::ReadObjectMeta(object);
  out.errors = ValidateObjectMeta(meta, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  static const Node kEmpty = Node::Object();
  const Node* spec_node = object.Find("spec");
  const Node& spec = spec_node && spec_node->IsObject() ? *spec_node : kEmpty;
  NonNegative(spec, "replicas", out.errors);
  if (kind == "Deployment" || kind == "ReplicaSet") {
    const bool usable = ValidateSelector(spec, out.errors);
    ValidateReplicaSetTemplate(spec, usable, out.errors);
  }
  if (kind == "Job") {
    for (const char* f : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                          "ttlSecondsAfterFinished"}) {
      NonNegative(spec, f, out.errors);
    }
    const Node* t = spec.Find("template");
    const Node* labels = t ? t->FindPath({"metadata", "labels"}) : nullptr;
    if (const Node* selector = spec.Find("selector"); selector && !selector->IsNull()) {
      field::Append(out.errors, ValidateLabelSelector(*selector, kSpec.Child("selector")));
      if (!api::LabelSelectorMatches(*selector, labels)) {
        out.errors.push_back(field::Invalid(kSpec.Child("template").Child("metadata").Child("labels"),
                                            JsonValue(labels),
                                            "`selector` does not match template `labels`"));
      }
    } else {
      out.errors.push_back(field::Required(kSpec.Child("selector"), ""));
    }
    const std::string restart =
        codec::StringOf(t ? t->FindPath({"spec", "restartPolicy"}) : nullptr);
    if (restart != "OnFailure" && restart != "Never") {
      out.errors.push_back(field::NotSupported(
          kSpec.Child("template").Child("spec").Child("restartPolicy"), restart,
          {"OnFailure", "Never"}));
    }
  }
  if (kind == "Deployment") {
    ValidateStrategy(spec, out.errors);
    NonNegative(spec, "minReadySeconds", out.errors);
    NonNegative(spec, "revisionHistoryLimit", out.errors);
    NonNegative(spec, "progressDeadlineSeconds", out.errors);
    auto deadline = codec::IntOf(spec.Find("progressDeadlineSeconds"));
    auto min_ready = codec::IntOf(spec.Find("minReadySeconds")).value_or(0);
    if (deadline && *deadline >= 0 && *deadline <= min_ready) {
      out.errors.push_back(field::Invalid(kSpec.Child("progressDeadlineSeconds"), *deadline,
                                          "must be greater than minReadySeconds"));
    }
  }
  if (kind == "ReplicaSet") NonNegative(spec, "minReadySeconds", out.errors);
  ValidationResult pod = ValidatePodTemplate(object, gates);
  field::Append(out.errors, std::move(pod.errors));
  out.warnings = std::move(pod.warnings);
  return out;
}

field::ErrorList ValidateWorkloadUpdate(std::string_view kind, const Node& updated,
                                        const Node& old) {
  field::ErrorList errs;
  auto same = [&](std::initializer_list<std::string_view> path) {
    const Node* a = updated.FindPath(path);
    const Node* b = old.FindPath(path);
    return JsonValue(a) == JsonValue(b);
  };
  if (!same({"spec", "selector"})) {
    errs.push_back(field::Invalid(kSpec.Child("selector"),
                                  JsonValue(updated.FindPath({"spec", "selector"})),
                                  "field is immutable"));
  }
  if (kind == "Job") {
    if (!same({"spec", "completions"})) {
      auto v = codec::IntOf(updated.FindPath({"spec", "completions"}));
      errs.push_back(field::Invalid(kSpec.Child("completions"),
                                    v ? field::BadValue(*v) : field::BadValue(field::Json{"null"}),
                                    "field is immutable"));
    }
    if (!same({"spec", "template"})) {
      errs.push_back(field::Invalid(kSpec.Child("template"),
                                    JsonValue(updated.FindPath({"spec", "template"})),
                                    "field is immutable"));
    }
  }
  return errs;
}

}  // namespace podlimits::validation
