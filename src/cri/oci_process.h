// The process part of a container's OCI spec that Kubernetes decides from the pod, the container
// and its image: the field path that names the container, args, env and cwd.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "image/config.h"

namespace podlimits::cri {

// "spec.containers[0]", "spec.initContainers[1]", "spec.ephemeralContainers[0]".
std::string ContainerFieldPath(const api::Container& container);

// The container's own `env` as the kubelet resolves it (makeEnvironmentVariables): `$(NAME)`
// references to earlier entries expanded, a later entry of the same name replacing an earlier
// one (in its place), `valueFrom.fieldRef` replaced by the pod's field (not expanded):
// metadata.name, metadata.namespace, metadata.uid, metadata.labels['KEY'],
// metadata.annotations['KEY'] (empty when absent), spec.nodeName (`node_name` when the pod has
// none: the pod runs on this node), spec.serviceAccountName. Node admission has refused every
// other valueFrom (field_coverage.h).
using EnvList = std::vector<std::pair<std::string, std::string>>;
EnvList ContainerEnv(const api::Pod& pod, const api::Container& container,
                     std::string_view node_name);

// The pod's hostname as the kubelet makes it (GeneratePodHostNameAndDomain): spec.hostname, else
// the pod's name, cut to 63 characters with trailing '-' and '.' removed.
std::string PodHostname(const api::Pod& pod);

// The machine's host name (what containerd gives a hostNetwork pod), and this node's name as
// the kubelet defaults it: the host name, lowercased.
std::string HostName();
std::string NodeName();

// The value of a fieldRef's fieldPath for `pod`; nullopt for a path this node does not resolve.
std::optional<std::string> PodFieldValue(const api::Pod& pod, std::string_view field_path,
                                         std::string_view node_name);

// Kubernetes' `$(VAR)` expansion (k8s.io/kubernetes/third_party/forked/golang/expansion):
// `$(NAME)` becomes NAME's value when `vars` has it and stays as written otherwise, `$$` is a
// literal `$`, anything else is copied.
std::string ExpandReferences(std::string_view input, const EnvList& vars);

// process.env: "PATH=<default>" and "HOSTNAME=<hostname>", then the image's Env, then
// `container_env`; a later entry of the same name replaces an earlier one in its place, so PATH
// keeps its default only when neither the image nor the container sets it.
std::vector<std::string> ProcessEnv(const image::ImageConfig& image, const EnvList& container_env,
                                    std::string_view hostname);

// process.args: `command` replaces the image's Entrypoint (and then the image's Cmd is not
// used), `args` replaces Cmd; both are expanded against `container_env`. Empty is an error.
Result<std::vector<std::string>> ProcessArgs(const api::Container& container,
                                             const image::ImageConfig& image,
                                             const EnvList& container_env);

// process.cwd: workingDir, else the image's WorkingDir, else "/". Must be absolute (runc and
// crun refuse a relative cwd).
Result<std::string> ProcessCwd(const api::Container& container, const image::ImageConfig& image);

}  // namespace podlimits::cri
