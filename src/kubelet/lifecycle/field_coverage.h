// Field coverage: every field of a pod is applied by this node, refused by node admission before
// anything is created, or accepted because it has no meaning on a node (scheduling fields).
//
// A pod that silently runs with less than it declared is the worst outcome podlimits can have,
// so the rule is a closed list: a field the table does not name (a new upstream field, a KEP's
// alpha field) is refused like a field the table refuses. The table is the single source of
// docs/node.md's coverage section (`podlimits node-info --field-coverage` prints it, and a test
// checks the document against it).
//
// Paths are written as the API's field paths with `[*]` for list indices and `<c>` for each of
// spec.containers[*] and spec.initContainers[*]. A rule covers its field and everything below
// it, unless a longer rule names a part of it. Zero values (null, false, "", []) are never
// refused: `hostUsers: true`, `volumes: []` and `shareProcessNamespace: false` ask for nothing.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"

namespace podlimits::kubelet {

enum class Coverage {
  kApplied,        // the node applies it
  kRefused,        // a pod that sets it is refused before anything is created
  kNoNodeMeaning,  // accepted: scheduling, API bookkeeping, or nothing for a node to do
  kResource,       // a resource name: applied when its controller is, see FieldCoverageOptions
  kDescend,        // an object or list whose members have rules of their own; a member no rule
                   // names is refused
};

std::string_view CoverageName(Coverage c);  // "applied", "refused", "no node meaning", ...

struct FieldRule {
  std::string_view path;
  Coverage coverage;
  std::string_view why;
  // For a scalar field: the values the node applies; any other value is refused. Empty: every
  // value is covered as `coverage` says.
  std::vector<std::string_view> applied_values = {};
};

// The table, in document order.
std::span<const FieldRule> PodFieldRules();

struct FieldCoverageOptions {
  // How a resource the node does not enforce (cpu, memory, hugepages, ephemeral-storage,
  // extended resources) is treated: refused (the default), or accepted with a Warning event
  // (NodeConfiguration's `unenforcedResources: Warn`).
  bool warn_on_unenforced_resources = false;
  // Resources this node enforces besides pid ("cpu", "memory" on a cgroup v2 node that has
  // those controllers): applied, never refused.
  std::vector<std::string> enforced_resources;
  // hostPort and hostIP are applied: the pod uses the node's network, or the node's pod network
  // has portmap (pod_network.h).
  bool host_ports = false;
  // env fieldRef paths the node can give this pod a value for beyond the table's:
  // status.podIP(s) when the pod gets an address, status.hostIP(s) when the node knows its own.
  std::vector<std::string> status_field_paths;
};

struct FieldProblem {
  std::string path;     // "spec.volumes[2].nfs"
  std::string message;  // "spec.volumes[2].nfs: not supported by this node"
};

struct FieldCoverageResult {
  std::optional<FieldProblem> refused;  // the first refused field, in document order
  // Resources accepted under warn_on_unenforced_resources: one message each.
  std::vector<std::string> unenforced;
};

// Walks a strictly decoded Pod object (the tree the API admitted).
FieldCoverageResult CheckFieldCoverage(const codec::Node& pod, const FieldCoverageOptions& options);

// The Markdown table of PodFieldRules(), as docs/node.md carries it.
std::string RenderFieldCoverageTable();

}  // namespace podlimits::kubelet
