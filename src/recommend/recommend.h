// `podlimits recommend [-n NS] [POD | -l SELECTOR]`: what a serve node observed of its pods and
// the limits.pid and nofile ulimits to set for them.
//
// A client of serve over the kubeconfig, as kubectl is (not a reader of the node's data
// directory): the peaks live in the serving node's memory and are published in its /metrics
// (nodeagent/usage_sampler.h), so this needs neither root nor the node's files, works from any
// machine the kubeconfig works from, and reads exactly what a Prometheus scraping the node sees.
//
//   1. GET the pod, or list the namespace's pods with the selector
//   2. GET /metrics; its podlimits_* peaks by pod uid (observed_peaks.h)
//   3. per pod: limits.pid from the pod's peak (when its node declares PerPodPIDLimit), nofile
//      per container from its peak of open files, each with the headroom (limit_advice.h)
//   4. the JSON patch of those limits (limits_patch.h) against the manifest kubectl last applied
//      (the kubectl.kubernetes.io/last-applied-configuration annotation) when the pod has one,
//      else against the pod as stored
//
// A pod's spec cannot change once created: the patch is for the manifest the next pod is made
// from (`kubectl patch --local -f pod.yaml --type=json -p PATCH -o yaml`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "codec/node.h"
#include "recommend/observed_peaks.h"
#include "webhook/kube_client.h"

namespace podlimits::recommend {

struct RecommendOptions {
  std::string namespace_ = "default";
  std::string pod;       // one pod by name, or
  std::string selector;  // a label selector ("" with no pod: every pod of the namespace)
  std::int64_t headroom_percent = 50;
};

struct PodRecommendation {
  std::string namespace_, name;
  bool observed = false;        // false: nothing sampled yet, no patch
  std::string patch;            // the JSON patch, one line
  std::vector<std::string> notes;  // what was observed and how each limit follows from it
};

// The advice for one pod object given what the node observed of it (nullptr: nothing).
// `node_has_pod_pid_limit`: the pod's node declares PerPodPIDLimit (status.declaredFeatures);
// where it does not (cgroup v1), a pod with limits.pid is refused by the node
// (FailedNodeDeclaredFeaturesCheck), so the advice leaves limits.pid out and says why.
PodRecommendation RecommendFor(const codec::Node& pod, const ObservedPod* observed,
                               std::int64_t headroom_percent, bool node_has_pod_pid_limit = true);

// Steps 1 to 4 against the API; an error names the request and the API's Status message.
Result<std::vector<PodRecommendation>> Recommend(webhook::KubeClient& client,
                                                 const RecommendOptions& options);

}  // namespace podlimits::recommend
