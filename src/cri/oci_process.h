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

// A container's resolved environment, in order (kubelet/volumes/container_env.h makes it).
using EnvList = std::vector<std::pair<std::string, std::string>>;

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
