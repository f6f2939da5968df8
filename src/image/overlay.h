// Each container's own writable layer over its image: an overlayfs mount whose lower dir is
// the image rootfs (shared, never written) and whose upper and work dirs live in the
// container's state directory, so that everything a container writes goes when it does.
//
//   <container_dir>/upper    the container's changes (mode and owner of the image's root)
//   <container_dir>/work     overlayfs scratch space, same filesystem as upper
//   <container_dir>/merged   the mount: the container's root filesystem
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::image {

// Creates upper, work and merged in `container_dir` (creating it if needed) and mounts the
// overlay on merged; returns merged. They must not exist yet: a container always starts
// from the image as it is. The mount is "volatile" where the kernel supports it: the upper
// dir is never synced, as it is discarded with the container. On failure nothing it created
// is left behind. Needs CAP_SYS_ADMIN (in the mount namespace where the OCI runtime will find
// the path).
Result<std::filesystem::path> PrepareContainerRootfs(const std::filesystem::path& image_rootfs,
                                                     const std::filesystem::path& container_dir);

// Unmounts merged (lazily with MNT_DETACH when it is busy) and removes upper, work and merged,
// never following a symlink or crossing a mount point while deleting. `container_dir` itself
// stays. Succeeds when there is nothing to release, so it is safe on every teardown path.
Result<void> ReleaseContainerRootfs(const std::filesystem::path& container_dir);

// The mount points of the overlays in `mountinfo` whose lower dirs include `lower`: an image
// rootfs must not be deleted under a running container.
Result<std::vector<std::filesystem::path>> OverlaysUsingLowerDir(
    const std::filesystem::path& lower,
    const std::filesystem::path& mountinfo = "/proc/self/mountinfo");

}  // namespace podlimits::image
