// Static pods: the kubelet's file source (pkg/kubelet/config/file.go). Every regular file of the
// node config's staticPodPath whose name does not start with "." holds one Pod (YAML or JSON).
// The node runs it whatever the API says, with the kubelet's applyDefaults:
//
//   name       <name>-<nodeName>;  namespace "default" when unset;  spec.nodeName the node
//   uid        a hash of the manifest, the node and the file (stable across restarts)
//   annotations kubernetes.io/config.hash (the uid), kubernetes.io/config.source "file",
//              kubernetes.io/config.seen
//   tolerations  every NoExecute taint
//
// API defaulting and validation apply as for any pod (a manifest they refuse is not run, and
// ReadStaticPods says why). In the API the pod is shown as its mirror pod (MirrorPod): the same
// object with kubernetes.io/config.mirror set to the hash, owned by the Node.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "validation/feature_gates.h"

namespace podlimits::nodeagent {

inline constexpr std::string_view kConfigMirrorAnnotation = "kubernetes.io/config.mirror";
inline constexpr std::string_view kConfigHashAnnotation = "kubernetes.io/config.hash";

struct StaticPod {
  std::filesystem::path file;
  std::string uid;   // the hash
  codec::Node object;  // as the node runs it
};

struct StaticPodScan {
  std::vector<StaticPod> pods;
  std::vector<std::string> errors;  // "<file>: <why>", for each manifest not run
};

StaticPodScan ReadStaticPods(const std::filesystem::path& dir, std::string_view node_name,
                             const validation::FeatureGates& gates, std::string_view now);

// The mirror pod the API shows for `pod`: its object with the mirror annotation and the Node as
// owner, without the hash uid (the API gives the mirror its own).
codec::Node MirrorPod(const StaticPod& pod, std::string_view node_uid);

}  // namespace podlimits::nodeagent
