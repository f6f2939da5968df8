// The node's usage sampler (nodeagent/usage_sampler.h) over a fake pids hierarchy and a fake
// /proc: which cgroups it reads for a pod, the rate metrics.k8s.io gets, and the exact /metrics
// text of cAdvisor's container families and podlimits' peaks.
#include <gtest/gtest.h>

#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "fake_proc.h"
#include "nodeagent/usage_sampler.h"
#include "storage/object_store.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

using podlimits::testing::WriteFakeProcess;
using std::chrono::seconds;

constexpr std::string_view kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web",
  "namespace":"team","uid":"u1"},"spec":{"nodeName":"node1","containers":[{"name":"app",
  "image":"busybox:latest"},{"name":"idle","image":"busybox:latest"}]},"status":{"phase":"Running",
  "containerStatuses":[{"name":"app","state":{"running":{}},"containerID":"podlimits://c1"},
  {"name":"idle","state":{"waiting":{}},"containerID":"podlimits://c2"}]}})";

class UsageSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = storage::ObjectStore::Open(dir_ / "state.db");
    ASSERT_TRUE(s);
    store_ = std::move(*s);
    auto parsed = codec::ParseJsonStream(kPod);
    ASSERT_TRUE(parsed && parsed->size() == 1);
    codec::Node pod = (*parsed)[0];
    ASSERT_TRUE(store_->Create({"pods", "team", "web"}, [&](std::int64_t rv) {
      return apiserver::RenderStoredObject(pod, "Pod", rv);
    }));
    std::vector<cgroups::ManagedHierarchy> hierarchies;
    hierarchies.push_back({cgroups::CgroupVersion::kV1, {"pids"},
                           cgroups::CgroupTree::OnPlainDirectory(dir_ / "pids", {})});
    UsageSamplerOptions options;
    options.node_name = "node1";
    options.proc_root = dir_ / "proc";
    options.clock = [this] { return now_; };
    sampler_ = std::make_unique<UsageSampler>(*store_, options, std::move(hierarchies));
  }
  // The pod's cgroup (BestEffort) and its container's, as the kernel would show them.
  void Cgroups(int pod_pids, int app_pids) {
    dir_.Write("pids/kubepods/besteffort/podu1/cgroup.procs", "");
    dir_.Write("pids/kubepods/besteffort/podu1/pids.current", std::to_string(pod_pids) + "\n");
    dir_.Write("pids/kubepods/besteffort/podu1/c1/cgroup.procs", "20\n21\n");
    dir_.Write("pids/kubepods/besteffort/podu1/c1/pids.current", std::to_string(app_pids) + "\n");
  }

  podlimits::testing::TempDir dir_{"podlimits-sampler"};
  std::unique_ptr<storage::ObjectStore> store_;
  std::unique_ptr<UsageSampler> sampler_;
  std::chrono::system_clock::time_point now_ =
      std::chrono::system_clock::time_point(seconds(1'800'000'000));
};

TEST_F(UsageSamplerTest, ARateAfterTwoSamplesAndTheLimitsMetrics) {
  Cgroups(9, 8);
  WriteFakeProcess(dir_, 20, {.utime = 100, .rss_kb = 2048, .threads = 1, .fds = 3});
  WriteFakeProcess(dir_, 21, {.utime = 0, .rss_kb = 1024, .threads = 7, .fds = 40, .nofile_soft = 64});
  sampler_->SampleOnce();
  EXPECT_EQ(sampler_->PodMetricsOf("u1"), std::nullopt) << "one sample: no rate yet";

  now_ += seconds(10);
  Cgroups(3, 2);  // fewer tasks now: the peak stays
  WriteFakeProcess(dir_, 20, {.utime = 600, .rss_kb = 2048, .threads = 1, .fds = 5});
  WriteFakeProcess(dir_, 21, {.utime = 0, .rss_kb = 1024, .threads = 1, .fds = 2, .nofile_soft = 64});
  sampler_->SampleOnce();
  auto metrics = sampler_->PodMetricsOf("u1");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->window.window, seconds(10));
  ASSERT_EQ(metrics->containers.size(), 1u) << "only running containers are sampled";
  EXPECT_EQ(metrics->containers[0].name, "app");
  // 500 ticks (5 s of cpu at USER_HZ 100) over 10 s: half a cpu.
  EXPECT_EQ(metrics->containers[0].usage.nanocores,
            500LL * (1'000'000'000 / sysconf(_SC_CLK_TCK)) / 10);
  EXPECT_EQ(metrics->containers[0].usage.memory_bytes, 3072 * 1024);

  EXPECT_EQ(sampler_->MetricsText(),
            "# HELP container_file_descriptors Number of open file descriptors for the container.\n"
            "# TYPE container_file_descriptors gauge\n"
            "container_file_descriptors{container=\"app\",id=\"/kubepods/besteffort/podu1/c1\","
            "image=\"busybox:latest\",name=\"c1\",namespace=\"team\",pod=\"web\"} 7\n"
            "# HELP container_processes Number of processes running inside the container.\n"
            "# TYPE container_processes gauge\n"
            "container_processes{container=\"app\",id=\"/kubepods/besteffort/podu1/c1\","
            "image=\"busybox:latest\",name=\"c1\",namespace=\"team\",pod=\"web\"} 2\n"
            "# HELP container_threads Number of threads running inside the container\n"
            "# TYPE container_threads gauge\n"
            "container_threads{container=\"app\",id=\"/kubepods/besteffort/podu1/c1\","
            "image=\"busybox:latest\",name=\"c1\",namespace=\"team\",pod=\"web\"} 2\n"
            "# HELP container_ulimits_soft Soft ulimit values for the container root process. "
            "Unlimited if -1, except priority and nice\n"
            "# TYPE container_ulimits_soft gauge\n"
            "container_ulimits_soft{container=\"app\",id=\"/kubepods/besteffort/podu1/c1\","
            "image=\"busybox:latest\",name=\"c1\",namespace=\"team\",pod=\"web\","
            "ulimit=\"max_open_files\"} 1024\n"
            "# HELP podlimits_container_process_file_descriptors_sampled_peak The most file "
            "descriptors one process of the container held open (what its nofile ulimit must "
            "allow), of the samples taken since its pod was first sampled.\n"
            "# TYPE podlimits_container_process_file_descriptors_sampled_peak gauge\n"
            "podlimits_container_process_file_descriptors_sampled_peak{container=\"app\","
            "namespace=\"team\",pod=\"web\",uid=\"u1\"} 40\n"
            "# HELP podlimits_pod_observed_seconds Seconds between the first and the latest sample "
            "of the pod's usage.\n"
            "# TYPE podlimits_pod_observed_seconds gauge\n"
            "podlimits_pod_observed_seconds{namespace=\"team\",pod=\"web\",uid=\"u1\"} 10\n"
            "# HELP podlimits_pod_pids_peak pids.peak of the pod's cgroup: the most tasks it ever "
            "held, as the kernel counts them; absent where the kernel has no pids.peak file (older "
            "kernels).\n"
            "# TYPE podlimits_pod_pids_peak gauge\n"
            "# HELP podlimits_pod_pids_sampled_peak The highest pids.current of the pod's cgroup "
            "among the samples taken since it was first sampled.\n"
            "# TYPE podlimits_pod_pids_sampled_peak gauge\n"
            "podlimits_pod_pids_sampled_peak{namespace=\"team\",pod=\"web\",uid=\"u1\"} 9\n"
            "# HELP podlimits_pod_usage_samples How many times the pod's usage was sampled.\n"
            "# TYPE podlimits_pod_usage_samples gauge\n"
            "podlimits_pod_usage_samples{namespace=\"team\",pod=\"web\",uid=\"u1\"} 2\n");
}

// Between two runs of its containers (its cgroup gone here) a pod keeps its peaks, without
// cAdvisor's current figures; once its object is deleted it is forgotten.
TEST_F(UsageSamplerTest, PeaksStayWhileThePodIsInTheStore) {
  Cgroups(6, 2);
  WriteFakeProcess(dir_, 20, {.utime = 1, .fds = 30});
  WriteFakeProcess(dir_, 21, {.utime = 1});
  sampler_->SampleOnce();
  now_ += seconds(10);
  sampler_->SampleOnce();
  EXPECT_TRUE(sampler_->PodMetricsOf("u1"));
  std::filesystem::remove_all(dir_ / "pids/kubepods");
  now_ += seconds(10);
  sampler_->SampleOnce();
  ASSERT_EQ(sampler_->Observations().size(), 1u);
  EXPECT_EQ(sampler_->Observations()[0].second.pids_peak_sampled, 6);
  const std::string text = sampler_->MetricsText();
  EXPECT_EQ(text.find("container_processes{"), std::string::npos) << text;
  EXPECT_NE(text.find("podlimits_container_process_file_descriptors_sampled_peak{container=\"app\","
                      "namespace=\"team\",pod=\"web\",uid=\"u1\"} 30\n"),
            std::string::npos)
      << text;

  ASSERT_TRUE(store_->Delete({"pods", "team", "web"}, 0, [](std::int64_t) { return std::string("{}"); }));
  sampler_->SampleOnce();
  EXPECT_EQ(sampler_->PodMetricsOf("u1"), std::nullopt);
  EXPECT_EQ(sampler_->Observations().size(), 0u);
  EXPECT_EQ(sampler_->MetricsText().find("uid=\"u1\""), std::string::npos);
}

}  // namespace
}  // namespace podlimits::nodeagent
