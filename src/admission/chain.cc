#include "admission/chain.h"

#include <fmt/format.h>

#include "admission/limit_ranger.h"
#include "admission/pod_security.h"
#include "api/config_data.h"
#include "api/defaults.h"
#include "api/limit_range_defaults.h"
#include "api/name_generator.h"
#include "api/objects.h"
#include "api/pod_strategy.h"
#include "api/workload_defaults.h"
#include "base/uuid.h"
#include "field/field.h"
#include "validation/config_data.h"
#include "validation/drop_disabled.h"
#include "validation/event.h"
#include "validation/limit_range.h"
#include "validation/node.h"
#include "validation/object_meta.h"
#include "validation/persistent_volume_claim.h"
#include "validation/pod.h"
#include "validation/pod_warnings.h"
#include "validation/workloads.h"

namespace podlimits::admission {
namespace {

struct NamespaceState {
  api::Namespace ns;
  std::vector<api::LimitRange> limit_ranges;
  // A Namespace document of the input created it / was rejected. A namespace the input never
  // declares exists with no labels (podlimits has no cluster to look it up in); one whose
  // only declarations were rejected does not exist.
  bool created = false;
  bool rejected = false;
};

class Chain {
 public:
  explicit Chain(const ChainOptions& options) : options_(options) {}

  std::vector<Outcome> Run(std::vector<api::DecodeResult> decoded) {
    std::vector<Outcome> outcomes(decoded.size());
    auto each = [&](auto&& admit) {
      for (std::size_t i = 0; i < decoded.size(); ++i) {
        if (auto* obj = std::get_if<api::DecodedObject>(&decoded[i])) admit(*obj, outcomes[i]);
      }
    };
    for (std::size_t i = 0; i < decoded.size(); ++i) {
      if (auto* err = std::get_if<api::DecodeError>(&decoded[i])) outcomes[i] = Failed(*err);
    }
    // Namespaces first (they decide whether the objects in them can exist), then limit ranges
    // (they shape how pods and claims are admitted), then what they apply to.
    each([&](api::DecodedObject& obj, Outcome& out) {
      if (obj.kind == "Namespace") out = AdmitNamespace(obj);
      if (obj.kind == "Node") out = AdmitNode(obj);
    });
    each([&](api::DecodedObject& obj, Outcome& out) {
      if (obj.kind == "LimitRange") out = AdmitLimitRange(obj);
    });
    each([&](api::DecodedObject& obj, Outcome& out) {
      if (obj.kind == "Pod") out = AdmitPod(obj);
      if (obj.kind == "PersistentVolumeClaim") out = AdmitPersistentVolumeClaim(obj);
      if (obj.kind == "ConfigMap") out = AdmitConfigMap(obj);
      if (obj.kind == "Secret") out = AdmitSecret(obj);
      if (obj.kind == "Event") out = AdmitEvent(obj);
      if (api::IsWorkloadKind(obj.kind)) out = AdmitWorkload(obj);
    });
    return outcomes;
  }

 private:
  static Outcome Failed(const api::DecodeError& err) {
    Outcome o;
    o.from_server = err.from_server;
    o.reason = err.reason;
    o.message = err.message;
    return o;
  }

  static Outcome Rejected(std::string kind, std::string name, std::string reason,
                          std::string message, std::vector<std::string> warnings) {
    Outcome o;
    o.kind = std::move(kind);
    o.name = std::move(name);
    o.reason = std::move(reason);
    o.message = std::move(message);
    o.warnings = std::move(warnings);
    return o;
  }

  // An Invalid rejection with the field errors behind its message (the Status causes).
  static Outcome Invalid(std::string kind, std::string name, std::string message,
                         field::ErrorList errors, std::vector<std::string> warnings) {
    Outcome o = Rejected(std::move(kind), std::move(name), "Invalid", std::move(message),
                         std::move(warnings));
    o.field_errors = std::move(errors);
    return o;
  }

  Outcome Admitted(std::string kind, std::string name, codec::Node tree,
                   std::vector<std::string> warnings) const {
    if (options_.canonical_order) api::CanonicalizeOrder(tree, kind);
    Outcome o;
    o.admitted = true;
    o.kind = std::move(kind);
    o.name = std::move(name);
    o.object = std::move(tree);
    o.warnings = std::move(warnings);
    return o;
  }

  NamespaceState& State(const std::string& name) {
    auto [it, inserted] = namespaces_.try_emplace(name);
    if (inserted) it->second.ns.metadata.name = name;
    return it->second;
  }

  api::NameGenerator& name_generator() {
    if (options_.name_generator) return *options_.name_generator;
    if (!own_name_generator_) own_name_generator_.emplace();
    return *own_name_generator_;
  }

  // NamespaceLifecycle, the first admission plugin: nothing is created in a namespace that
  // does not exist. Only a namespace whose Namespace documents were all rejected is missing.
  std::optional<Outcome> MissingNamespace(std::string kind, const codec::Node& tree,
                                          std::vector<std::string>& warnings) {
    if (!options_.run_admission_plugins) return std::nullopt;
    api::ObjectMeta meta = api::ReadObjectMeta(tree);
    auto it = namespaces_.find(meta.namespace_);
    if (it == namespaces_.end() || it->second.created || !it->second.rejected) return std::nullopt;
    return Rejected(std::move(kind), meta.name, "NotFound",
                    "namespaces " + field::GoQuote(meta.namespace_) + " not found",
                    std::move(warnings));
  }

  Outcome AdmitNamespace(api::DecodedObject& obj) {
    api::SetDefaultsNamespace(obj.tree);
    api::GenerateObjectName(obj.tree, name_generator());
    api::Namespace ns = api::ReadNamespace(obj.tree);
    auto reject = [&] {
      if (!ns.metadata.name.empty()) State(ns.metadata.name).rejected = true;
    };
    field::ErrorList errs = validation::ValidateObjectMeta(
        ns.metadata, false, validation::NameRule::kDNSLabel, field::Path("metadata"));
    if (!errs.empty()) {
      reject();
      return Invalid("Namespace", ns.metadata.name,
                     validation::InvalidMessage("Namespace", ns.metadata, errs), errs,
                     obj.warnings);
    }
    // The namespace strategy's Canonicalize: the name label of a generated name.
    api::SetNamespaceNameLabel(obj.tree);
    std::vector<std::string> warnings = std::move(obj.warnings);
    if (options_.run_admission_plugins) {
      psa::NamespaceDecision security = pod_security().ValidateNamespace(ns);
      for (auto& w : security.warnings) warnings.push_back(std::move(w));
      if (security.invalid_message) {
        reject();
        return Rejected("Namespace", ns.metadata.name, "Invalid", *security.invalid_message,
                        std::move(warnings));
      }
    }
    NamespaceState& state = State(ns.metadata.name);
    state.ns = api::ReadNamespace(obj.tree);
    state.created = true;
    return Admitted("Namespace", ns.metadata.name, std::move(obj.tree), std::move(warnings));
  }

  // A Node (its update through the API: cordon, labels, taints): metadata and taints are
  // validated; no admission plugin of this chain looks at nodes.
  Outcome AdmitNode(api::DecodedObject& obj) {
    api::ObjectMeta meta = api::ReadObjectMeta(obj.tree);
    field::ErrorList errs = validation::ValidateObjectMeta(
        meta, false, validation::NameRule::kDNSSubdomain, field::Path("metadata"));
    field::Append(errs, validation::ValidateNodeTaints(obj.tree));
    if (!errs.empty()) {
      return Invalid("Node", meta.name, validation::InvalidMessage("Node", meta, errs), errs,
                     std::move(obj.warnings));
    }
    return Admitted("Node", meta.name, std::move(obj.tree), std::move(obj.warnings));
  }

  Outcome AdmitLimitRange(api::DecodedObject& obj) {
    api::SetDefaultNamespace(obj.tree);
    api::SetDefaultsLimitRange(obj.tree);
    if (auto missing = MissingNamespace("LimitRange", obj.tree, obj.warnings)) return *missing;
    api::GenerateObjectName(obj.tree, name_generator());
    api::LimitRange lr = api::ReadLimitRange(obj.tree);
    field::ErrorList errs = validation::ValidateLimitRange(lr, options_.gates);
    if (!errs.empty()) {
      return Invalid("LimitRange", lr.metadata.name,
                     validation::LimitRangeInvalidMessage(lr.metadata.name, errs), errs,
                     obj.warnings);
    }
    State(lr.metadata.namespace_).limit_ranges.push_back(lr);
    return Admitted("LimitRange", lr.metadata.name, std::move(obj.tree), std::move(obj.warnings));
  }

  Outcome AdmitPersistentVolumeClaim(api::DecodedObject& obj) {
    api::SetDefaultNamespace(obj.tree);
    codec::Node& spec = obj.tree.Ensure("spec");
    if (!spec.Find("volumeMode")) spec.Set("volumeMode", codec::Node::String("Filesystem"));
    if (codec::Node* resources = spec.Find("resources")) {
      if (codec::Node* requests = resources->Find("requests"))
        api::RoundResourceListToMilli(*requests);
    }
    if (auto missing = MissingNamespace("PersistentVolumeClaim", obj.tree, obj.warnings)) {
      return *missing;
    }
    api::GenerateObjectName(obj.tree, name_generator());
    api::PersistentVolumeClaim pvc = api::ReadPersistentVolumeClaim(obj.tree);
    field::ErrorList errs = validation::ValidatePersistentVolumeClaim(pvc);
    if (!errs.empty()) {
      return Invalid("PersistentVolumeClaim", pvc.metadata.name,
                     validation::InvalidMessage("PersistentVolumeClaim", pvc.metadata, errs), errs,
                     std::move(obj.warnings));
    }
    if (options_.run_admission_plugins) {
      LimitRanger limit_ranger(State(pvc.metadata.namespace_).limit_ranges, options_.gates);
      if (auto forbidden = limit_ranger.ValidatePersistentVolumeClaim(pvc)) {
        return Rejected("PersistentVolumeClaim", pvc.metadata.name, "Forbidden", *forbidden,
                        std::move(obj.warnings));
      }
    }
    return Admitted("PersistentVolumeClaim", pvc.metadata.name, std::move(obj.tree),
                    std::move(obj.warnings));
  }

  // ConfigMaps and Secrets pass NamespaceLifecycle and validation; no other admission plugin
  // of this chain looks at them.
  Outcome AdmitConfigMap(api::DecodedObject& obj) {
    api::SetDefaultNamespace(obj.tree);
    if (auto missing = MissingNamespace("ConfigMap", obj.tree, obj.warnings)) return *missing;
    api::GenerateObjectName(obj.tree, name_generator());
    api::ConfigMap cm = api::ReadConfigMap(obj.tree);
    field::ErrorList errs = validation::ValidateConfigMap(cm);
    if (!errs.empty()) {
      return Invalid("ConfigMap", cm.metadata.name,
                     validation::InvalidMessage("ConfigMap", cm.metadata, errs), errs,
                     std::move(obj.warnings));
    }
    return Admitted("ConfigMap", cm.metadata.name, std::move(obj.tree), std::move(obj.warnings));
  }

  // Events pass NamespaceLifecycle and the legacy event validation; no other plugin.
  Outcome AdmitEvent(api::DecodedObject& obj) {
    api::SetDefaultNamespace(obj.tree);
    if (auto missing = MissingNamespace("Event", obj.tree, obj.warnings)) return *missing;
    api::GenerateObjectName(obj.tree, name_generator());
    api::ObjectMeta meta = api::ReadObjectMeta(obj.tree);
    field::ErrorList errs = validation::ValidateObjectMeta(
        meta, true, validation::NameRule::kDNSSubdomain, field::Path("metadata"));
    field::Append(errs, validation::ValidateEvent(obj.tree));
    if (!errs.empty()) {
      return Invalid("Event", meta.name, validation::InvalidMessage("Event", meta, errs), errs,
                     std::move(obj.warnings));
    }
    return Admitted("Event", meta.name, std::move(obj.tree), std::move(obj.warnings));
  }

  // Deployments, ReplicaSets, Jobs and CronJobs: defaulted (their template as a PodSpec), validated with
  // their template under the pod rules, and Pod Security's audit and warn on the template
  // (never enforce: the pods they create are admitted on their own, LimitRanger included).
  Outcome AdmitWorkload(api::DecodedObject& obj) {
    const std::string kind = obj.kind;
    codec::Node& tree = obj.tree;
    api::SetDefaultNamespace(tree);
    if (auto missing = MissingNamespace(kind, tree, obj.warnings)) return *missing;
    api::SetDefaultsWorkload(tree, kind);
    api::GenerateObjectName(tree, name_generator());
    // The registry strategies' PrepareForCreate: generation 1; a Job's selector is generated
    // from its uid, which is therefore set here rather than at the store's create.
    tree.Ensure("metadata").Set("generation", codec::Node::Int(1));
    if (kind == "Job") {
      tree.Ensure("metadata").Set("uid", codec::Node::String(NewUuid()));
      api::GenerateJobSelector(tree, codec::StringOf(tree.FindPath({"metadata", "uid"})));
    }
    api::ObjectMeta meta = api::ReadObjectMeta(tree);
    std::vector<std::string> warnings = std::move(obj.warnings);
    validation::ValidationResult v = validation::ValidateWorkloadCreate(kind, tree, options_.gates);
    if (!v.errors.empty()) {
      return Invalid(kind, meta.name,
                     validation::InvalidMessage(validation::WorkloadGroupKind(kind), meta,
                                                v.errors),
                     v.errors, std::move(warnings));
    }
    for (auto& w : v.warnings) warnings.push_back(std::move(w));
    Outcome o;
    if (options_.run_admission_plugins) {
      codec::Node pod = codec::Node::Object();
      // A CronJob's pods come from spec.jobTemplate.spec.template.
      const codec::Node* t = kind == "CronJob" ? tree.FindPath({"spec", "jobTemplate", "spec", "template"})
                                               : tree.FindPath({"spec", "template"});
      codec::Node pod_meta = t && t->Find("metadata") ? *t->Find("metadata") : codec::Node::Object();
      pod_meta.Set("namespace", codec::Node::String(meta.namespace_));
      pod.Set("metadata", std::move(pod_meta));
      pod.Set("spec", t && t->Find("spec") ? *t->Find("spec") : codec::Node::Object());
      const api::Pod view = api::ReadPod(pod);
      psa::PodSecurityDecision security = pod_security().EvaluatePodController(
          State(meta.namespace_).ns, view, options_.username);
      for (auto& w : security.warnings) warnings.push_back(std::move(w));
      o.audit_annotations = std::move(security.audit_annotations);
    }
    Outcome admitted = Admitted(kind, meta.name, std::move(tree), std::move(warnings));
    admitted.audit_annotations = std::move(o.audit_annotations);
    return admitted;
  }

  Outcome AdmitSecret(api::DecodedObject& obj) {
    api::SetDefaultNamespace(obj.tree);
    api::SetDefaultsSecret(obj.tree);
    if (auto missing = MissingNamespace("Secret", obj.tree, obj.warnings)) return *missing;
    api::GenerateObjectName(obj.tree, name_generator());
    api::Secret secret = api::ReadSecret(obj.tree);
    field::ErrorList errs = validation::ValidateSecret(secret);
    if (!errs.empty()) {
      return Invalid("Secret", secret.metadata.name,
                     validation::InvalidMessage("Secret", secret.metadata, errs), errs,
                     std::move(obj.warnings));
    }
    return Admitted("Secret", secret.metadata.name, std::move(obj.tree),
                    std::move(obj.warnings));
  }

  Outcome AdmitPod(api::DecodedObject& obj) {
    const auto& gates = options_.gates;
    std::vector<std::string> warnings = std::move(obj.warnings);
    codec::Node& tree = obj.tree;
    api::SetDefaultNamespace(tree);
    // Before the dropped-field warnings: upstream drops fields in PrepareForCreate, after
    // admission, so a pod NamespaceLifecycle rejects never gets them.
    if (auto missing = MissingNamespace("Pod", tree, warnings)) return *missing;
    for (auto& w : validation::DropDisabledPodFields(tree, gates)) warnings.push_back(std::move(w));
    api::SetDefaultsPod(tree);
    std::string ns_name = api::ReadObjectMeta(tree).namespace_;
    NamespaceState& state = State(ns_name);

    std::optional<LimitRanger> limit_ranger;
    if (options_.run_admission_plugins) {
      limit_ranger.emplace(state.limit_ranges, gates);
      limit_ranger->Admit(tree);
    }
    api::GenerateObjectName(tree, name_generator());
    // The registry strategy: PrepareForCreate, Validate, WarningsOnCreate.
    api::PreparedPod prepared =
        api::PrepareForCreate(tree, api::PrepareForCreateOptions{gates.pod_level_resources});
    for (auto& w : prepared.warnings) warnings.push_back(std::move(w));
    api::Pod& pod = prepared.pod;
    validation::ValidationResult v = validation::ValidatePodCreate(pod, gates);
    for (auto& w : v.warnings) warnings.push_back(std::move(w));
    if (!v.errors.empty()) {
      return Invalid("Pod", pod.metadata.name,
                     validation::InvalidMessage("Pod", pod.metadata, v.errors), v.errors,
                     std::move(warnings));
    }
    for (auto& w : validation::WarningsOnCreate(pod)) warnings.push_back(std::move(w));
    if (!options_.run_admission_plugins) {
      Outcome o = Admitted("Pod", pod.metadata.name, std::move(tree), std::move(warnings));
      o.pod = std::move(pod);
      return o;
    }
    if (auto forbidden = limit_ranger->Validate(pod)) {
      return Rejected("Pod", pod.metadata.name, "Forbidden", *forbidden, std::move(warnings));
    }
    psa::PodSecurityDecision security =
        pod_security().Evaluate(state.ns, pod, tree, options_.username);
    for (auto& w : security.warnings) warnings.push_back(std::move(w));
    if (security.forbidden_message) {
      return Rejected("Pod", pod.metadata.name, "Forbidden", *security.forbidden_message,
                      std::move(warnings));
    }
    Outcome o = Admitted("Pod", pod.metadata.name, std::move(tree), std::move(warnings));
    o.audit_annotations = std::move(security.audit_annotations);
    o.pod = std::move(pod);
    return o;
  }

  const psa::PodSecurity& pod_security() {
    if (options_.pod_security) return *options_.pod_security;
    if (!default_pod_security_) default_pod_security_.emplace();
    return *default_pod_security_;
  }

  const ChainOptions& options_;
  std::map<std::string, NamespaceState> namespaces_;
  std::optional<psa::PodSecurity> default_pod_security_;
  std::optional<api::NameGenerator> own_name_generator_;
};

}  // namespace

int StatusCode(std::string_view reason) {
  if (reason == "Invalid") return 422;
  if (reason == "Forbidden") return 403;
  if (reason == "NotFound") return 404;
  if (reason == "AlreadyExists" || reason == "Conflict") return 409;
  return 400;
}

std::vector<Outcome> RunChain(std::vector<api::DecodeResult> decoded, const ChainOptions& options) {
  Chain chain(options);
  return chain.Run(std::move(decoded));
}

}  // namespace podlimits::admission
