#include "nodeagent/usage_sampler.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "api/objects.h"
#include "api/qos.h"
#include "listwatch/stored_object.h"
#include "base/prometheus_text.h"
#include "cgroups/detect.h"
#include "cgroups/pod_cgroups.h"
#include "codec/node.h"
#include "kubelet/stats/node_usage.h"

namespace podlimits::nodeagent {
namespace {

using codec::Node;

constexpr std::string_view kContainerIdPrefix = "podlimits://";

std::optional<cgroups::ManagedHierarchy> SampledHierarchy(
    std::vector<cgroups::ManagedHierarchy> hierarchies) {
  for (auto& h : hierarchies) {
    if (h.version == cgroups::CgroupVersion::kV2) return std::move(h);
  }
  for (auto& h : hierarchies) {
    if (h.HasV1Controller("pids")) return std::move(h);
  }
  return std::nullopt;
}

// The running containers of a pod's status: name and runtime id, sidecars (running init
// containers) first, as the status lists them.
std::vector<std::pair<std::string, std::string>> RunningContainers(const Node& pod) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const Node* statuses = pod.FindPath({"status", list});
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const Node& s : statuses->items) {
      if (s.FindPath({"state", "running"}) == nullptr) continue;
      const std::string id = codec::StringOf(s.Find("containerID"));
      if (!id.starts_with(kContainerIdPrefix)) continue;
      out.emplace_back(codec::StringOf(s.Find("name")), id.substr(kContainerIdPrefix.size()));
    }
  }
  return out;
}

// The window to the millisecond, as metrics-server's are ("15.004s", not "15.004187262s"): the
// kubelet's samples carry millisecond timestamps.
std::chrono::nanoseconds Milliseconds(std::chrono::nanoseconds window) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(window);
}

}  // namespace

UsageSampler::UsageSampler(storage::ObjectStore& store, UsageSamplerOptions options,
                           std::vector<cgroups::ManagedHierarchy> hierarchies)
    : store_(store), options_(std::move(options)), hierarchy_(SampledHierarchy(std::move(hierarchies))) {
  if (!options_.clock) options_.clock = [] { return std::chrono::system_clock::now(); };
}

std::vector<cgroups::ManagedHierarchy> UsageSampler::DetectHierarchies(
    const kubelet::NodeConfig& config) {
  auto layout = cgroups::DetectLayout();
  if (!layout) return {};
  auto managed = cgroups::ManagedHierarchies(*layout, config.managed_controllers);
  if (!managed) return {};
  return std::move(*managed);
}

UsageSampler::~UsageSampler() { Stop(); }

void UsageSampler::Start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stop_) {
      lock.unlock();
      SampleOnce();
      lock.lock();
      wake_.wait_for(lock, options_.resolution, [this] { return stop_; });
    }
  });
}

void UsageSampler::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void UsageSampler::SampleOnce() {
  const auto now = options_.clock();
  if (auto node = kubelet::ReadNodeUsage(options_.proc_root, now)) history_.RecordNode(*node);
  std::map<std::string, PodInfo> seen;
  // The node's pods still in the store, sampled now or not: a pod between two runs of its
  // containers (a crash loop), or one that has ended, keeps what was observed of it until the
  // object is deleted, so that recommend can still size its limits.
  std::set<std::string> present;
  auto listed = store_.List("pods", "", true);
  if (listed && hierarchy_) {
    kubelet::CgroupUsageSource source{&hierarchy_->tree,
                                      hierarchy_->version == cgroups::CgroupVersion::kV2,
                                      options_.proc_root};
    for (const auto& item : listed->items) {
      auto pod = apiserver::ParseStoredObject(item.data);
      if (!pod || codec::StringOf(pod->FindPath({"spec", "nodeName"})) != options_.node_name) {
        continue;
      }
      present.insert(codec::StringOf(pod->FindPath({"metadata", "uid"})));
      const auto containers = RunningContainers(*pod);
      if (containers.empty()) continue;
      const api::Pod typed = api::ReadPod(*pod);
      const auto cgroup = cgroups::PodCgroupPath(
          options_.cgroup_root, api::ComputePodQos(typed, options_.pod_level_resources),
          typed.metadata.uid);
      auto pod_usage = kubelet::ReadCgroupUsage(source, cgroup, now);
      if (!pod_usage) continue;  // no cgroup (yet, or any more)
      kubelet::PodSample sample;
      sample.time = now;
      sample.pids_current = pod_usage->pids_current;
      sample.pids_peak = pod_usage->pids_peak;
      for (const auto& [name, id] : containers) {
        auto usage = kubelet::ReadCgroupUsage(source, cgroup / id, now);
        if (!usage) continue;
        sample.containers.push_back({name, id, std::move(*usage)});
      }
      history_.RecordPod(typed.metadata.uid, std::move(sample));
      PodInfo info{typed.metadata.namespace_, typed.metadata.name, typed.metadata.uid, cgroup, {},
                   true};
      for (const char* list : {"initContainers", "containers"}) {
        const Node* specs = pod->FindPath({"spec", list});
        if (specs == nullptr || !specs->IsArray()) continue;
        for (const Node& c : specs->items) {
          info.images[codec::StringOf(c.Find("name"))] = codec::StringOf(c.Find("image"));
        }
      }
      seen[typed.metadata.uid] = std::move(info);
    }
  }
  if (!listed) return;  // nothing known of the pods: keep everything as it was
  history_.Retain(present);
  std::lock_guard lock(mu_);
  for (auto& [uid, info] : pods_) {
    if (present.contains(uid) && !seen.contains(uid)) {
      info.sampled = false;
      seen.emplace(uid, std::move(info));
    }
  }
  pods_ = std::move(seen);
}

std::optional<apiserver::PodMetrics> UsageSampler::PodMetricsOf(const std::string& pod_uid) const {
  auto rate = history_.PodRateOf(pod_uid);
  if (!rate) return std::nullopt;
  apiserver::PodMetrics out;
  out.window = {rate->timestamp, Milliseconds(rate->window)};
  for (const auto& c : rate->containers) {
    out.containers.push_back({c.name, {c.rate.nanocores, c.rate.memory_bytes}});
  }
  return out;
}

std::optional<apiserver::NodeMetrics> UsageSampler::NodeMetricsOf(
    const std::string& node_name) const {
  if (node_name != options_.node_name) return std::nullopt;
  auto rate = history_.NodeRate();
  if (!rate) return std::nullopt;
  return apiserver::NodeMetrics{{rate->timestamp, Milliseconds(rate->window)},
                                {rate->nanocores, rate->memory_bytes}};
}

std::string UsageSampler::MetricsText() const {
  std::vector<const PodInfo*> pods;
  std::map<std::string, PodInfo> known;
  {
    std::lock_guard lock(mu_);
    known = pods_;
  }
  for (const auto& [uid, info] : known) pods.push_back(&info);
  std::sort(pods.begin(), pods.end(), [](const PodInfo* a, const PodInfo* b) {
    return std::tie(a->namespace_, a->name) < std::tie(b->namespace_, b->name);
  });
  std::vector<std::optional<kubelet::PodObservation>> seen;
  for (const PodInfo* p : pods) seen.push_back(history_.ObservationOf(p->uid));

  // cAdvisor's per-container families, from each pod's latest sample.
  struct ContainerLine {
    const PodInfo* pod;
    const kubelet::ContainerSample* sample;
    std::string id, image;
  };
  std::vector<ContainerLine> lines;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!seen[i] || !pods[i]->sampled) continue;  // cAdvisor's figures are the current ones
    for (const auto& c : seen[i]->latest.containers) {
      auto image = pods[i]->images.find(c.name);
      lines.push_back({pods[i], &c, (pods[i]->cgroup / c.id).string(),
                       image == pods[i]->images.end() ? std::string() : image->second});
    }
  }
  PrometheusText out;
  auto container_family = [&](MetricName name, std::string_view help,
                              std::int64_t kubelet::CgroupUsage::*field) {
    out.Family(name, help, MetricType::kGauge);
    for (const auto& l : lines) {
      out.Sample({{"container", l.sample->name}, {"id", l.id}, {"image", l.image},
                  {"name", l.sample->id}, {"namespace", l.pod->namespace_}, {"pod", l.pod->name}},
                 l.sample->usage.*field);
    }
  };
  container_family("container_file_descriptors", "Number of open file descriptors for the container.",
                   &kubelet::CgroupUsage::open_files);
  container_family("container_processes", "Number of processes running inside the container.",
                   &kubelet::CgroupUsage::processes);
  container_family("container_threads", "Number of threads running inside the container",
                   &kubelet::CgroupUsage::threads);
  out.Family("container_ulimits_soft",
             "Soft ulimit values for the container root process. Unlimited if -1, except "
             "priority and nice",
             MetricType::kGauge);
  for (const auto& l : lines) {
    for (const auto& [ulimit, value] : l.sample->usage.soft_limits) {
      out.Sample({{"container", l.sample->name}, {"id", l.id}, {"image", l.image},
                  {"name", l.sample->id}, {"namespace", l.pod->namespace_}, {"pod", l.pod->name},
                  {"ulimit", ulimit}},
                 value);
    }
  }

  // podlimits' own: what recommend sizes limits from.
  auto pod_family = [&](MetricName name, std::string_view help, auto value_of) {
    out.Family(name, help, MetricType::kGauge);
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (!seen[i]) continue;
      std::optional<SampleValue> v = value_of(*seen[i]);
      if (!v) continue;
      out.Sample({{"namespace", pods[i]->namespace_}, {"pod", pods[i]->name}, {"uid", pods[i]->uid}},
                 *v);
    }
  };
  out.Family("podlimits_container_process_file_descriptors_sampled_peak",
             "The most file descriptors one process of the container held open (what its nofile "
             "ulimit must allow), of the samples taken since its pod was first sampled.",
             MetricType::kGauge);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!seen[i]) continue;
    for (const auto& [container, peaks] : seen[i]->containers) {
      out.Sample({{"container", container}, {"namespace", pods[i]->namespace_},
                  {"pod", pods[i]->name}, {"uid", pods[i]->uid}},
                 peaks.process_open_files);
    }
  }
  pod_family("podlimits_pod_observed_seconds",
             "Seconds between the first and the latest sample of the pod's usage.",
             [](const kubelet::PodObservation& o) -> std::optional<SampleValue> {
               return SampleValue(std::chrono::duration<double>(o.last - o.since).count());
             });
  pod_family("podlimits_pod_pids_peak",
             "pids.peak of the pod's cgroup: the most tasks it ever held, as the kernel counts "
             "them; absent where the kernel has no pids.peak file (older kernels).",
             [](const kubelet::PodObservation& o) -> std::optional<SampleValue> {
               if (!o.pids_peak_kernel) return std::nullopt;
               return SampleValue(*o.pids_peak_kernel);
             });
  pod_family("podlimits_pod_pids_sampled_peak",
             "The highest pids.current of the pod's cgroup among the samples taken since it was "
             "first sampled.",
             [](const kubelet::PodObservation& o) -> std::optional<SampleValue> {
               return SampleValue(o.pids_peak_sampled);
             });
  pod_family("podlimits_pod_usage_samples", "How many times the pod's usage was sampled.",
             [](const kubelet::PodObservation& o) -> std::optional<SampleValue> {
               return SampleValue(o.samples);
             });
  return std::move(out).text();
}

}  // namespace podlimits::nodeagent
