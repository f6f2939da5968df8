// Graceful deletion of pods, as the apiserver's pod strategy and rest.BeforeDelete decide it:
//
//   - the grace period is the delete's gracePeriodSeconds (DeleteOptions body or query), else
//     the pod's terminationGracePeriodSeconds (default 30);
//   - a pod not bound to a node, or already Succeeded or Failed, goes at once (grace 0): no
//     kubelet has anything to stop;
//   - otherwise the object stays with metadata.deletionTimestamp (now + grace) and
//     deletionGracePeriodSeconds; the kubelet stops the pod and then removes the object. A
//     second delete may only shorten the grace period; grace 0 removes the object at once (a
//     force delete: the node stops what runs when it sees the object gone).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/error.h"
#include "codec/node.h"

namespace podlimits::apiserver {

struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds;
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;  // dryRun: ["All"]
  // propagationPolicy (Orphan, Background, Foreground), or Orphan from the legacy
  // orphanDependents: true; "" when not given (the resource's default, Background).
  std::string propagation_policy;
};

// DeleteOptions from a DELETE's body (JSON, may be empty) and query; the error is the
// BadRequest message.
Result<DeleteOptions> ParseDeleteOptions(std::string_view body,
                                         const std::optional<std::string>& grace_query);

struct PodDeletion {
  bool immediate = true;
  std::int64_t grace_seconds = 0;
};

// `pod` is the stored pod; nullopt when an earlier delete already set a shorter (or equal)
// grace period: nothing changes.
std::optional<PodDeletion> DecidePodDeletion(const codec::Node& pod, const DeleteOptions& options);

// Marks `pod` as being deleted at `now` + grace (RFC 3339), as BeforeDelete does.
void MarkPodDeleting(codec::Node& pod, std::int64_t grace_seconds, std::chrono::sys_seconds now);

}  // namespace podlimits::apiserver
