#include "serve/backup.h"

#include "apiserver/node_store.h"

namespace podlimits::serve {

Result<apiserver::StoreBackup> BackupNodeStore(const std::filesystem::path& data_dir,
                                               const std::filesystem::path& file) {
  return Wrapped(apiserver::BackupStore(data_dir / apiserver::kStoreFileName, file), "backup");
}

}  // namespace podlimits::serve
