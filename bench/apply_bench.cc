// Server-side apply of a pod and of a Deployment beside their create, through serve's REST
// handler (issue 31: "server-side apply of a Deployment <= 2x the time of a create of it"): the same two-container pod POSTed (admission, the creator's
// managedFields, the store), applied where it does not exist (the apply that creates), and
// applied again to the stored pod with one label changed (the apply that updates: merge, prune,
// conflicts, admission, the update validation). And the field manager alone on that pod (the
// merge and field sets, no admission, no store). The store is SQLite in a scratch directory, as
// serve's; TLS and HTTP are not included.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "apiserver/rest_handler.h"
#include "codec/json_codec.h"
#include "fieldmanager/field_manager.h"
#include "storage/object_store.h"

namespace {

using namespace podlimits;
using namespace podlimits::apiserver;

// A two-container pod as a user writes it: probes, ports, env, mounts, resources.
std::string PodConfig(std::string_view name, std::string_view label) {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{}","labels":{{"app":"web","rev":"{}"}}}},)"
      R"("spec":{{"volumes":[{{"name":"config","emptyDir":{{}}}}],"containers":[{{"name":"web",)"
      R"("image":"nginx:1.27","ports":[{{"name":"http","containerPort":8080}}],"env":[{{"name":"MODE",)"
      R"("value":"prod"}},{{"name":"LEVEL","value":"3"}}],"resources":{{"limits":{{"cpu":"1","memory":"512Mi"}}}},)"
      R"("volumeMounts":[{{"name":"config","mountPath":"/etc/web"}}],"livenessProbe":{{"httpGet":)"
      R"({{"path":"/healthz","port":"http"}},"periodSeconds":10}}}},{{"name":"log-agent","image":"busybox:1.36",)"
      R"("command":["sh","-c","tail -F /var/log/app.log"]}}]}}}})",
      name, label);
}

// A Deployment of that pod as its template, as a user applies one.
std::string DeploymentConfig(std::string_view name, std::string_view label) {
  auto pod = codec::ParseJsonStream(PodConfig("unused", label));
  codec::Node& template_ = (*pod)[0];
  template_.Erase("apiVersion");
  template_.Erase("kind");
  template_.Find("metadata")->Erase("name");
  return fmt::format(
      R"({{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"{}","labels":{{"app":"web"}}}},)"
      R"("spec":{{"replicas":3,"selector":{{"matchLabels":{{"app":"web"}}}},"strategy":{{"type":"RollingUpdate",)"
      R"("rollingUpdate":{{"maxSurge":1,"maxUnavailable":0}}}},"template":{}}}}})",
      name, codec::EncodeJson(template_, 0));
}

struct Fixture {
  Fixture() {
    char pattern[] = "/tmp/podlimits-apply-bench.XXXXXX";
    dir = mkdtemp(pattern);
    store = std::move(*storage::ObjectStore::Open(dir / "state.db"));
    rest = std::make_unique<RestHandler>(*store, admission::ChainOptions{});
    (void)rest->EnsureSystemNamespaces();
  }
  ~Fixture() {
    rest.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }
  http::HttpResponse Call(std::string method, std::string path, std::string body,
                          std::string content_type, std::string manager = "") {
    http::HttpRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    if (!manager.empty()) r.query["fieldManager"] = std::move(manager);
    r.headers["content-type"] = std::move(content_type);
    r.headers["user-agent"] = "kubectl/v1.32.0 (linux/amd64) kubernetes/abc";
    r.body = std::move(body);
    r.user = "kubernetes-admin";
    return *rest->Handle(r);
  }
  std::filesystem::path dir;
  std::unique_ptr<storage::ObjectStore> store;
  std::unique_ptr<RestHandler> rest;
  int next = 0;
};

Fixture& Node() {
  static Fixture fixture;
  return fixture;
}

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

void BM_CreatePod(benchmark::State& state) {
  Fixture& f = Node();
  for (auto _ : state) {
    auto r = f.Call("POST", kPods, PodConfig(fmt::format("c-{}", f.next++), "1"), "application/json");
    if (r.status != 201) state.SkipWithError(r.body.c_str());
  }
}
BENCHMARK(BM_CreatePod)->Unit(benchmark::kMicrosecond);

void BM_ApplyCreatesPod(benchmark::State& state) {
  Fixture& f = Node();
  for (auto _ : state) {
    const std::string name = fmt::format("a-{}", f.next++);
    auto r = f.Call("PATCH", std::string(kPods) + "/" + name, PodConfig(name, "1"),
                    "application/apply-patch+yaml", "kubectl");
    if (r.status != 201) state.SkipWithError(r.body.c_str());
  }
}
BENCHMARK(BM_ApplyCreatesPod)->Unit(benchmark::kMicrosecond);

void BM_ApplyUpdatesPod(benchmark::State& state) {
  Fixture& f = Node();
  const std::string path = std::string(kPods) + "/applied";
  f.Call("PATCH", path, PodConfig("applied", "0"), "application/apply-patch+yaml", "kubectl");
  int rev = 0;
  for (auto _ : state) {
    auto r = f.Call("PATCH", path, PodConfig("applied", std::to_string(++rev)),
                    "application/apply-patch+yaml", "kubectl");
    if (r.status != 200) state.SkipWithError(r.body.c_str());
  }
}
BENCHMARK(BM_ApplyUpdatesPod)->Unit(benchmark::kMicrosecond);

constexpr const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";

void BM_CreateDeployment(benchmark::State& state) {
  Fixture& f = Node();
  for (auto _ : state) {
    auto r = f.Call("POST", kDeployments, DeploymentConfig(fmt::format("c-{}", f.next++), "1"),
                    "application/json");
    if (r.status != 201) state.SkipWithError(r.body.c_str());
  }
}
BENCHMARK(BM_CreateDeployment)->Unit(benchmark::kMicrosecond);

void BM_ApplyCreatesDeployment(benchmark::State& state) {
  Fixture& f = Node();
  for (auto _ : state) {
    const std::string name = fmt::format("a-{}", f.next++);
    auto r = f.Call("PATCH", std::string(kDeployments) + "/" + name, DeploymentConfig(name, "1"),
                    "application/apply-patch+yaml", "kubectl");
    if (r.status != 201) state.SkipWithError(r.body.c_str());
  }
}
BENCHMARK(BM_ApplyCreatesDeployment)->Unit(benchmark::kMicrosecond);

// The template's label changes each time: a rollout's worth of spec, as `kubectl apply` of a new
// version sends.
void BM_ApplyUpdatesDeployment(benchmark::State& state) {
  Fixture& f = Node();
  const std::string path = std::string(kDeployments) + "/applied";
  f.Call("PATCH", path, DeploymentConfig("applied", "0"), "application/apply-patch+yaml", "kubectl");
  int rev = 0;
  for (auto _ : state) {
    auto r = f.Call("PATCH", path, DeploymentConfig("applied", std::to_string(++rev)),
                    "application/apply-patch+yaml", "kubectl");
    if (r.status != 200) state.SkipWithError(r.body.c_str());
  }
}
BENCHMARK(BM_ApplyUpdatesDeployment)->Unit(benchmark::kMicrosecond);

// The field manager alone: the stored pod (with its managedFields) and a configuration.
void BM_FieldManagerApplyPod(benchmark::State& state) {
  Fixture& f = Node();
  auto stored = f.Call("GET", std::string(kPods) + "/applied", "", "application/json");
  auto live = codec::ParseJsonStream(stored.body);
  auto config = codec::ParseJsonStream(PodConfig("applied", "x"));
  if (stored.status != 200 || !live || !config) {
    state.SkipWithError("no stored pod");
    return;
  }
  const fieldmanager::WriteScope scope{"Pod", "v1", "", "2026-11-29T03:00:00Z", true};
  for (auto _ : state) {
    auto out = fieldmanager::Apply(scope, &(*live)[0], (*config)[0], "kubectl", false);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_FieldManagerApplyPod)->Unit(benchmark::kMicrosecond);

}  // namespace
