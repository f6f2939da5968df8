// `podlimits serve`'s list of pods through the REST handler, as kubectl and informers ask for it:
// 1,000 stored pods (about 3 KB each, with status) read as a PodList (the fast path: stored bytes
// out as they are), as kubectl's Table, and in pages of 500 following metadata.continue (what
// `kubectl get` and client-go's pager do). The store is SQLite in a scratch directory, as
// serve's; TLS and HTTP are not included.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "storage/object_store.h"
#include "apiserver/rest_handler.h"

namespace {

using namespace podlimits;
using namespace podlimits::apiserver;

constexpr int kPods = 1000;

constexpr std::string_view kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/"
    "json;as=Table;v=v1beta1;g=meta.k8s.io,"
    "application/json";

// A running two-container pod as the store keeps it (kind and apiVersion first).
std::string StoredPod(int i, std::int64_t rv) {
  return fmt::format(
      R"({{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"web-{0:04}","namespace":"shop",)"
      R"("uid":"6f1c2a4e-0b7d-4f3e-9a51-{0:012}","resourceVersion":"{1}",)"
      R"("creationTimestamp":"2026-11-25T12:00:00Z","labels":{{"app":"web","tier":"front",)"
      R"("pod-template-hash":"7c9d8f6b5"}},"annotations":{{"kubectl.kubernetes.io/restartedAt":)"
      R"("2026-11-25T11:59:00Z"}}}},"spec":{{"volumes":[{{"name":"config","configMap":{{"name":"web",)"
      R"("defaultMode":420}}}}],"containers":[{{"name":"web","image":"nginx:1.27","ports":)"
      R"([{{"name":"http","containerPort":8080,"protocol":"TCP"}}],"resources":{{"limits":{{"cpu":"1",)"
      R"("memory":"512Mi"}},"requests":{{"cpu":"1","memory":"512Mi"}}}},"volumeMounts":[{{"name":)"
      R"("config","mountPath":"/etc/web"}}],"livenessProbe":{{"httpGet":{{"path":"/healthz","port":)"
      R"("http","scheme":"HTTP"}},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,)"
      R"("failureThreshold":3}},"terminationMessagePath":"/dev/termination-log",)"
      R"("terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent","securityContext":)"
      R"({{"capabilities":{{"drop":["ALL"]}},"allowPrivilegeEscalation":false}}}},{{"name":"log-agent",)"
      R"("image":"busybox:1.36","command":["sh","-c","tail -F /var/log/app.log"],"resources":{{}},)"
      R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)"
      R"("imagePullPolicy":"IfNotPresent"}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,)"
      R"("dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"node-a",)"
      R"("securityContext":{{"runAsNonRoot":true,"runAsUser":1000}},"schedulerName":"default-scheduler",)"
      R"("tolerations":[{{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute",)"
      R"("tolerationSeconds":300}}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":)"
      R"("PreemptLowerPriority"}},"status":{{"phase":"Running","conditions":[{{"type":"Initialized",)"
      R"("status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-25T12:00:00Z"}},)"
      R"({{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":)"
      R"("2026-11-25T12:00:02Z"}},{{"type":"ContainersReady","status":"True","lastProbeTime":null,)"
      R"("lastTransitionTime":"2026-11-25T12:00:02Z"}},{{"type":"PodScheduled","status":"True",)"
      R"("lastProbeTime":null,"lastTransitionTime":"2026-11-25T12:00:00Z"}}],"hostIP":"10.0.0.7",)"
      R"("podIP":"10.88.{2}.{3}","podIPs":[{{"ip":"10.88.{2}.{3}"}}],"startTime":"2026-11-25T12:00:00Z",)"
      R"("containerStatuses":[{{"name":"log-agent","state":{{"running":{{"startedAt":)"
      R"("2026-11-25T12:00:01Z"}}}},"lastState":{{}},"ready":true,"restartCount":0,"image":)"
      R"("busybox:1.36","imageID":"","containerID":"podlimits://{0:064}","started":true}},)"
      R"({{"name":"web","state":{{"running":{{"startedAt":"2026-11-25T12:00:01Z"}}}},"lastState":{{}},)"
      R"("ready":true,"restartCount":0,"image":"nginx:1.27","imageID":"","containerID":)"
      R"("podlimits://{0:064}","started":true}}],"qosClass":"Burstable"}}}})",
      i, rv, i / 250, i % 250 + 1);
}

// One store with kPods pods for the whole run.
struct Fixture {
  Fixture() {
    char pattern[] = "/tmp/podlimits-list-bench.XXXXXX";
    dir = mkdtemp(pattern);
    store = std::move(*storage::ObjectStore::Open(dir / "state.db"));
    for (int i = 0; i < kPods; ++i) {
      (void)store->Create({"pods", "shop", fmt::format("web-{:04}", i)},
                          [i](std::int64_t rv) { return StoredPod(i, rv); });
    }
    rest = std::make_unique<RestHandler>(*store, admission::ChainOptions{});
  }
  ~Fixture() {
    rest.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }
  std::filesystem::path dir;
  std::unique_ptr<storage::ObjectStore> store;
  std::unique_ptr<RestHandler> rest;
};

Fixture& Pods() {
  static Fixture fixture;
  return fixture;
}

http::HttpRequest ListRequest(std::string_view accept) {
  http::HttpRequest r;
  r.method = "GET";
  r.path = "/api/v1/pods";
  r.headers["accept"] = std::string(accept);
  r.user = "kubernetes-admin";
  return r;
}

// The continue token of a list or Table body, "" when there is none.
std::string ContinueOf(const std::string& body) {
  constexpr std::string_view kKey = R"("continue":")";
  const std::size_t at = body.find(kKey);
  if (at == std::string::npos || at > 256) return "";  // only the list's own metadata
  const std::size_t start = at + kKey.size();
  return body.substr(start, body.find('"', start) - start);
}

void Report(benchmark::State& state, std::size_t bytes) {
  state.SetItemsProcessed(state.iterations() * kPods);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["response_bytes"] = static_cast<double>(bytes);
}

void BM_ListPodsJson(benchmark::State& state) {
  Fixture& f = Pods();
  const http::HttpRequest request = ListRequest("application/json");
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto response = f.rest->Handle(request);
    bytes = response->body.size();
    benchmark::DoNotOptimize(response);
  }
  Report(state, bytes);
}
BENCHMARK(BM_ListPodsJson)->Unit(benchmark::kMillisecond);

void BM_ListPodsTable(benchmark::State& state) {
  Fixture& f = Pods();
  const http::HttpRequest request = ListRequest(kTableAccept);
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto response = f.rest->Handle(request);
    bytes = response->body.size();
    benchmark::DoNotOptimize(response);
  }
  Report(state, bytes);
}
BENCHMARK(BM_ListPodsTable)->Unit(benchmark::kMillisecond);

// limit=500 and the continue tokens until the list ends (on a server that ignores limit: one
// request).
void PagedList(benchmark::State& state, std::string_view accept) {
  Fixture& f = Pods();
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    std::string token;
    do {
      http::HttpRequest request = ListRequest(accept);
      request.query["limit"] = "500";
      if (!token.empty()) request.query["continue"] = token;
      auto response = f.rest->Handle(request);
      bytes += response->body.size();
      token = ContinueOf(response->body);
    } while (!token.empty());
  }
  Report(state, bytes);
}
void BM_ListPodsJsonPaged(benchmark::State& state) {
  PagedList(state, "application/json");
}
BENCHMARK(BM_ListPodsJsonPaged)->Unit(benchmark::kMillisecond);
void BM_ListPodsTablePaged(benchmark::State& state) {
  PagedList(state, kTableAccept);
}
BENCHMARK(BM_ListPodsTablePaged)->Unit(benchmark::kMillisecond);

}  // namespace
