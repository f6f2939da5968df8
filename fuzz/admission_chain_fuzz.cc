// libFuzzer target: arbitrary bytes as a `podlimits run` input stream, through every step that
// reads it before anything is created: decoding of every kind (Pod, LimitRange, Namespace,
// PersistentVolumeClaim, ConfigMap, Secret), the admission chain, the node's field coverage,
// and for admitted pods the kubelet's pure steps over the stream's ConfigMaps and Secrets
// (environment and volume payloads).
#include <cstdint>
#include <string_view>

#include "admission/chain.h"
#include "api/config_data.h"
#include "api/decode.h"
#include "kubelet/lifecycle/field_coverage.h"
#include "kubelet/volumes/container_env.h"
#include "kubelet/volumes/volume_payload.h"

using namespace podlimits;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto outcomes = admission::RunChain(api::DecodeManifests("fuzz", text), admission::ChainOptions{});
  kubelet::StaticObjectSource objects;
  for (const auto& o : outcomes) {
    if (!o.admitted) continue;
    if (o.kind == "ConfigMap") objects.Add(api::ReadConfigMap(o.object));
    if (o.kind == "Secret") objects.Add(api::ReadSecret(o.object));
  }
  const api::ResourceList allocatable = {
      {"cpu", *resource::Quantity::Parse("2")}, {"memory", *resource::Quantity::Parse("1Gi")}};
  for (const auto& o : outcomes) {
    if (!o.admitted || o.kind != "Pod") continue;
    (void)kubelet::CheckFieldCoverage(o.object, kubelet::FieldCoverageOptions{});
    const api::Pod pod = api::ReadPod(o.object);
    kubelet::EnvContext env;
    env.pod = &pod;
    env.node_name = "node";
    env.objects = &objects;
    env.allocatable = allocatable;
    api::VisitContainers(pod.spec, [&](const api::Container& c) {
      (void)kubelet::MakeEnvironmentVariables(env, c);
    });
    kubelet::PayloadContext payload;
    payload.pod = &pod;
    payload.objects = &objects;
    payload.allocatable = allocatable;
    for (const auto& v : pod.spec.volumes) {
      if (v.projections.empty()) continue;
      if (auto files = kubelet::VolumePayload(v, payload)) {
        for (const auto& [path, file] : *files) (void)kubelet::ValidatePayloadPath(path);
      }
    }
  }
  return 0;
}
