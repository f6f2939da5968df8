// process.user of a container's OCI spec: the uid, gid and supplementary groups the container
// process runs with, from the security contexts, the image's User and the image's own
// /etc/passwd and /etc/group.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "image/config.h"

namespace podlimits::cri {

struct ProcessUser {
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<std::uint32_t> additional_gids;
  bool operator==(const ProcessUser&) const = default;
};

// uid: the container's runAsUser, else the pod's, else the image's User ("uid", "name",
// "uid:gid", "name:group"), else 0. gid: runAsGroup (container, else pod), else the group part
// of the image's User when the image's user is the one used, else the user's primary group in
// the image's /etc/passwd, else 0. additionalGids, as containerd's default
// (SupplementalGroupsPolicy Merge) builds them: the gid, the groups of /etc/group that list the
// user's name, the pod's supplementalGroups and fsGroup, without repeats.
//
// The image's files are read inside `rootfs` as its root (openat2 RESOLVE_IN_ROOT), so an image
// whose /etc/passwd is a symlink cannot make podlimits read a host file.
Result<ProcessUser> ResolveProcessUser(const api::Pod& pod, const api::Container& container,
                                       const image::ImageConfig& image,
                                       const std::filesystem::path& rootfs);

// The kubelet's verifyRunAsNonRoot (kuberuntime_container_linux.go): with runAsNonRoot true (the
// container's, else the pod's), a runAsUser of 0, an image user of uid 0, or an image user given
// by name (which the kubelet cannot verify without the image's files) is refused with the
// kubelet's message; the container then fails with CreateContainerConfigError.
Result<void> VerifyRunAsNonRoot(const api::Pod& pod, const api::Container& container,
                                const image::ImageConfig& image);

}  // namespace podlimits::cri
