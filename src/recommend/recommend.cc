#include "recommend/recommend.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <map>

#include "codec/go_duration.h"
#include "codec/json_codec.h"
#include "recommend/limit_advice.h"
#include "recommend/limits_patch.h"

namespace podlimits::recommend {
namespace {

using codec::Node;

constexpr std::string_view kPerPodPIDLimit = "PerPodPIDLimit";  // the declared feature
constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

// A label selector as a query value: everything but unreserved characters percent-encoded.
std::string QueryEscape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// `Error from server (NotFound): pods "x" not found`, as kubectl prints a Status.
std::string StatusText(const webhook::KubeClient::Response& r) {
  auto parsed = codec::ParseJsonStream(r.body);
  if (parsed && parsed->size() == 1 && codec::StringOf((*parsed)[0].Find("kind")) == "Status") {
    const Node& s = (*parsed)[0];
    return fmt::format("Error from server ({}): {}", codec::StringOf(s.Find("reason")),
                       codec::StringOf(s.Find("message")));
  }
  return fmt::format("HTTP {}: {}", r.status, r.body.substr(0, 300));
}

Result<Node> GetJson(webhook::KubeClient& client, const std::string& target) {
  auto r = client.Get(target);
  if (!r) return std::unexpected(r.error().Wrap("GET " + target));
  if (r->status != 200) return Failure(StatusText(*r));
  auto parsed = codec::ParseJsonStream(r->body);
  if (!parsed || parsed->size() != 1) return Failure("GET " + target + ": the answer is not JSON");
  return std::move((*parsed)[0]);
}

// The manifest the patch is written against: what kubectl last applied, else the pod itself.
Node PatchBase(const Node& pod, bool& from_last_applied) {
  from_last_applied = false;
  const Node* annotations = pod.FindPath({"metadata", "annotations"});
  if (annotations != nullptr) {
    const std::string text = codec::StringOf(annotations->Find(kLastApplied));
    auto parsed = codec::ParseJsonStream(text);
    if (!text.empty() && parsed && parsed->size() == 1 && (*parsed)[0].IsObject()) {
      from_last_applied = true;
      return std::move((*parsed)[0]);
    }
  }
  return pod;
}

std::string Observed(double seconds) {
  return codec::FormatGoDuration(std::chrono::seconds(std::llround(seconds)));
}

}  // namespace

PodRecommendation RecommendFor(const Node& pod, const ObservedPod* observed,
                               std::int64_t headroom, bool node_has_pod_pid_limit) {
  PodRecommendation r;
  r.namespace_ = codec::StringOf(pod.FindPath({"metadata", "namespace"}));
  r.name = codec::StringOf(pod.FindPath({"metadata", "name"}));
  const std::string who = r.namespace_ + "/" + r.name;
  if (observed == nullptr || observed->samples == 0) {
    r.notes.push_back(who + ": not observed yet (the node samples its running pods every "
                            "--metric-resolution, 15s by default)");
    return r;
  }
  r.observed = true;
  r.notes.push_back(fmt::format("{}: observed for {} ({} samples), headroom {}%", who,
                                Observed(observed->observed_seconds), observed->samples, headroom));
  PodLimits limits;
  const bool kernel = observed->pids_peak_kernel.has_value();
  const auto pids = AdvisePodPidLimit(
      kernel ? *observed->pids_peak_kernel : observed->pids_peak_sampled, headroom);
  const std::string pids_seen = fmt::format(
      "tasks from {}: {}",
      kernel ? "the kernel's pids.peak of the pod cgroup" : "the highest pids.current sampled",
      Explain(pids, headroom));
  if (node_has_pod_pid_limit) {
    limits.pid_limit = pids.limit;
    r.notes.push_back(fmt::format("  limits.pid {}, {}", pids.limit, pids_seen));
  } else {
    r.notes.push_back(
        "  limits.pid left out: the node does not declare PerPodPIDLimit (cgroup v1) and would "
        "refuse the pod; its podPidsLimit bounds it");
    r.notes.push_back("    " + pids_seen);
  }
  for (const auto& [container, peak] : observed->open_files_peak) {
    const auto nofile = AdviseNofile(peak, headroom);
    limits.nofile[container] = nofile.limit;
    r.notes.push_back(fmt::format("  nofile {} for container {}, open files of one process "
                                  "(sampled): {}",
                                  nofile.limit, container, Explain(nofile, headroom)));
  }
  bool from_last_applied = false;
  const Node base = PatchBase(pod, from_last_applied);
  r.patch = codec::EncodeJson(LimitsJsonPatch(base, limits), 0);
  r.notes.push_back(from_last_applied
                        ? "  the patch is for the manifest kubectl last applied to this pod"
                        : "  the patch is for the pod as stored (kubectl get pod -o yaml)");
  return r;
}

Result<std::vector<PodRecommendation>> Recommend(webhook::KubeClient& client,
                                                 const RecommendOptions& options) {
  const std::string base = "/api/v1/namespaces/" + options.namespace_ + "/pods";
  std::vector<Node> pods;
  if (!options.pod.empty()) {
    auto pod = GetJson(client, base + "/" + options.pod);
    if (!pod) return std::unexpected(pod.error());
    pods.push_back(std::move(*pod));
  } else {
    auto list = GetJson(client, options.selector.empty()
                                    ? base
                                    : base + "?labelSelector=" + QueryEscape(options.selector));
    if (!list) return std::unexpected(list.error());
    if (Node* items = list->Find("items"); items != nullptr && items->IsArray()) {
      pods = std::move(items->items);
    }
  }
  auto metrics = client.Get("/metrics");
  if (!metrics) return std::unexpected(metrics.error().Wrap("GET /metrics"));
  if (metrics->status != 200) return Failure("GET /metrics: " + StatusText(*metrics));
  const auto observed = ParseObservedPeaks(metrics->body);
  std::map<std::string, bool> node_pid_limit;  // by node name
  std::vector<PodRecommendation> out;
  for (const Node& pod : pods) {
    const std::string node_name = codec::StringOf(pod.FindPath({"spec", "nodeName"}));
    if (!node_pid_limit.contains(node_name)) {
      bool declared = false;
      if (auto node = GetJson(client, "/api/v1/nodes/" + node_name)) {
        if (const Node* features = node->FindPath({"status", "declaredFeatures"});
            features != nullptr && features->IsArray()) {
          for (const Node& f : features->items) declared |= f.IsString() && f.scalar == kPerPodPIDLimit;
        }
      }
      node_pid_limit[node_name] = declared;
    }
    auto it = observed.find(codec::StringOf(pod.FindPath({"metadata", "uid"})));
    out.push_back(RecommendFor(pod, it == observed.end() ? nullptr : &it->second,
                               options.headroom_percent, node_pid_limit[node_name]));
  }
  return out;
}

}  // namespace podlimits::recommend
