// A run's exclusive hold on a pod uid in the state directory.
//
//   <stateDirectory>/pods/<uid>.lock   flock(LOCK_EX) held for as long as the run lives; the
//                                      kernel drops it when the process dies, however it dies
//                                      (SIGKILL included). It names its holder: "pid N\nstart T\n"
//   <stateDirectory>/pods/<uid>/       what that run created for the pod (pod_record.h, bundles)
//
// So a uid is in use exactly while someone holds its lock, and a pod directory whose lock
// nobody holds was left behind by a run that died: stale (stale_pods.h). The lock file is
// unlinked by its holder, still locked, when the run gives the uid up; whoever opened it before
// that notices (the inode at the path changed) and tries again, so two runs never both hold a uid.
#pragma once

#include <chrono>
#include <sys/types.h>

#include <cstdint>
#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "base/fs.h"

namespace podlimits::kubelet {

// Who holds a claim: the pid and its start time (field 22 of /proc/<pid>/stat, clock ticks after
// boot), which tells a live holder from a recycled pid.
struct PodOwner {
  pid_t pid = 0;
  std::uint64_t start_time = 0;
  bool operator==(const PodOwner&) const = default;
};

PodOwner ThisProcessOwner();
// "pid 123\nstart 456\n" and back; nullopt for anything else.
std::string FormatOwner(const PodOwner& owner);
std::optional<PodOwner> ParseOwner(std::string_view text);

// The reason (base/error.h) of Acquire's error when a live process holds the uid (else a system
// call failed): the kubelet's event reason for the pod it refuses.
inline constexpr std::string_view kPodUIDInUse = "PodUIDInUse";

class PodClaim {
 public:
  // Takes `uid` in `pods_dir` (created if missing): in_use when another process holds it, after
  // trying again for up to `patience` (a run's own claim waits a little: another run's stale-pod
  // cleanup may hold its lock for a moment, stale_pods.h).
  static Result<PodClaim> Acquire(const std::filesystem::path& pods_dir, const std::string& uid,
                                  std::chrono::milliseconds patience = std::chrono::milliseconds(0));
  // Who holds (or last held) `uid` in `pods_dir`, as its lock file says; nullopt when it does
  // not say (or there is none).
  static std::optional<PodOwner> Holder(const std::filesystem::path& pods_dir,
                                        const std::string& uid);

  PodClaim(PodClaim&& other) noexcept;
  PodClaim& operator=(PodClaim&& other) noexcept;
  PodClaim(const PodClaim&) = delete;
  PodClaim& operator=(const PodClaim&) = delete;
  ~PodClaim();  // Release()

  const std::string& uid() const { return uid_; }
  const std::filesystem::path& pod_dir() const { return pod_dir_; }
  // True when the pod directory existed as the claim was taken: a dead run's leftovers, to be
  // cleaned up (stale_pods.h) before the uid is used again.
  bool leftovers() const { return leftovers_; }
  // Who held the uid before, as its lock file said (a dead run's pid), when it said.
  const std::optional<PodOwner>& previous_owner() const { return previous_owner_; }

  // Gives the uid up: unlinks the lock file while still holding it, then closes it. The pod
  // directory is the caller's business (left in place, it is stale for the next run).
  void Release();

 private:
  PodClaim(UniqueFd fd, std::filesystem::path lock_file, std::filesystem::path pod_dir,
           std::string uid, bool leftovers)
      : fd_(std::move(fd)),
        lock_file_(std::move(lock_file)),
        pod_dir_(std::move(pod_dir)),
        uid_(std::move(uid)),
        leftovers_(leftovers) {}

  UniqueFd fd_;
  std::filesystem::path lock_file_;
  std::filesystem::path pod_dir_;
  std::string uid_;
  bool leftovers_ = false;
  std::optional<PodOwner> previous_owner_;
};

}  // namespace podlimits::kubelet
