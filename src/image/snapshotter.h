// How a container's writable root filesystem is made over its image and removed again, as
// containerd's snapshotters do. On a node it is the overlay (overlay.h); unit tests of the pod
// workers use a plain directory, unprivileged.
#pragma once

#include <filesystem>

#include "base/error.h"
#include "image/overlay.h"

namespace podlimits::image {

class Snapshotter {
 public:
  virtual ~Snapshotter() = default;
  // The container's root filesystem, made in `container_dir` over `image_rootfs`.
  virtual Result<std::filesystem::path> Prepare(const std::filesystem::path& image_rootfs,
                                                const std::filesystem::path& container_dir) = 0;
  // Removes what Prepare made in `container_dir`; succeeds when there is nothing to remove.
  virtual Result<void> Release(const std::filesystem::path& container_dir) = 0;
};

class OverlaySnapshotter : public Snapshotter {
 public:
  Result<std::filesystem::path> Prepare(const std::filesystem::path& image_rootfs,
                                        const std::filesystem::path& container_dir) override {
    return PrepareContainerRootfs(image_rootfs, container_dir);
  }
  Result<void> Release(const std::filesystem::path& container_dir) override {
    return ReleaseContainerRootfs(container_dir);
  }
};

}  // namespace podlimits::image
