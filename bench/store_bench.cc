// The store's paths whose cost an operator or kubectl sees: a plain list of 1,000 pods through
// the REST handler (the stored bytes go out as they are, each checked to be JSON), and opening
// a store of 5,000 objects with each integrity check serve can run at start.
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
namespace fs = std::filesystem;

// A pod as `kubectl create` would send it: two containers, probes, resources, labels.
std::string PodJson(int i) {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web-{0}","labels":{{"app":"web","shard":"s{1}"}},)"
      R"("annotations":{{"team":"shop","revision":"{0}"}}}},"spec":{{"nodeName":"elsewhere",)"
      R"("containers":[{{"name":"web","image":"nginx:1.27","ports":[{{"containerPort":8080,"name":"http"}}],)"
      R"("resources":{{"limits":{{"cpu":"1","memory":"512Mi"}}}},"env":[{{"name":"MODE","value":"prod"}}],)"
      R"("livenessProbe":{{"httpGet":{{"path":"/healthz","port":"http"}}}}}},)"
      R"({{"name":"log-agent","image":"busybox:1.36","command":["sh","-c","tail -F /var/log/app.log"]}}]}}}})",
      i, i % 7);
}

// A scratch directory, removed with the benchmark's state.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "podlimits-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

http::HttpRequest Request(std::string method, std::string path, std::string body = "") {
  http::HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = std::move(body);
  r.headers["content-type"] = "application/json";
  r.headers["accept"] = "application/json";
  r.user = "kubernetes-admin";
  return r;
}

void BM_ListThousandPods(benchmark::State& state) {
  ScratchDir dir;
  auto store = storage::ObjectStore::Open(dir.path() / "state.db");
  if (!store) return state.SkipWithError(store.error().Message().c_str());
  apiserver::RestHandler rest(**store, admission::ChainOptions{});
  if (!rest.EnsureSystemNamespaces()) return state.SkipWithError("system namespaces");
  for (int i = 0; i < 1000; ++i) {
    auto created = rest.Handle(Request("POST", "/api/v1/namespaces/default/pods", PodJson(i)));
    if (!created || created->status != 201) return state.SkipWithError("create a pod");
  }
  const http::HttpRequest list = Request("GET", "/api/v1/namespaces/default/pods");
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto listed = rest.Handle(list);
    if (!listed || listed->status != 200) return state.SkipWithError("list");
    bytes = listed->body.size();
    benchmark::DoNotOptimize(listed->body.data());
  }
  state.counters["body_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ListThousandPods)->Unit(benchmark::kMillisecond);

// A node's store of 5,000 pods (with their change log, as creates leave it), made once.
const fs::path& StoreOfFiveThousandPods() {
  static ScratchDir dir;
  static bool made = [] {
    auto store = storage::ObjectStore::Open(dir.path() / "state.db");
    if (!store) return false;
    apiserver::RestHandler rest(**store, admission::ChainOptions{});
    if (!rest.EnsureSystemNamespaces()) return false;
    for (int i = 0; i < 5000; ++i) {
      auto created = rest.Handle(Request("POST", "/api/v1/namespaces/default/pods", PodJson(i)));
      if (!created || created->status != 201) return false;
    }
    return true;
  }();
  static const fs::path path = made ? dir.path() / "state.db" : fs::path();
  return path;
}

// Serve's start: opening the store with no check, quick_check (the default) or integrity_check.
// The file is in the page cache after the first iteration: what a restart finds.
void BM_OpenStore(benchmark::State& state) {
  const fs::path& path = StoreOfFiveThousandPods();
  if (path.empty()) return state.SkipWithError("make the store");
  const auto check = static_cast<storage::IntegrityCheck>(state.range(0));
  for (auto _ : state) {
    auto store = storage::ObjectStore::Open(path, {check});
    if (!store) return state.SkipWithError(store.error().Message().c_str());
  }
  state.counters["file_bytes"] = static_cast<double>(fs::file_size(path));
}
BENCHMARK(BM_OpenStore)
    ->ArgName("check")
    ->Arg(static_cast<int>(storage::IntegrityCheck::kNone))
    ->Arg(static_cast<int>(storage::IntegrityCheck::kQuick))
    ->Arg(static_cast<int>(storage::IntegrityCheck::kFull))
    ->Unit(benchmark::kMillisecond);

}  // namespace
