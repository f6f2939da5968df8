// What a container's OCI bundle asks of podlimits-runc, read from the annotations in its
// config.json: which part of a pod it is and the limits the pod's annotations stand for.
//
// The CRI runtimes say which part of a pod a bundle is: containerd's CRI plugin with
// io.kubernetes.cri.container-type (sandbox | container), io.kubernetes.cri.container-name,
// io.kubernetes.cri.sandbox-name and -namespace; CRI-O with io.kubernetes.cri-o.ContainerType,
// and the kubelet's labels (io.kubernetes.container.name, io.kubernetes.pod.name, ...) directly
// or in its io.kubernetes.cri-o.Labels JSON. The pod's own annotations reach the bundle where
// the runtime passes them on (containerd's pod_annotations, CRI-O's allowed_annotations); CRI-O
// also keeps them in io.kubernetes.cri-o.Annotations, which is read too.
//
// The limit annotations are those of the webhook (webhook/limit_annotations.h), read with the
// same code and held to the same rules: a node must not trust that every pod went through the
// webhook. A container reads the keys meant for it (its name after the prefix) and the pod-wide
// ones; a sandbox reads the pod PID limit and whether any container is writable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "codec/node.h"

namespace podlimits::runcwrap {

enum class BundleRole {
  kOther,      // not a Kubernetes container (no CRI annotation): passed through untouched
  kSandbox,    // the pod's sandbox (pause) container
  kContainer,  // one of the pod's containers
};

struct BundleRequest {
  BundleRole role = BundleRole::kOther;
  std::string pod_namespace;
  std::string pod_name;
  std::string container_name;  // kContainer only
  // The container as the annotations make it (name and securityContext only); kContainer only.
  std::optional<api::Container> container;
  // spec.resources.limits.pid as an integer (rounded up), when the pod sets one.
  std::optional<std::int64_t> pod_pid_limit;
  bool writable = false;          // this container's cgroup mount is writable
  bool pod_has_writable = false;  // some container of the pod is (the sandbox bounds the pod)
  std::vector<std::string> warnings;

  // Whether the bundle asks podlimits for anything at all.
  bool Any() const {
    return pod_pid_limit.has_value() || writable || pod_has_writable ||
           (container && container->security_context && container->security_context->ulimits);
  }
  // "pod default/web" or "container \"app\" of pod default/web", for messages.
  std::string Subject() const;
};

// Reads the request from config.json's `annotations` (an object, or null when the spec has
// none). An annotation that breaks the rules is an error that names it and the field it stands
// for; limit annotations on a bundle that no CRI annotation places in a pod are an error too,
// since nothing could say which container they are meant for.
Result<BundleRequest> ReadBundleRequest(const codec::Node* annotations);

}  // namespace podlimits::runcwrap
