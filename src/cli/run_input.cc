#include "cli/run_input.h"

#include <fmt/format.h>

#include <cstdio>
#include <variant>

#include "admission/chain.h"
#include "api/config_data.h"
#include "api/decode.h"
#include "cli/exit_codes.h"
#include "cli/input.h"
#include "cli/name_seed.h"
#include "cli/report.h"

namespace podlimits::cli {
namespace {

std::string MetadataString(const codec::Node& tree, std::string_view key) {
  const codec::Node* n = tree.FindPath({"metadata", key});
  return n && n->IsString() ? n->scalar : std::string();
}

// Who the pods are, as decoded: a rejected pod's status still names it.
std::vector<kubelet::RejectedPod> DecodedPods(const std::vector<api::DecodeResult>& decoded) {
  std::vector<kubelet::RejectedPod> pods;
  for (const auto& r : decoded) {
    const auto* obj = std::get_if<api::DecodedObject>(&r);
    if (!obj || obj->kind != "Pod") continue;
    kubelet::RejectedPod p;
    p.name = MetadataString(obj->tree, "name");
    p.namespace_ = MetadataString(obj->tree, "namespace");
    if (p.namespace_.empty()) p.namespace_ = "default";
    p.uid = MetadataString(obj->tree, "uid");
    pods.push_back(std::move(p));
  }
  return pods;
}

// The pod with why it did not run: its own rejection, else the first other object's, which
// keeps the pod from running.
std::optional<kubelet::RejectedPod> RejectedPodOf(
    kubelet::RejectedPod pod, const std::vector<admission::Outcome>& outcomes,
    const std::vector<const admission::Outcome*>& pods) {
  const admission::Outcome* why = nullptr;
  if (pods.size() == 1 && !pods[0]->admitted) why = pods[0];
  for (const auto& o : outcomes) {
    if (why == nullptr && !o.admitted) why = &o;
  }
  if (why == nullptr) return std::nullopt;
  pod.reason = why->reason;
  pod.message = why->message;
  return pod;
}

}  // namespace

RunInput AdmitRunInput(const RunFlags& flags, const validation::FeatureGates& gates) {
  RunInput out;
  auto inputs = ReadInputs(flags.files);
  if (!inputs) {
    std::fprintf(stderr, "%s\n", inputs.error().Message().c_str());  // already "error: ..."
    out.exit_code = kExitUsage;
    return out;
  }
  api::DecodeOptions decode_options;
  decode_options.field_validation = flags.validate_mode;
  std::vector<api::DecodeResult> decoded;
  for (const auto& in : *inputs) {
    for (auto& r : api::DecodeManifests(in.name, in.text, decode_options))
      decoded.push_back(std::move(r));
  }
  const std::vector<kubelet::RejectedPod> decoded_pods = DecodedPods(decoded);
  auto name_generator = NameGeneratorFromEnvironment();
  if (!name_generator) {
    std::fprintf(stderr, "error: %s\n", name_generator.error().Message().c_str());
    out.exit_code = kExitUsage;
    return out;
  }
  admission::ChainOptions options;
  options.gates = gates;
  options.username = "kubernetes-admin";
  options.name_generator = name_generator->get();
  auto outcomes = admission::RunChain(std::move(decoded), options);
  const bool rejected = Report(outcomes, OutputFormat::kNone) != 0;
  std::vector<const admission::Outcome*> pods;
  for (const auto& o : outcomes) {
    if (o.kind == "Pod") pods.push_back(&o);
  }
  if (rejected) {
    out.exit_code = kExitRejected;
    if (decoded_pods.size() == 1) out.rejected = RejectedPodOf(decoded_pods[0], outcomes, pods);
    return out;
  }
  if (pods.size() != 1) {
    std::fprintf(stderr, "error: run takes exactly one Pod; the input has %zu\n", pods.size());
    out.exit_code = kExitUsage;
    return out;
  }
  out.pod = api::PodObject{pods[0]->object, *pods[0]->pod};
  for (const auto& o : outcomes) {
    if (o.kind == "ConfigMap") out.objects.Add(api::ReadConfigMap(o.object));
    if (o.kind == "Secret") out.objects.Add(api::ReadSecret(o.object));
  }
  return out;
}

}  // namespace podlimits::cli
