// The webhook's work per review, without HTTP or TLS: AnswerReview on the review that
// bench/webhook_load.sh posts (a pod asking for two ulimits through the NRI annotation, in a
// privileged namespace), JSON in, the AdmissionReview with its JSONPatch out.
#include <benchmark/benchmark.h>

#include <string>

#include "webhook/admission_review.h"
#include "webhook/webhook_config.h"

namespace {

using namespace podlimits;

constexpr std::string_view kConfig = R"(apiVersion: v1
kind: Namespace
metadata:
  name: ci
  labels: {pod-security.kubernetes.io/enforce: privileged}
)";

// The same review as bench/webhook_load.sh's.
constexpr std::string_view kReview =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ci","operation":"CREATE","userInfo":{"username":"system:serviceaccount:ci:runner"},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"runner","namespace":"ci","labels":{"app":"runner"},"annotations":{"ulimits.noderesource.dev/container.runner":"- type: RLIMIT_NOFILE\n  soft: 65536\n  hard: 65536\n- type: RLIMIT_CORE\n  soft: 0\n  hard: 0\n"}},"spec":{"containers":[{"name":"runner","image":"registry.example/ci/runner:1.4","command":["/bin/runner"],"resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"memory":"1Gi"}}}],"restartPolicy":"Never"}},"dryRun":false}})";

void BM_AnswerReviewMutate(benchmark::State& state) {
  auto settings = webhook::ParseWebhookConfig(kConfig, "config.yaml", ".");
  if (!settings) {
    state.SkipWithError(settings.error().Message().c_str());
    return;
  }
  for (auto _ : state) {
    webhook::ReviewAnswer answer =
        webhook::AnswerReview(kReview, webhook::ReviewMode::kMutate, settings->policy);
    if (answer.http_status != 200 || !answer.allowed) state.SkipWithError("review not allowed");
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_AnswerReviewMutate);

}  // namespace
