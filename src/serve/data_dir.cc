#include "serve/data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <system_error>

namespace podlimits::serve {

namespace fs = std::filesystem;

fs::path ImageRoot(const fs::path& data_dir) { return data_dir / "images"; }

fs::path PodLogsDir(const kubelet::NodeConfig& config, const fs::path& data_dir) {
  if (!config.pod_logs_dir.empty()) return config.pod_logs_dir;
  return data_dir / "log" / "pods";
}

fs::path NodeConfigSnapshotPath(const fs::path& data_dir) { return data_dir / "node-config.yaml"; }

Result<UniqueFd> LockDataDir(const fs::path& data_dir) {
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec) return SystemError("mkdir", data_dir, ec.value());
  chmod(data_dir.c_str(), 0700);
  const fs::path lock_path = data_dir / "serve.lock";
  UniqueFd lock(open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock) return SystemError("open", lock_path, errno);
  if (flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    return Failure("another podlimits serve is using " + data_dir.string());
  }
  return lock;
}

}  // namespace podlimits::serve
