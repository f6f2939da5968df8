// A running pod's hold on an image it uses.
//
// `podlimits run` mounts its containers' overlays in a private mount namespace (see
// runtime_mount_namespace.h), where `image rm` in the machine's namespace cannot see them. So a
// pod also holds a shared flock(2) on <root>/<id>/.in-use for each of its images while it runs,
// and the store refuses to delete an image while anyone holds one: it tries an exclusive lock
// without waiting. The lock goes with the process, however it ends.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "runtime/image_fs.h"

namespace podlimits::runtime {

class ImageLease {
 public:
  // Takes a shared lock on `image_dir`/.in-use (creating it). Fails when the image is gone or
  // going (its directory no longer the one the lock file is in).
  static std::expected<ImageLease, std::string> Acquire(const std::filesystem::path& image_dir);

  ImageLease(ImageLease&&) = default;
  ImageLease& operator=(ImageLease&&) = default;

 private:
  explicit ImageLease(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// True while some process holds a lease on the image in `image_dir`. The probe itself holds the
// lock only for an instant. An image without a lock file has never been leased.
std::expected<bool, std::string> ImageLeased(const std::filesystem::path& image_dir);

}  // namespace podlimits::runtime
