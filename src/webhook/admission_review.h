// One AdmissionReview (admission.k8s.io/v1) answered: what `podlimits webhook` does on
// /validate and /mutate for a cluster whose API lacks the seeds' fields.
//
//   - Only pods are looked at (CREATE and UPDATE of the pods resource, no subresource); any
//     other request is allowed as it is.
//   - The pod's limit annotations become the fields they stand for (limit_annotations.h), then
//     the pod goes through what `podlimits admit` does, in the context the webhook knows of its
//     namespace (its Pod Security labels and LimitRanges): API validation of the fields,
//     LimitRanger's pod PID defaults and bounds, Pod Security (ulimits only at privileged,
//     writable cgroups). A refusal is the apiserver's Status (code, reason, message) as the
//     admission chain words it; warnings ride along.
//   - A pod that uses none of podlimits' fields is allowed untouched.
//   - /mutate answers with a JSONPatch: runtimeClassName set to the podlimits runtime class (so
//     the pod lands on nodes that run podlimits-runc; a pod naming another class is refused),
//     and a pod PID limit a LimitRange defaulted written back as its annotation (what the
//     runtime wrapper reads on the node). Where the nodes enforce through `podlimits nri`
//     (NodeEnforcement::kNri), the runtime class is neither set nor checked: the plugin sees
//     every pod of every runtime handler.
//   - An update may not change the limit annotations (the fields they stand for are
//     immutable).
//   - A body that is not an AdmissionReview v1 with a request and a uid is a 400 with a Status
//     saying what is wrong, never a crash.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "admission/chain.h"
#include "codec/node.h"

namespace podlimits::webhook {

// What the webhook knows without API access (its --config).
// The RuntimeClasses the mutation chooses from, by what the pod needs of its node. Their
// nodeSelectors (deploy/webhook/50-runtimeclass.yaml) ask for the node labels podlimits
// node-labels sets from the features a node declares, so the scheduler places a pod only on a
// node that can hold it (seed 001). The needs are ordered, as a podlimits-runc node's
// capabilities are: ulimits anywhere, a pod PID limit on cgroup v2, a writable cgroup mount on
// cgroup v2 with nsdelegate; the mutation sets the lowest class that covers the pod, and a pod
// may name any class at or above it itself.
struct RuntimeClasses {
  std::string ulimits = "podlimits";                  // ContainerUlimits
  std::string pod_pid_limit = "podlimits-pid";        // + PerPodPIDLimit
  std::string writable_cgroups = "podlimits-cgroups";  // + SupportsCgroupOptions

  // One class for every need (WebhookConfiguration's runtimeClassName).
  static RuntimeClasses All(const std::string& name) { return {name, name, name}; }
};

// How the cluster's nodes enforce what the webhook admits (WebhookConfiguration's
// nodeEnforcement).
enum class NodeEnforcement {
  // podlimits-runc, a containerd/CRI-O runtime handler reached through a RuntimeClass: a pod
  // that is not given the class runs under the plain runtime, without its limits, so the
  // mutation sets it and a pod naming another class is refused.
  kRuntimeClass,
  // `podlimits nri` on every node: the runtime calls the plugin for every pod whatever its
  // handler, so a RuntimeClass would only narrow where the pod may run for nothing.
  kNri,
};

struct ReviewPolicy {
  NodeEnforcement node_enforcement = NodeEnforcement::kRuntimeClass;
  RuntimeClasses runtime_classes;  // read with NodeEnforcement::kRuntimeClass only
  admission::ChainOptions chain;
  std::map<std::string, codec::Node> namespaces;              // Namespace objects, by name
  std::map<std::string, std::vector<codec::Node>> limit_ranges;  // LimitRange objects, by namespace
  // Namespaces with a LimitRange the webhook cannot apply (from the cluster), and why: their
  // pods that use a podlimits field are refused rather than admitted without its bounds.
  std::map<std::string, std::string> unusable_limit_ranges;
};

enum class ReviewMode { kValidate, kMutate };

struct ReviewAnswer {
  int http_status = 200;
  bool allowed = false;  // a 200 that lets the object through
  std::string body;  // JSON: the AdmissionReview with its response, or a Status for a 400
};

ReviewAnswer AnswerReview(std::string_view body, ReviewMode mode, const ReviewPolicy& policy);

}  // namespace podlimits::webhook
