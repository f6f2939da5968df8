// A running pod's hold on an image it uses.
//
// `podlimits run` mounts its containers' overlays in a private mount namespace (see
// runtime_mount_namespace.h), where `image rm` in the machine's namespace cannot see them. So a
// pod also holds a shared flock(2) on <root>/<id>/.in-use for each of its images while it runs,
// and the store refuses to delete an image while anyone holds one: it tries an exclusive lock
// without waiting. The lock goes with the process, however it ends.
//
// A podlimits killed with SIGKILL cannot take its containers along, though: they keep running
// on the image, and so a lease also leaves a record, <root>/<id>/.holders/<uid>.<hash>, naming
// the pod's state directory. While that directory exists the image stays in use; the run that
// cleans the dead pod up (stale_pods.h) removes the directory and the record.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "base/error.h"
#include "base/fs.h"

namespace podlimits::image {

// The pod a lease is for.
struct LeaseHolder {
  std::string uid;
  std::filesystem::path pod_dir;  // <stateDirectory>/pods/<uid>
};

class ImageLease {
 public:
  // Takes a shared lock on `image_dir`/.in-use (creating it) and, with a holder, writes its
  // record. Fails when the image is gone or going (its directory no longer the one the lock file
  // is in).
  static Result<ImageLease> Acquire(const std::filesystem::path& image_dir,
                                    std::optional<LeaseHolder> holder = std::nullopt);

  ImageLease(ImageLease&& other) noexcept;
  ImageLease& operator=(ImageLease&& other) noexcept;
  ImageLease(const ImageLease&) = delete;
  ImageLease& operator=(const ImageLease&) = delete;
  ~ImageLease();  // removes the holder record, then drops the lock

  // Leaves the holder record in place when the lease goes: the pod's state stays behind (a failed
  // teardown), and with it whatever may still use the image.
  void KeepHolderRecord() { record_.clear(); }

 private:
  ImageLease(UniqueFd fd, std::filesystem::path record)
      : fd_(std::move(fd)), record_(std::move(record)) {}
  void Drop();

  UniqueFd fd_;
  std::filesystem::path record_;  // empty without a holder
};

// Why the image in `image_dir` is in use, or nullopt when it is not: a lease held right now
// ("in use by a running pod"), or a holder record whose pod directory still exists (its
// podlimits died; its containers may still run). Records whose pod directory is gone are
// deleted on the way. The probe holds the lock only for an instant.
Result<std::optional<std::string>> ImageUse(const std::filesystem::path& image_dir);

// ImageUse(...) has a value.
Result<bool> ImageLeased(const std::filesystem::path& image_dir);

// Deletes the holder records for `pod_dir` (after a dead run's pod was cleaned up).
void ForgetLeaseHolder(const std::filesystem::path& image_dir,
                       const std::filesystem::path& pod_dir);

}  // namespace podlimits::image
