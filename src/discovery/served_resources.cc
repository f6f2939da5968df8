#include "discovery/served_resources.h"

#include <algorithm>

namespace podlimits::apiserver {

std::span<const ServedResource> ServedResources() {
  static const std::vector<std::string_view> kObjectVerbs = {"create", "delete", "get", "list",
                                                             "patch",  "update", "watch"};
  static const std::vector<std::string_view> kStatusVerbs = {"get", "patch", "update"};
  static const std::vector<ServedResource> kResources = {
      {"configmaps", "configmap", "ConfigMap", true, kObjectVerbs, {"cm"}, {}, {}},
      {"events", "event", "Event", true, kObjectVerbs, {"ev"}, {}, {}},
      {"limitranges", "limitrange", "LimitRange", true, kObjectVerbs, {"limits"}, {}, {}},
      {"namespaces",
       "namespace",
       "Namespace",
       false,
       kObjectVerbs,
       {"ns"},
       {},
       {{"status", "Namespace", kStatusVerbs}}},
      {"nodes",
       "node",
       "Node",
       false,
       kObjectVerbs,
       {"no"},
       {},
       {{"status", "Node", kStatusVerbs}}},
      {"pods",
       "pod",
       "Pod",
       true,
       kObjectVerbs,
       {"po"},
       {"all"},
       {{"attach", "PodAttachOptions", {"create", "get"}},
        {"ephemeralcontainers", "Pod", kStatusVerbs},
        {"eviction", "Eviction", {"create"}, "policy", "v1"},
        {"exec", "PodExecOptions", {"create", "get"}},
        {"log", "Pod", {"get"}},
        {"portforward", "PodPortForwardOptions", {"create", "get"}},
        {"status", "Pod", kStatusVerbs}}},
      {"secrets", "secret", "Secret", true, kObjectVerbs, {}, {}, {}},
      // The workloads (src/controllers runs them); scale answers autoscaling/v1 Scale.
      {"deployments",
       "deployment",
       "Deployment",
       true,
       kObjectVerbs,
       {"deploy"},
       {"all"},
       {{"scale", "Scale", kStatusVerbs, "autoscaling", "v1"}, {"status", "Deployment", kStatusVerbs}},
       "apps",
       "v1"},
      {"replicasets",
       "replicaset",
       "ReplicaSet",
       true,
       kObjectVerbs,
       {"rs"},
       {"all"},
       {{"scale", "Scale", kStatusVerbs, "autoscaling", "v1"}, {"status", "ReplicaSet", kStatusVerbs}},
       "apps",
       "v1"},
      // What a client asks about itself (access_reviews.h): created, never stored.
      {"selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview", false, {"create"}, {}, {}, {},
       "authentication.k8s.io", "v1"},
      {"selfsubjectaccessreviews", "selfsubjectaccessreview", "SelfSubjectAccessReview", false, {"create"}, {}, {}, {},
       "authorization.k8s.io", "v1"},
      {"selfsubjectrulesreviews", "selfsubjectrulesreview", "SelfSubjectRulesReview", false, {"create"}, {}, {}, {},
       "authorization.k8s.io", "v1"},
      // (in kube-apiserver's group order: apps, authentication, authorization, batch, ...)
      {"cronjobs", "cronjob", "CronJob", true, kObjectVerbs, {"cj"}, {"all"},
       {{"status", "CronJob", kStatusVerbs}}, "batch", "v1"},
      {"jobs", "job", "Job", true, kObjectVerbs, {}, {"all"}, {{"status", "Job", kStatusVerbs}},
       "batch", "v1"},
      // The node's heartbeat (kube-node-lease/<node>), kept by the node agent.
      {"leases",
       "lease",
       "Lease",
       true,
       {"get", "list", "watch"},
       {},
       {},
       {},
       "coordination.k8s.io",
       "v1"},
      // metrics.k8s.io as metrics-server registers it (resource_metrics.h): get and list, no
      // short names; kubectl top looks for the group in discovery before asking.
      {"nodes", "", "NodeMetrics", false, {"get", "list"}, {}, {}, {}, "metrics.k8s.io", "v1beta1"},
      {"pods", "", "PodMetrics", true, {"get", "list"}, {}, {}, {}, "metrics.k8s.io", "v1beta1"},
  };
  return kResources;
}

std::vector<std::string_view> ServedGroups() {
  std::vector<std::string_view> groups;
  for (const ServedResource& r : ServedResources()) {
    if (!r.group.empty() && std::find(groups.begin(), groups.end(), r.group) == groups.end()) {
      groups.push_back(r.group);
    }
  }
  return groups;
}

bool Stored(const ServedResource& resource) {
  return resource.group != "metrics.k8s.io" && resource.group != "authentication.k8s.io" &&
         resource.group != "authorization.k8s.io";
}

const ServedResource* FindServedResource(std::string_view group, std::string_view name) {
  for (const ServedResource& r : ServedResources()) {
    if (r.group == group && r.name == name) return &r;
  }
  return nullptr;
}

const ServedResource* FindServedResourceByName(std::string_view name) {
  for (const ServedResource& r : ServedResources()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string QualifiedResource(std::string_view name) {
  const ServedResource* r = FindServedResourceByName(name);
  if (r == nullptr || r->group.empty()) return std::string(name);
  return std::string(name) + "." + std::string(r->group);
}

bool IsWorkloadResource(std::string_view name) {
  return name == "deployments" || name == "replicasets" || name == "jobs" || name == "cronjobs";
}

}  // namespace podlimits::apiserver
