#include "kubelet/stats/usage_history.h"

#include <algorithm>

namespace podlimits::kubelet {
namespace {

std::optional<UsageRate> Rate(TimePoint earlier, TimePoint later, std::int64_t cpu_delta_ns,
                              std::int64_t memory_bytes) {
  const auto window = std::chrono::duration_cast<std::chrono::nanoseconds>(later - earlier);
  if (window.count() <= 0 || cpu_delta_ns < 0) return std::nullopt;
  // cpu ns per window ns, in nanocores: delta * 1e9 / window, without overflowing int64 for
  // deltas of a few hours of cpu time.
  const auto nanocores = static_cast<std::int64_t>(static_cast<long double>(cpu_delta_ns) * 1e9L /
                                                   static_cast<long double>(window.count()));
  return UsageRate{later, window, nanocores, memory_bytes};
}

}  // namespace

std::optional<UsageRate> RateBetween(const CgroupUsage& earlier, const CgroupUsage& later) {
  if (!later.from_proc || !earlier.from_proc) {
    return Rate(earlier.time, later.time, later.cpu_ns - earlier.cpu_ns, later.memory_bytes);
  }
  std::int64_t delta = 0;
  for (const auto& [pid, cpu] : later.process_cpu_ns) {
    auto it = earlier.process_cpu_ns.find(pid);
    const std::int64_t before = it == earlier.process_cpu_ns.end() ? 0 : it->second;
    // A counter below the earlier one is another process under a reused pid: all its time is new.
    delta += cpu >= before ? cpu - before : cpu;
  }
  return Rate(earlier.time, later.time, delta, later.memory_bytes);
}

std::optional<UsageRate> RateBetween(const NodeUsage& earlier, const NodeUsage& later) {
  return Rate(earlier.time, later.time, later.cpu_ns - earlier.cpu_ns, later.memory_bytes);
}

void UsageHistory::RecordPod(const std::string& uid, PodSample sample) {
  std::lock_guard lock(mu_);
  PodState& state = pods_[uid];
  PodObservation& o = state.observed;
  if (o.samples == 0) o.since = sample.time;
  o.last = sample.time;
  ++o.samples;
  if (sample.pids_current) o.pids_peak_sampled = std::max(o.pids_peak_sampled, *sample.pids_current);
  if (sample.pids_peak) o.pids_peak_kernel = sample.pids_peak;
  for (const ContainerSample& c : sample.containers) {
    ContainerPeaks& p = o.containers[c.name];
    p.open_files = std::max(p.open_files, c.usage.open_files);
    p.process_open_files = std::max(p.process_open_files, c.usage.process_open_files_max);
    p.processes = std::max(p.processes, c.usage.processes);
    p.threads = std::max(p.threads, c.usage.threads);
  }
  if (o.samples > 1) state.previous = std::move(o.latest);
  o.latest = std::move(sample);
}

void UsageHistory::RecordNode(const NodeUsage& usage) {
  std::lock_guard lock(mu_);
  node_previous_ = node_latest_;
  node_latest_ = usage;
}

void UsageHistory::Retain(const std::set<std::string>& uids) {
  std::lock_guard lock(mu_);
  std::erase_if(pods_, [&](const auto& entry) { return !uids.contains(entry.first); });
}

std::optional<PodRate> UsageHistory::PodRateOf(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end() || !it->second.previous) return std::nullopt;
  const PodSample& earlier = *it->second.previous;
  const PodSample& later = it->second.observed.latest;
  PodRate out;
  out.timestamp = later.time;
  out.window = std::chrono::duration_cast<std::chrono::nanoseconds>(later.time - earlier.time);
  for (const ContainerSample& c : later.containers) {
    auto before = std::find_if(earlier.containers.begin(), earlier.containers.end(),
                               [&](const ContainerSample& e) { return e.id == c.id; });
    if (before == earlier.containers.end()) continue;
    if (auto rate = RateBetween(before->usage, c.usage)) out.containers.push_back({c.name, *rate});
  }
  if (out.containers.empty()) return std::nullopt;
  return out;
}

std::optional<UsageRate> UsageHistory::NodeRate() const {
  std::lock_guard lock(mu_);
  if (!node_previous_ || !node_latest_) return std::nullopt;
  return RateBetween(*node_previous_, *node_latest_);
}

std::optional<PodObservation> UsageHistory::ObservationOf(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end()) return std::nullopt;
  return it->second.observed;
}

std::vector<std::pair<std::string, PodObservation>> UsageHistory::Observations() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, PodObservation>> out;
  for (const auto& [uid, state] : pods_) out.emplace_back(uid, state.observed);
  return out;
}

}  // namespace podlimits::kubelet
