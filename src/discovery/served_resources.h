// The resources `podlimits serve` serves, with what discovery says about each: the group and
// version, names, kind, scope, verbs, short names and subresources kube-apiserver publishes for
// them (the verbs podlimits implements; deletecollection, proxy, exec and the like are not
// offered until they are). The core group (v1) has all but the node's Lease
// (coordination.k8s.io/v1), which the node keeps and clients read, and the resource metrics
// (metrics.k8s.io/v1beta1 nodes and pods, resource_metrics.h) that kubectl top reads.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace podlimits::apiserver {

struct ServedSubresource {
  std::string_view name;  // "status"
  std::string_view kind;  // the response kind: "Pod", "Eviction", ...
  std::vector<std::string_view> verbs;
  // The response kind's group and version when not the resource's (pods/eviction answers
  // policy/v1 Eviction): kubectl drain looks for exactly that in discovery.
  std::string_view group = "";
  std::string_view version = "";
};

struct ServedResource {
  std::string_view name;           // "pods"
  std::string_view singular;       // "pod"
  std::string_view kind;           // "Pod"
  bool namespaced = true;
  std::vector<std::string_view> verbs;
  std::vector<std::string_view> short_names;
  std::vector<std::string_view> categories;
  std::vector<ServedSubresource> subresources;
  std::string_view group = "";      // "" for the core group
  std::string_view version = "v1";

  // "v1", or "coordination.k8s.io/v1": the objects' apiVersion.
  std::string GroupVersion() const {
    return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  }
};

// In the order discovery lists them (by group, core first, then sorted by name, as
// kube-apiserver's).
std::span<const ServedResource> ServedResources();

// The groups besides the core one, in discovery's order.
std::vector<std::string_view> ServedGroups();

// Whether the resource's objects are kept in the object store: all but metrics.k8s.io's, which
// are computed when read, and the self reviews of authentication.k8s.io and
// authorization.k8s.io, computed when created (what walks the store, such as the namespace
// controller, skips them).
bool Stored(const ServedResource& resource);

// The resource of `group` by its plural name, or nullptr.
const ServedResource* FindServedResource(std::string_view group, std::string_view name);
// The resource by its plural name alone (the served names are unique across groups).
const ServedResource* FindServedResourceByName(std::string_view name);

// "deployments.apps", "pods": how the apiserver's messages name a resource of a group.
std::string QualifiedResource(std::string_view name);

// deployments, replicasets, jobs, cronjobs: the resources src/controllers runs.
bool IsWorkloadResource(std::string_view name);

}  // namespace podlimits::apiserver
