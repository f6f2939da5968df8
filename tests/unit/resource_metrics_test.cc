// metrics.k8s.io/v1beta1 as metrics-server answers it (apiserver/resource_metrics.h): the exact
// JSON of PodMetrics and NodeMetrics, lists with selectors, pods left out until they have a rate,
// and the 404s and 405s.
#include <gtest/gtest.h>

#include <map>

#include "apiserver/resource_metrics.h"
#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "rest_handler_fixture.h"

namespace podlimits::apiserver {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class FakeMetrics : public ResourceMetricsSource {
 public:
  std::optional<PodMetrics> PodMetricsOf(const std::string& uid) const override {
    auto it = pods.find(uid);
    if (it == pods.end()) return std::nullopt;
    return it->second;
  }
  std::optional<NodeMetrics> NodeMetricsOf(const std::string& name) const override {
    if (name != "node1" || !node) return std::nullopt;
    return node;
  }
  std::map<std::string, PodMetrics> pods;
  std::optional<NodeMetrics> node;
};

const auto kSampled = std::chrono::system_clock::time_point(
    *printers::ParseApiTime("2026-11-25T11:59:50Z"));

class ResourceMetricsTest : public RestHandlerTest {
 protected:
  void SetUp() override {
    RestHandlerTest::SetUp();
    rest_->set_resource_metrics(&metrics_);
  }
  void Store(const std::string& resource, const std::string& ns, const std::string& json) {
    auto parsed = codec::ParseJsonStream(json);
    ASSERT_TRUE(parsed && parsed->size() == 1);
    const codec::Node object = (*parsed)[0];
    const std::string name = codec::StringOf(object.FindPath({"metadata", "name"}));
    const std::string kind = resource == "pods" ? "Pod" : "Node";
    ASSERT_TRUE(store_->Create({resource, ns, name}, [&](std::int64_t rv) {
      codec::Node copy = object;
      return RenderStoredObject(copy, kind, rv);
    }));
  }
  void Pod(const std::string& ns, const std::string& name, const std::string& uid,
           const std::string& phase, const std::string& labels = "{}") {
    Store("pods", ns,
          R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
              ns + R"(","uid":")" + uid + R"(","labels":)" + labels +
              R"(},"spec":{"nodeName":"node1","containers":[{"name":"app","image":"busybox"}]},)"
              R"("status":{"phase":")" + phase + R"("}})");
  }
  FakeMetrics metrics_;
};

TEST_F(ResourceMetricsTest, PodMetricsAsMetricsServerWritesThem) {
  Pod("default", "web", "u-web", "Running", R"({"app":"web"})");
  metrics_.pods["u-web"] = {{kSampled, milliseconds(15004)},
                            {{"app", {123456789, 2 << 20}}, {"side", {1000000, 4097}}}};
  auto got = Call("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body,
            R"({"kind":"PodMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":"web",)"
            R"("namespace":"default","creationTimestamp":"2026-11-25T12:00:00Z","labels":{"app":"web"}},)"
            R"("timestamp":"2026-11-25T11:59:50Z","window":"15.004s","containers":[{"name":"app",)"
            R"("usage":{"cpu":"123456789n","memory":"2Mi"}},{"name":"side","usage":{"cpu":"1m",)"
            R"("memory":"4097"}}]})");
}

TEST_F(ResourceMetricsTest, ListsLeaveOutPodsWithoutARateAndApplySelectors) {
  Pod("default", "a", "u-a", "Running", R"({"tier":"front"})");
  Pod("default", "b", "u-b", "Running", R"({"tier":"back"})");
  Pod("default", "new", "u-new", "Running");  // sampled once: no rate yet
  Pod("default", "done", "u-done", "Succeeded");
  Pod("team", "c", "u-c", "Running");
  for (const char* uid : {"u-a", "u-b", "u-done", "u-c"}) {
    metrics_.pods[uid] = {{kSampled, seconds(15)}, {{"app", {5000, 8192}}}};
  }
  auto names = [&](const std::string& path) {
    auto r = Call("GET", path);
    EXPECT_EQ(r.status, 200) << r.body;
    auto parsed = codec::ParseJsonStream(r.body);
    std::vector<std::string> out;
    if (!parsed || parsed->empty()) return out;
    EXPECT_EQ(codec::StringOf((*parsed)[0].Find("kind")), "PodMetricsList");
    for (const auto& item : (*parsed)[0].Find("items")->items) {
      out.push_back(codec::StringOf(item.FindPath({"metadata", "namespace"})) + "/" +
                    codec::StringOf(item.FindPath({"metadata", "name"})));
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"),
            (V{"default/a", "default/b"}));
  EXPECT_EQ(names("/apis/metrics.k8s.io/v1beta1/pods"), (V{"default/a", "default/b", "team/c"}));
  EXPECT_EQ(names("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=tier=back"),
            (V{"default/b"}));
  EXPECT_EQ(names("/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?fieldSelector=metadata.name=a"),
            (V{"default/a"}));
  EXPECT_EQ(names("/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.namespace!=default"),
            (V{"team/c"}));
  EXPECT_EQ(Call("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/empty/pods").body,
            R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[]})");
}

TEST_F(ResourceMetricsTest, NotFoundAndNotAllowed) {
  Pod("default", "new", "u-new", "Running");
  struct Case {
    std::string name, method, path;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"pod without a rate yet", "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/new",
       404, R"(podmetrics.metrics.k8s.io \"default/new\" not found)"},
      {"no such pod", "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope", 404,
       R"(pods \"nope\" not found)"},
      {"no such node", "GET", "/apis/metrics.k8s.io/v1beta1/nodes/node1", 404,
       R"(nodes \"node1\" not found)"},
      {"watch", "GET", "/apis/metrics.k8s.io/v1beta1/pods?watch=true", 405,
       R"(watch is not supported on resources of kind \"pods.metrics.k8s.io\")"},
      {"create", "POST", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", 405,
       R"(create is not supported on resources of kind \"pods.metrics.k8s.io\")"},
      // The pod's own selectable fields are not PodMetrics' (metrics-server answers 400).
      {"a pod field", "GET", "/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=spec.nodeName=n",
       400, "field label not supported: spec.nodeName"},
      {"a node field", "GET",
       "/apis/metrics.k8s.io/v1beta1/nodes?fieldSelector=spec.unschedulable=false", 400,
       "field label not supported: spec.unschedulable"},
      {"another version", "GET", "/apis/metrics.k8s.io/v1/nodes", 404,
       "the server could not find the requested resource"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Call(c.method, c.path, c.method == "POST" ? "{}" : "");
    EXPECT_EQ(r.status, c.status);
    EXPECT_NE(r.body.find(c.message), std::string::npos) << r.body;
  }
}

TEST_F(ResourceMetricsTest, TablesAsMetricsServerConvertsThem) {
  Pod("default", "web", "u-web", "Running");
  metrics_.pods["u-web"] = {{kSampled, milliseconds(15004)},
                            {{"app", {1000000, 2 << 20}}, {"side", {500000, 1 << 20}}}};
  EXPECT_EQ(Call("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", "", std::string(kTableAccept)).body,
            R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[)"
            R"({"name":"Name","type":"string","format":"name","description":"Name of the resource",)"
            R"("priority":0},{"name":"cpu","type":"string","format":"quantity","description":"",)"
            R"("priority":0},{"name":"memory","type":"string","format":"quantity","description":"",)"
            R"("priority":0},{"name":"Window","type":"string","format":"duration","description":"",)"
            R"("priority":0}],"rows":[{"cells":["web","1500u","3Mi","15.004s"],"object":{"kind":)"
            R"("PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web",)"
            R"("namespace":"default","creationTimestamp":"2026-11-25T12:00:00Z"}}}]})");
  EXPECT_EQ(Call("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/team/pods", "", std::string(kTableAccept)).body,
            R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":null,"rows":null})");
  auto bad = Call("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?includeObject=All", "",
                  std::string(kTableAccept));
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find(R"(Unable to convert to Table as requested: includeObject: Invalid value: \"All\")"),
            std::string::npos)
      << bad.body;
}

TEST_F(ResourceMetricsTest, NodeMetrics) {
  Store("nodes", "",
        R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"node1","labels":{"kubernetes.io/hostname":"node1"}}})");
  auto missing = Call("GET", "/apis/metrics.k8s.io/v1beta1/nodes/node1");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find(R"(nodemetrics.metrics.k8s.io \"node1\" not found)"),
            std::string::npos)
      << missing.body;
  metrics_.node = NodeMetrics{{kSampled, milliseconds(20029)}, {1500000000, 3LL << 30}};
  EXPECT_EQ(Call("GET", "/apis/metrics.k8s.io/v1beta1/nodes").body,
            R"({"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},)"
            R"("items":[{"kind":"NodeMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{)"
            R"("name":"node1","creationTimestamp":"2026-11-25T12:00:00Z","labels":{)"
            R"("kubernetes.io/hostname":"node1"}},"timestamp":"2026-11-25T11:59:50Z",)"
            R"("window":"20.029s","usage":{"cpu":"1500m","memory":"3Gi"}}]})");
  EXPECT_EQ(Call("GET", "/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=role").body,
            R"({"kind":"NodeMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[]})");
}

TEST(ResourceMetricsQuantities, AsQuantityPrintsThem) {
  // cpu: nanocores, in the largest unit that keeps them whole.
  const std::vector<std::pair<std::int64_t, std::string>> cpu = {
      {0, "0"}, {123456789, "123456789n"}, {250000000, "250m"}, {4096, "4096n"},
      {2000000000, "2"}, {1500, "1500n"}, {7000, "7u"}};
  for (const auto& [value, text] : cpu) EXPECT_EQ(CpuQuantity(value), text) << value;
  // memory: bytes, in the largest binary unit that keeps them whole (what the node reads is in
  // whole kB), else in bytes.
  const std::vector<std::pair<std::int64_t, std::string>> memory = {
      {0, "0"}, {4096, "4Ki"}, {1536 * 1024, "1536Ki"}, {3LL << 30, "3Gi"},
      {2000000000, "1953125Ki"}, {4097, "4097"}};
  for (const auto& [value, text] : memory) EXPECT_EQ(MemoryQuantity(value), text) << value;
}

}  // namespace
}  // namespace podlimits::apiserver
