#include "serve/node_config_snapshot.h"

#include <system_error>

#include "base/fs.h"
#include "serve/data_dir.h"

namespace podlimits::serve {

namespace fs = std::filesystem;

Result<void> WriteNodeConfigSnapshot(const fs::path& data_dir,
                                     const std::optional<std::string>& text) {
  const fs::path snapshot = NodeConfigSnapshotPath(data_dir);
  if (text) return Wrapped(WriteFileAtomically(snapshot, *text, 0400), "node config snapshot");
  std::error_code ec;
  fs::remove(snapshot, ec);
  if (ec) return SystemError("remove", snapshot, ec.value());
  return {};
}

Result<kubelet::NodeConfig> ReadNodeConfigSnapshot(const fs::path& data_dir) {
  const fs::path snapshot = NodeConfigSnapshotPath(data_dir);
  std::error_code ec;
  if (!fs::exists(snapshot, ec)) return kubelet::DefaultNodeConfig();
  return kubelet::LoadNodeConfig(snapshot);
}

}  // namespace podlimits::serve
