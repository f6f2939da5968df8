// A pod's volumes on this node, as the kubelet's volume manager sets them up, for the sources
// this node mounts (field_coverage.h refuses the others before anything is created):
//
//   emptyDir        <pod dir>/volumes/kubernetes.io~empty-dir/<name>, mode 0777; with
//                   `medium: Memory` a tmpfs there of `sizeLimit` bytes (the node's memory
//                   when unset, as the kubelet sizes it by allocatable). With fsGroup the
//                   directory is group-owned by it and setgid, as SetVolumeOwnership does.
//   hostPath        the node's path after the kubelet's type check (hostpath's
//                   checkTypeInternal, same messages): DirectoryOrCreate / FileOrCreate create
//                   it (0755 / 0644), Directory, File, Socket, CharDevice, BlockDevice check it;
//                   with no type a missing path is created as a directory, as containerd does.
//
//   configMap, secret, downwardAPI, projected
//                   <pod dir>/volumes/kubernetes.io~configmap/<name> (on disk), ~secret,
//                   ~downward-api and ~projected (tmpfs), mode 0777, the files of
//                   volume_payload.h in the kubelet's AtomicWriter layout. Always mounted
//                   read-only into containers, as the kubelet mounts them.
//
// Each container's volumeMounts become bind mounts of its spec (rbind, rprivate, ro when
// readOnly). A subPath (or subPathExpr, expanded with the container's environment) is resolved
// inside its volume without following any symlink (openat2 RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS), created as a directory when missing, and bind-mounted from that open
// descriptor to <pod dir>/volume-subpaths/<volume>/<container>/<index>: the runtime mounts that
// path, so a symlink swapped in later cannot redirect it out of the volume (the kubelet's
// subpath safety, CVE-2017-1002101).
//
// Set-up errors are the pod's (the kubelet's FailedMount: `MountVolume.SetUp failed for volume
// "data" : hostPath type check failed: /srv/x is not a directory`), not the node's. Mounts live in
// podlimits' private mount namespace: TearDown unmounts them, and a killed run takes them along.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/error.h"
#include "cri/oci_process.h"
#include "cri/spec.h"
#include "kubelet/plan/pod_plan.h"
#include "kubelet/volumes/volume_payload.h"

namespace podlimits::kubelet {

class PodVolumes {
 public:
  explicit PodVolumes(const PodPlan& plan) : plan_(plan) {}
  // What configMap, secret, downwardAPI and projected volumes read; set before SetUp.
  void set_payload_context(PayloadContext ctx) { payload_ctx_ = std::move(ctx); }
  PodVolumes(const PodVolumes&) = delete;
  PodVolumes& operator=(const PodVolumes&) = delete;

  // Every volume of the pod; the error's message is the FailedMount event's.
  Result<void> SetUp();

  // The spec mounts of `container`'s volumeMounts. `env` is the container's resolved
  // environment, for subPathExpr.
  Result<std::vector<cri::SpecMount>> ContainerMounts(const api::Container& container,
                                                      const cri::EnvList& env);

  // Unmounts what SetUp and ContainerMounts mounted, last first. Returns every error.
  std::vector<std::string> TearDown();

 private:
  Result<std::filesystem::path> SetUpEmptyDir(const api::Volume& v);
  Result<std::filesystem::path> SetUpHostPath(const api::Volume& v);
  Result<std::filesystem::path> SetUpProjection(const api::Volume& v);
  Result<std::filesystem::path> SubPathMount(const api::Container& container, std::size_t index,
                                             const std::filesystem::path& volume,
                                             const std::string& volume_name,
                                             const std::string& sub_path);

  const PodPlan& plan_;
  PayloadContext payload_ctx_;
  std::set<std::string> projection_volumes_;  // read-only for every container
  std::map<std::string, std::filesystem::path> paths_;
  std::vector<std::filesystem::path> mounts_;  // in the order they were made
};

}  // namespace podlimits::kubelet
