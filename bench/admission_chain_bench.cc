// The whole admission chain on a typical pod: two containers, a namespace at Pod Security
// "restricted", two LimitRanges; JSON decode and canonical JSON encode included.
#include <benchmark/benchmark.h>

#include "admission/chain.h"
#include "api/decode.h"
#include "codec/json_codec.h"

namespace {

using namespace podlimits;

constexpr std::string_view kNamespaceAndLimits = R"({"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{
  "pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted"}}},
{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"containers","namespace":"shop"},
 "spec":{"limits":[{"type":"Container","default":{"cpu":"500m","memory":"256Mi"},
  "defaultRequest":{"cpu":"100m","memory":"128Mi"},"max":{"cpu":"2","memory":"1Gi"}}]}},
{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"pids","namespace":"shop"},
 "spec":{"limits":[{"type":"Pod","default":{"pid":"2048"},"max":{"pid":"4096"}}]}}]})";

constexpr std::string_view kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop","labels":{"app":"web"}},
"spec":{"securityContext":{"runAsNonRoot":true,"runAsUser":1000,"seccompProfile":{"type":"RuntimeDefault"}},
"containers":[
 {"name":"web","image":"nginx:1.27","ports":[{"containerPort":8080,"name":"http"}],
  "resources":{"limits":{"cpu":"1","memory":"512Mi"}},
  "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}},
  "livenessProbe":{"httpGet":{"path":"/healthz","port":"http"}}},
 {"name":"log-agent","image":"busybox:1.36","command":["sh","-c","tail -F /var/log/app.log"],
  "securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";

constexpr int kPodsPerIteration = 100;

void BM_AdmitPodJson(benchmark::State& state) {
  std::string stream(kNamespaceAndLimits);
  for (int i = 0; i < kPodsPerIteration; ++i) {
    stream += '\n';
    stream += kPod;
  }
  admission::ChainOptions options;
  for (auto _ : state) {
    auto outcomes = admission::RunChain(api::DecodeManifests("bench.json", stream), options);
    std::size_t bytes = 0;
    for (const auto& o : outcomes) {
      if (!o.admitted) state.SkipWithError(o.message.c_str());
      bytes += codec::EncodeJson(o.object, 0).size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  // Per-pod figures: time per iteration / kPodsPerIteration.
  state.SetItemsProcessed(state.iterations() * kPodsPerIteration);
  state.counters["us_per_pod"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kPodsPerIteration,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_AdmitPodJson)->Unit(benchmark::kMicrosecond);

}  // namespace
