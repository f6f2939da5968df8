// decode + validate of a typical two-container pod, from JSON and from YAML.
#include <benchmark/benchmark.h>

#include "api/decode.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/pod_strategy.h"
#include "codec/json_codec.h"
#include "validation/drop_disabled.h"
#include "validation/pod.h"

namespace {

using namespace podlimits;

constexpr std::string_view kTypicalPodYaml = R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  labels: {app: web, tier: frontend}
spec:
  resources:
    limits: {pid: 4096}
  containers:
  - name: web
    image: nginx:1.27
    ports: [{containerPort: 8080, name: http}]
    resources:
      limits: {cpu: 500m, memory: 256Mi}
      requests: {cpu: 250m, memory: 128Mi}
    securityContext:
      allowPrivilegeEscalation: false
      ulimits: [{name: nofile, soft: 4096, hard: 8192}]
    livenessProbe: {httpGet: {path: /healthz, port: http}}
  - name: log-agent
    image: busybox:1.36
    command: [sh, -c, "tail -F /var/log/app.log"]
    resources:
      limits: {cpu: 100m, memory: 64Mi}
    securityContext:
      cgroupOptions: {mountMode: ReadOnly}
)";

std::string TypicalPodJson() {
  auto decoded = api::DecodeManifests("pod.yaml", kTypicalPodYaml);
  return codec::EncodeJson(std::get<api::DecodedObject>(decoded[0]).tree, 0);
}

void DecodeAndValidate(std::string_view text, benchmark::State& state) {
  validation::FeatureGates gates;
  for (auto _ : state) {
    auto decoded = api::DecodeManifests("pod", text);
    auto& obj = std::get<api::DecodedObject>(decoded[0]);
    validation::DropDisabledPodFields(obj.tree, gates);
    api::SetDefaultsPod(obj.tree);
    api::Pod pod = api::PrepareForCreate(obj.tree, {}).pod;
    auto result = validation::ValidatePodCreate(pod, gates);
    if (!result.errors.empty()) state.SkipWithError("typical pod did not validate");
    benchmark::DoNotOptimize(result);
  }
}

void BM_DecodeValidatePodJson(benchmark::State& state) {
  static const std::string json = TypicalPodJson();
  DecodeAndValidate(json, state);
}
BENCHMARK(BM_DecodeValidatePodJson);

void BM_DecodeValidatePodYaml(benchmark::State& state) {
  DecodeAndValidate(kTypicalPodYaml, state);
}
BENCHMARK(BM_DecodeValidatePodYaml);

}  // namespace
