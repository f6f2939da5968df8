// podlimits recommend: the limits from peaks, the JSON patch against a manifest, the peaks read
// back from /metrics, and the advice for one pod.
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "recommend/limit_advice.h"
#include "recommend/limits_patch.h"
#include "recommend/observed_peaks.h"
#include "recommend/recommend.h"

namespace podlimits::recommend {
namespace {

using Bound = LimitAdvice::Bound;

codec::Node Json(std::string_view text) {
  auto parsed = codec::ParseJsonStream(text);
  EXPECT_TRUE(parsed && parsed->size() == 1) << text;
  return parsed && !parsed->empty() ? (*parsed)[0] : codec::Node::Null();
}

TEST(LimitAdviceTest, PodPidLimit) {
  struct Case {
    std::string name;
    std::int64_t peak, headroom;
    std::int64_t with_headroom, limit;
    Bound bound;
  };
  const std::vector<Case> cases = {
      {"small pod: the API minimum", 37, 50, 56, 1024, Bound::kRaisedToMinimum},
      {"exactly the minimum", 683, 50, 1025, 1025, Bound::kNone},
      {"rounds up", 1001, 50, 1502, 1502, Bound::kNone},
      {"no headroom", 2000, 0, 2000, 2000, Bound::kNone},
      {"doubled", 3000, 100, 6000, 6000, Bound::kNone},
      {"past the maximum", 12000, 50, 18000, 16384, Bound::kCappedAtMaximum},
      {"nothing ran", 0, 50, 0, 1024, Bound::kRaisedToMinimum},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto a = AdvisePodPidLimit(c.peak, c.headroom);
    EXPECT_EQ(a.peak, c.peak);
    EXPECT_EQ(a.with_headroom, c.with_headroom);
    EXPECT_EQ(a.limit, c.limit);
    EXPECT_EQ(a.bound, c.bound);
  }
}

TEST(LimitAdviceTest, Nofile) {
  struct Case {
    std::string name;
    std::int64_t peak, headroom, limit;
    std::string explained;
  };
  const std::vector<Case> cases = {
      {"a shell", 5, 50, 1024, "peak 5 + 50% = 8, raised to the minimum 1024"},
      {"a server", 3000, 50, 4500, "peak 3000 + 50% = 4500"},
      {"odd peak rounds up", 3001, 50, 4502, "peak 3001 + 50% = 4502"},
      {"past seed 000's maximum", 900000, 50, 1048576,
       "peak 900000 + 50% = 1350000, capped at the maximum 1048576: less headroom than asked"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto a = AdviseNofile(c.peak, c.headroom);
    EXPECT_EQ(a.limit, c.limit);
    EXPECT_EQ(Explain(a, c.headroom), c.explained);
  }
}

TEST(LimitsJsonPatchTest, Cases) {
  // (gcc 12 warns of a map built inside an initializer list: the limits are pairs here.)
  struct Case {
    std::string name;
    std::string pod;
    std::optional<std::int64_t> pid;
    std::vector<std::pair<std::string, std::int64_t>> nofile;
    std::string patch;
  };
  const std::vector<Case> cases = {
      {"nothing there yet",
       R"({"spec":{"containers":[{"name":"app","image":"busybox"}]}})",
       2048, {{"app", 4500}},
       R"([{"op":"add","path":"/spec/resources","value":{"limits":{"pid":"2048"}}},)"
       R"({"op":"test","path":"/spec/containers/0/name","value":"app"},)"
       R"({"op":"add","path":"/spec/containers/0/securityContext","value":{"ulimits":[)"
       R"({"name":"nofile","soft":4500,"hard":4500}]}}])"},
      {"resources without limits, securityContext without ulimits",
       R"({"spec":{"resources":{"requests":{"cpu":"1"}},"containers":[{"name":"a"},)"
       R"({"name":"b","securityContext":{"runAsUser":1000}}]}})",
       1024, {{"b", 1024}},
       R"([{"op":"add","path":"/spec/resources/limits","value":{"pid":"1024"}},)"
       R"({"op":"test","path":"/spec/containers/1/name","value":"b"},)"
       R"({"op":"add","path":"/spec/containers/1/securityContext/ulimits","value":[)"
       R"({"name":"nofile","soft":1024,"hard":1024}]}])"},
      {"a pid limit and a nofile ulimit already set, other ulimits kept",
       R"({"spec":{"resources":{"limits":{"pid":"4096","cpu":"1"}},"containers":[{"name":"ci",)"
       R"("securityContext":{"ulimits":[{"name":"core","soft":0,"hard":0},)"
       R"({"name":"nofile","soft":1024,"hard":-1}]}}]}})",
       1500, {{"ci", 2000}},
       R"([{"op":"add","path":"/spec/resources/limits/pid","value":"1500"},)"
       R"({"op":"test","path":"/spec/containers/0/name","value":"ci"},)"
       R"({"op":"replace","path":"/spec/containers/0/securityContext/ulimits/1","value":)"
       R"({"name":"nofile","soft":2000,"hard":2000}}])"},
      {"ulimits without nofile; a sidecar among the init containers",
       R"({"spec":{"initContainers":[{"name":"proxy"}],"containers":[{"name":"app",)"
       R"("securityContext":{"ulimits":[{"name":"core","soft":0,"hard":0}]}}]}})",
       std::nullopt, {{"app", 1024}, {"proxy", 3000}},
       R"([{"op":"test","path":"/spec/initContainers/0/name","value":"proxy"},)"
       R"({"op":"add","path":"/spec/initContainers/0/securityContext","value":{"ulimits":[)"
       R"({"name":"nofile","soft":3000,"hard":3000}]}},)"
       R"({"op":"test","path":"/spec/containers/0/name","value":"app"},)"
       R"({"op":"add","path":"/spec/containers/0/securityContext/ulimits/-","value":)"
       R"({"name":"nofile","soft":1024,"hard":1024}}])"},
      {"a container not in the manifest is left out",
       R"({"spec":{"containers":[{"name":"app"}]}})", std::nullopt, {{"gone", 1024}}, "[]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PodLimits limits;
    limits.pid_limit = c.pid;
    for (const auto& [container, n] : c.nofile) limits.nofile[container] = n;
    EXPECT_EQ(codec::EncodeJson(LimitsJsonPatch(Json(c.pod), limits), 0), c.patch);
  }
}

TEST(ParseObservedPeaksTest, ReadsThePodlimitsFamiliesByUid) {
  const std::string text =
      "# HELP podlimits_pod_pids_peak x\n# TYPE podlimits_pod_pids_peak gauge\n"
      "podlimits_pod_pids_peak{namespace=\"a\",pod=\"web\",uid=\"u1\"} 37\n"
      "podlimits_pod_pids_sampled_peak{namespace=\"a\",pod=\"web\",uid=\"u1\"} 30\n"
      "podlimits_pod_pids_sampled_peak{namespace=\"a\",pod=\"db\",uid=\"u2\"} 12\n"
      "podlimits_container_process_file_descriptors_sampled_peak{container=\"app\",namespace=\"a\","
      "pod=\"web\",uid=\"u1\"} 120\n"
      "podlimits_container_process_file_descriptors_sampled_peak{container=\"we\\\"ird\",namespace=\"a\","
      "pod=\"web\",uid=\"u1\"} 3\n"
      "podlimits_pod_observed_seconds{namespace=\"a\",pod=\"web\",uid=\"u1\"} 150.5\n"
      "podlimits_pod_usage_samples{namespace=\"a\",pod=\"web\",uid=\"u1\"} 11\n"
      "podlimits_pod_pids_current{namespace=\"a\",pod=\"web\",uid=\"u1\"} 3\n"
      "container_file_descriptors{container=\"app\",namespace=\"a\",pod=\"web\"} 9\n";
  const auto pods = ParseObservedPeaks(text);
  ASSERT_EQ(pods.size(), 2u);
  const ObservedPod& web = pods.at("u1");
  EXPECT_EQ(web.pids_peak_kernel, 37);
  EXPECT_EQ(web.pids_peak_sampled, 30);
  EXPECT_EQ(web.open_files_peak, (std::map<std::string, std::int64_t>{{"app", 120}, {"we\"ird", 3}}));
  EXPECT_DOUBLE_EQ(web.observed_seconds, 150.5);
  EXPECT_EQ(web.samples, 11);
  EXPECT_EQ(pods.at("u2").pids_peak_kernel, std::nullopt);
  EXPECT_EQ(pods.at("u2").pids_peak_sampled, 12);
}

TEST(RecommendForTest, NotesAndThePatchAgainstTheLastAppliedManifest) {
  const codec::Node pod = Json(
      R"({"metadata":{"name":"web","namespace":"a","annotations":{)"
      R"("kubectl.kubernetes.io/last-applied-configuration":)"
      R"("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\"},\"spec\":{\"containers\":[{\"name\":\"app\"}]}}\n"}},)"
      R"("spec":{"resources":{"limits":{"pid":"1024"}},"containers":[{"name":"app"}]}})");
  ObservedPod seen;
  seen.pids_peak_sampled = 40;
  seen.open_files_peak = {{"app", 3000}};
  seen.observed_seconds = 150.4;
  seen.samples = 11;
  const auto r = RecommendFor(pod, &seen, 50);
  EXPECT_TRUE(r.observed);
  // The LimitRange default the stored pod carries is not in the manifest: the patch adds
  // spec.resources to the manifest.
  EXPECT_EQ(r.patch,
            R"([{"op":"add","path":"/spec/resources","value":{"limits":{"pid":"1024"}}},)"
            R"({"op":"test","path":"/spec/containers/0/name","value":"app"},)"
            R"({"op":"add","path":"/spec/containers/0/securityContext","value":{"ulimits":[)"
            R"({"name":"nofile","soft":4500,"hard":4500}]}}])");
  EXPECT_EQ(r.notes, (std::vector<std::string>{
                         "a/web: observed for 2m30s (11 samples), headroom 50%",
                         "  limits.pid 1024, tasks from the highest pids.current sampled: peak "
                         "40 + 50% = 60, raised to the minimum 1024",
                         "  nofile 4500 for container app, open files of one process (sampled): "
                         "peak 3000 + 50% = 4500",
                         "  the patch is for the manifest kubectl last applied to this pod"}));
  // On a node without PerPodPIDLimit (cgroup v1) a pod limit would be refused: nofile only.
  const auto v1 = RecommendFor(pod, &seen, 50, false);
  EXPECT_EQ(v1.patch,
            R"([{"op":"test","path":"/spec/containers/0/name","value":"app"},)"
            R"({"op":"add","path":"/spec/containers/0/securityContext","value":{"ulimits":[)"
            R"({"name":"nofile","soft":4500,"hard":4500}]}}])");
  EXPECT_EQ(v1.notes.at(1),
            "  limits.pid left out: the node does not declare PerPodPIDLimit (cgroup v1) and "
            "would refuse the pod; its podPidsLimit bounds it");
  EXPECT_EQ(v1.notes.at(2),
            "    tasks from the highest pids.current sampled: peak 40 + 50% = 60, raised to the "
            "minimum 1024");
  const auto none = RecommendFor(pod, nullptr, 50);
  EXPECT_FALSE(none.observed);
  EXPECT_EQ(none.patch, "");
}

}  // namespace
}  // namespace podlimits::recommend
