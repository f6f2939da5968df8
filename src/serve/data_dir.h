// The node's data directory (`serve --data-dir`, /var/lib/podlimits by default): what serve keeps
// there besides the store (storage/node_store.h) and the certificates (apiserver/pki.h), and
// the lock that makes it one node's.
#pragma once

#include <filesystem>

#include "base/error.h"
#include "base/unique_fd.h"
#include "kubelet/config/node_config.h"

namespace podlimits::serve {

// The images the node's pods run from (`podlimits image --data-dir DIR` loads them there).
std::filesystem::path ImageRoot(const std::filesystem::path& data_dir);

// Where the containers' logs go: the node config's podLogsDir, else under the data directory.
std::filesystem::path PodLogsDir(const kubelet::NodeConfig& config,
                                 const std::filesystem::path& data_dir);

// The node configuration serve started with, as its pods' monitors read it (node_config_snapshot.h).
std::filesystem::path NodeConfigSnapshotPath(const std::filesystem::path& data_dir);

// The data directory made (0700) and locked: one serve per data directory. The lock is held
// until the returned descriptor closes (or the process ends).
Result<UniqueFd> LockDataDir(const std::filesystem::path& data_dir);

}  // namespace podlimits::serve
