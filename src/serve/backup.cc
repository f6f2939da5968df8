#include "serve/backup.h"

#include "storage/node_store.h"

namespace podlimits::serve {

Result<storage::StoreBackup> BackupNodeStore(const std::filesystem::path& data_dir,
                                               const std::filesystem::path& file) {
  return Wrapped(storage::BackupStore(data_dir / storage::kStoreFileName, file), "backup");
}

}  // namespace podlimits::serve
