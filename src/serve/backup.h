// `podlimits serve backup`: a copy of the node's store, taken while serve runs or not
// (storage/store_backup.h; restoring it is docs/serve.md's).
#pragma once

#include <filesystem>

#include "storage/store_backup.h"
#include "base/error.h"

namespace podlimits::serve {

Result<storage::StoreBackup> BackupNodeStore(const std::filesystem::path& data_dir,
                                               const std::filesystem::path& file);

}  // namespace podlimits::serve
