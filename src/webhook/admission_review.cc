#include "webhook/admission_review.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "api/decode.h"
#include "api/limit_annotations.h"
#include "api/objects.h"
#include "api/schema.h"
#include "base/base64.h"
#include "codec/json_codec.h"
#include "validation/pod.h"

namespace podlimits::webhook {

using codec::Node;

namespace {

// The JSON values one review may hold. Anyone who reaches the webhook may send one (it has no
// authentication), and a value costs an 88-byte node: 3 MiB of `[0,0,...]` took 400 MB and the
// webhook down under its 128 MiB limit. A pod's review (the pod, and the old one on UPDATE) is a
// few thousand values; 100,000 is twenty times a pod with a thousand environment variables, and
// at most some 25 MB while it is decoded.
constexpr std::size_t kMaxReviewValues = 100'000;

Node StatusOf(int code, std::string_view reason, const std::string& message) {
  Node status = Node::Object();
  status.Set("metadata", Node::Object());
  status.Set("status", Node::String("Failure"));
  status.Set("message", Node::String(message));
  if (!reason.empty()) status.Set("reason", Node::String(std::string(reason)));
  status.Set("code", Node::Int(code));
  return status;
}

// A body the webhook cannot answer: the 400 the apiserver reports as the webhook's failure.
ReviewAnswer Malformed(const std::string& message) {
  Node status = StatusOf(400, "BadRequest", "malformed AdmissionReview: " + message);
  Node out = Node::Object();
  out.Set("kind", Node::String("Status"));
  out.Set("apiVersion", Node::String("v1"));
  for (auto& m : status.members) out.Set(m.key, std::move(m.value));
  return {400, false, codec::EncodeJson(out, 0)};
}

ReviewAnswer Answer(Node response, const std::vector<std::string>& warnings) {
  if (!warnings.empty()) {
    Node list = Node::Array();
    for (const auto& w : warnings) list.items.push_back(Node::String(w));
    response.Set("warnings", std::move(list));
  }
  Node review = Node::Object();
  review.Set("kind", Node::String("AdmissionReview"));
  review.Set("apiVersion", Node::String("admission.k8s.io/v1"));
  const Node* allowed = response.Find("allowed");
  const bool admits = allowed != nullptr && allowed->AsBool();
  review.Set("response", std::move(response));
  return {200, admits, codec::EncodeJson(review, 0)};
}

ReviewAnswer Deny(Node response, int code, std::string_view reason, const std::string& message,
                  const std::vector<std::string>& warnings) {
  response.Set("allowed", Node::Bool(false));
  response.Set("status", StatusOf(code, reason, message));
  return Answer(std::move(response), warnings);
}

// RFC 6901: "~" and "/" in a key.
std::string PointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Node AddOp(std::string path, Node value) {
  Node op = Node::Object();
  op.Set("op", Node::String("add"));
  op.Set("path", Node::String(std::move(path)));
  op.Set("value", std::move(value));
  return op;
}

// The limit annotations of a pod, as one comparable text.
std::string LimitAnnotationsOf(const Node* pod) {
  Node kept = Node::Object();
  const Node* annotations = pod ? pod->FindPath({"metadata", "annotations"}) : nullptr;
  if (annotations && annotations->IsObject()) {
    for (const auto& m : annotations->members) {
      if (api::IsLimitAnnotation(m.key)) kept.Set(m.key, m.value);
    }
  }
  return codec::EncodeJsonSorted(kept);
}

// The review's object as the chain takes it: decoded against the schema, fields it does not
// know dropped (a newer apiserver's), as Go's decoder into the typed object drops them.
api::DecodeResult Decoded(std::string_view kind, Node object) {
  return api::DecodeObject(api::Schema::Objects(), kind, std::move(object), "request", 0,
                           api::FieldValidation::kIgnore);
}

// An object of the policy as the chain takes it. The policy's Namespaces and LimitRanges were
// decoded when it was built (webhook_config.cc, cluster_sync.cc): they are not decoded again for
// every review.
api::DecodeResult PolicyObject(std::string_view kind, const Node& object) {
  return api::DecodedObject{std::string(kind), object, "policy", 0, {}};
}

// The RuntimeClass step of the mutation for an admitted `pod` (with_pid_limit: it has a pod
// PID limit, given or defaulted): the lowest class that covers what the pod needs of its node,
// added to `patch` when the pod names none. A pod naming a class that does not cover it is
// refused: the refusal's text, after "pods NAME is forbidden: ".
std::optional<std::string> PatchRuntimeClass(const Node& pod, bool with_pid_limit,
                                             const std::string& runtime_class,
                                             const RuntimeClasses& runtime_classes, Node& patch) {
  bool writable = false;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const Node* containers = pod.FindPath({"spec", list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const Node& c : containers->items) {
      writable = writable ||
                 codec::StringOf(c.FindPath({"securityContext", "cgroupOptions", "mountMode"})) ==
                     api::kMountModeWritable;
    }
  }
  // What the pod needs of its node, lowest first.
  const std::array<std::string_view, 3> classes = {runtime_classes.ulimits,
                                                   runtime_classes.pod_pid_limit,
                                                   runtime_classes.writable_cgroups};
  const std::size_t need = writable ? 2 : with_pid_limit ? 1 : 0;
  if (runtime_class.empty()) {
    patch.items.push_back(
        AddOp("/spec/runtimeClassName", Node::String(std::string(classes[need]))));
    return std::nullopt;
  }
  if (std::find(classes.begin() + static_cast<std::ptrdiff_t>(need), classes.end(),
                runtime_class) != classes.end()) {
    return std::nullopt;
  }
  return fmt::format("spec.runtimeClassName: Invalid value: {}: a pod that uses podlimits' "
                     "fields runs with runtime class {}",
                     field::GoQuote(runtime_class), field::GoQuote(classes[need]));
}

}  // namespace

ReviewAnswer AnswerReview(std::string_view body, ReviewMode mode, const ReviewPolicy& policy) {
  auto parsed = codec::ParseJsonStream(body, kMaxReviewValues);
  if (!parsed) return Malformed("the body is not JSON: " + parsed.error().message);
  if (parsed->size() != 1 || !(*parsed)[0].IsObject()) return Malformed("not one JSON object");
  Node& review = (*parsed)[0];
  const std::string api_version = codec::StringOf(review.Find("apiVersion"));
  const std::string kind = codec::StringOf(review.Find("kind"));
  if (api_version != "admission.k8s.io/v1" || kind != "AdmissionReview") {
    return Malformed(fmt::format("expected apiVersion admission.k8s.io/v1, kind AdmissionReview; "
                                 "got {} {}",
                                 field::GoQuote(api_version), field::GoQuote(kind)));
  }
  // What is read of the review is read by type below (a request that is not an object, a uid
  // that is not a string are refused as missing); the pod itself is decoded with its schema.
  Node* request = review.Find("request");
  if (request == nullptr || !request->IsObject()) return Malformed("it has no request");
  const std::string uid = codec::StringOf(request->Find("uid"));
  if (uid.empty()) return Malformed("request.uid is missing");

  // In AdmissionResponse's field order: uid, allowed, status, patch, patchType, warnings.
  Node response = Node::Object();
  response.Set("uid", Node::String(uid));
  response.Set("allowed", Node::Bool(true));
  auto allow = [&](const std::vector<std::string>& warnings) {
    return Answer(std::move(response), warnings);
  };
  const std::string operation = codec::StringOf(request->Find("operation"));
  const bool pods = codec::StringOf(request->FindPath({"kind", "group"})).empty() &&
                    codec::StringOf(request->FindPath({"kind", "kind"})) == "Pod" &&
                    codec::StringOf(request->FindPath({"resource", "resource"})) == "pods" &&
                    codec::StringOf(request->Find("subResource")).empty();
  if (!pods || (operation != "CREATE" && operation != "UPDATE")) return allow({});
  Node* object = request->Find("object");
  if (object == nullptr || !object->IsObject()) return Malformed("request.object is not a Pod");

  // The review is not read again past this point but for these: the pod moves out of it.
  const std::string runtime_class = codec::StringOf(object->FindPath({"spec", "runtimeClassName"}));
  const bool has_annotations = object->FindPath({"metadata", "annotations"}) != nullptr;
  Node pod = std::move(*object);
  const std::string ns = codec::StringOf(request->Find("namespace"));
  if (!ns.empty()) pod.Ensure("metadata").Set("namespace", Node::String(ns));
  const api::ObjectMeta meta = api::ReadObjectMeta(pod);
  const std::string name = meta.name.empty() ? meta.generate_name : meta.name;

  if (operation == "UPDATE") {
    // The fields the annotations stand for are immutable; the apiserver validated the rest.
    if (LimitAnnotationsOf(&pod) != LimitAnnotationsOf(request->Find("oldObject"))) {
      field::ErrorList errs;
      errs.push_back(field::Forbidden(field::Path("metadata").Child("annotations"),
                                      "podlimits' limit annotations are immutable"));
      return Deny(std::move(response), 422, "Invalid",
                  validation::InvalidMessage("Pod", meta, errs), {});
    }
    return allow({});
  }

  api::AnnotatedFields annotated = api::ApplyLimitAnnotations(pod);
  std::vector<std::string> warnings = annotated.warnings;
  if (!annotated.errors.empty()) {
    return Deny(std::move(response), 422, "Invalid",
                validation::InvalidMessage("Pod", meta, annotated.errors), warnings);
  }
  if (!annotated.any) return allow(warnings);
  if (auto it = policy.unusable_limit_ranges.find(ns); it != policy.unusable_limit_ranges.end()) {
    return Deny(std::move(response), 403, "Forbidden",
                fmt::format("pods {} is forbidden: the LimitRanges of namespace {} cannot be "
                            "applied: {}",
                            field::GoQuote(name), field::GoQuote(ns), it->second),
                warnings);
  }

  // The namespace as the webhook knows it, its LimitRanges, then the pod: what `admit` reads.
  std::vector<api::DecodeResult> stream;
  if (auto it = policy.namespaces.find(ns); it != policy.namespaces.end()) {
    stream.push_back(PolicyObject("Namespace", it->second));
  } else {
    Node bare = Node::Object();
    bare.Set("apiVersion", Node::String("v1"));
    bare.Set("kind", Node::String("Namespace"));
    bare.Ensure("metadata").Set("name", Node::String(ns.empty() ? "default" : ns));
    stream.push_back(PolicyObject("Namespace", bare));
  }
  if (auto it = policy.limit_ranges.find(ns); it != policy.limit_ranges.end()) {
    for (const Node& lr : it->second) stream.push_back(PolicyObject("LimitRange", lr));
  }
  const std::size_t context = stream.size();
  const bool pid_given = pod.FindPath({"spec", "resources", "limits", "pid"}) != nullptr;
  stream.push_back(Decoded("Pod", std::move(pod)));
  admission::ChainOptions options = policy.chain;
  options.canonical_order = false;  // only fields of the outcome are read
  options.username = codec::StringOf(request->FindPath({"userInfo", "username"}));
  std::vector<admission::Outcome> outcomes = admission::RunChain(std::move(stream), options);
  if (outcomes.size() != context + 1) return Malformed("the pod produced no admission outcome");
  admission::Outcome& outcome = outcomes.back();
  warnings.insert(warnings.end(), outcome.warnings.begin(), outcome.warnings.end());
  if (!outcome.admitted) {
    return Deny(std::move(response), admission::StatusCode(outcome.reason), outcome.reason,
                outcome.message, warnings);
  }
  if (mode == ReviewMode::kValidate) return allow(warnings);

  Node patch = Node::Array();
  const Node* admitted = outcome.object.FindPath({"spec", "resources", "limits", "pid"});
  // Under NRI the plugin judges the pod on whichever node it lands: its class is its own.
  if (policy.node_enforcement == NodeEnforcement::kRuntimeClass) {
    if (auto refused = PatchRuntimeClass(outcome.object, admitted != nullptr, runtime_class,
                                         policy.runtime_classes, patch)) {
      return Deny(std::move(response), 403, "Forbidden",
                  fmt::format("pods {} is forbidden: {}", field::GoQuote(name), *refused),
                  warnings);
    }
  }
  // A pod PID limit from a LimitRange's default, for the node's wrapper or NRI plugin to read.
  if (!pid_given && admitted != nullptr) {
    if (!has_annotations) {
      Node annotations = Node::Object();
      annotations.Set(api::kPodPidLimitKey, *admitted);
      patch.items.push_back(AddOp("/metadata/annotations", std::move(annotations)));
    } else {
      patch.items.push_back(
          AddOp("/metadata/annotations/" + PointerToken(api::kPodPidLimitKey), *admitted));
    }
  }
  if (!patch.items.empty()) {
    response.Set("patch", Node::String(Base64Encode(codec::EncodeJson(patch, 0))));
    response.Set("patchType", Node::String("JSONPatch"));
  }
  return allow(warnings);
}

}  // namespace podlimits::webhook
