#include "nodeagent/cgroup_root_claim.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/unique_fd.h"
#include "nodeagent/monitor_files.h"

namespace podlimits::nodeagent {
namespace fs = std::filesystem;

namespace {

std::string Hex(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += fmt::format("{:02x}", c);
  return out;
}

// A flock someone holds: taking it without waiting fails.
bool LockHeld(const fs::path& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return false;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return errno == EWOULDBLOCK;
  ::flock(fd.get(), LOCK_UN);
  return false;
}

bool AnyPodRunning(const fs::path& data_dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data_dir / "pods", ec)) {
    if (LiveMonitorPid(e.path())) return true;
  }
  return false;
}

// The data directory a claim names ("" for a claim just made).
Result<std::string> Owner(const fs::path& record) {
  auto text = ReadSmallFile(record, 4096);
  if (!text) return std::unexpected(text.error());
  std::string owner = std::move(*text);
  while (!owner.empty() && owner.back() == '\n') owner.pop_back();
  return owner;
}

// The refusal of a second user of `cgroup_root` while the node of `owner` lives.
std::unexpected<Error> ClaimedBy(const std::string& cgroup_root, const std::string& owner) {
  return Failure(fmt::format(
      "cgroupRoot \"{}\" belongs to the node of {}, which is still running (its serve or its "
      "pods): two nodes cannot share {}kubepods, whose pids.max is a node's allocatable; give "
      "this node its own cgroupRoot and stateDirectory in --node-config",
      cgroup_root, owner, cgroup_root.ends_with('/') ? cgroup_root : cgroup_root + "/"));
}

}  // namespace

bool NodeAlive(const fs::path& data_dir) {
  return LockHeld(data_dir / "serve.lock") || AnyPodRunning(data_dir);
}

void ReleaseCgroupRoot(const fs::path& claims_dir, const fs::path& data_dir,
                       const std::string& cgroup_root) {
  const fs::path record = claims_dir / Hex(cgroup_root);
  UniqueFd fd(::open(record.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd || ::flock(fd.get(), LOCK_EX) != 0) return;
  auto owner = Owner(record);
  if (!owner || *owner != data_dir.string() || AnyPodRunning(data_dir)) return;
  std::error_code ec;
  fs::remove(record, ec);
  fs::remove(claims_dir, ec);  // only when empty: another root's claim keeps it
}

Result<void> ClaimCgroupRoot(const fs::path& claims_dir, const fs::path& data_dir,
                             const std::string& cgroup_root) {
  std::error_code ec;
  fs::create_directories(claims_dir, ec);
  if (ec) return SystemError("mkdir", claims_dir, ec.value());
  const fs::path record = claims_dir / Hex(cgroup_root);
  // The record's own lock makes the check and the write one step for concurrent serves.
  UniqueFd fd(::open(record.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd) return SystemError("open", record, errno);
  if (::flock(fd.get(), LOCK_EX) != 0) return SystemError("flock", record, errno);
  auto owner = Owner(record);
  if (!owner) return std::unexpected(owner.error());
  const std::string& current = *owner;
  if (!current.empty() && fs::path(current) != data_dir && NodeAlive(current)) {
    return ClaimedBy(cgroup_root, current);
  }
  if (current != data_dir.string()) {
    const std::string text = data_dir.string() + "\n";
    if (::ftruncate(fd.get(), 0) != 0 || ::pwrite(fd.get(), text.data(), text.size(), 0) !=
                                             static_cast<ssize_t>(text.size())) {
      return SystemError("write", record, errno);
    }
  }
  return {};
}

Result<void> CheckCgroupRootUnclaimed(const fs::path& claims_dir, const std::string& cgroup_root) {
  const fs::path record = claims_dir / Hex(cgroup_root);
  UniqueFd fd(::open(record.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT) return {};  // no node ever claimed it (or the last one released it)
    // Records are root's (0600): a user who may not read them may not run a pod either, which
    // `run` says in its own words (kubelet::Kubelet::Start).
    if (errno == EACCES) return {};
    return SystemError("open", record, errno);
  }
  // Shared: a serve claiming or releasing it meanwhile finishes first; other runs do not wait.
  if (::flock(fd.get(), LOCK_SH) != 0) return SystemError("flock", record, errno);
  auto owner = Owner(record);
  if (!owner) return std::unexpected(owner.error());
  if (!owner->empty() && NodeAlive(*owner)) return ClaimedBy(cgroup_root, *owner);
  return {};
}

}  // namespace podlimits::nodeagent
