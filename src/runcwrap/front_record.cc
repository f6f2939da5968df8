#include "runcwrap/front_record.h"

#include <sys/stat.h>

#include <array>
#include <string_view>
#include <system_error>

#include "base/fs.h"
#include "runcwrap/front/runc_front.h"

namespace podlimits::runcwrap {

void RecordRuntimeForFront(const std::filesystem::path& config_file,
                           const std::filesystem::path& runtime) {
  struct stat st {};
  if (::stat(config_file.c_str(), &st) != 0) return;
  front::Identity id;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = static_cast<std::uint64_t>(st.st_size);
  id.mtime_sec = static_cast<std::uint64_t>(st.st_mtim.tv_sec);
  id.mtime_nsec = static_cast<std::uint64_t>(st.st_mtim.tv_nsec);
  id.ctime_sec = static_cast<std::uint64_t>(st.st_ctim.tv_sec);
  id.ctime_nsec = static_cast<std::uint64_t>(st.st_ctim.tv_nsec);
  std::array<char, front::kMaxRecord> text{};
  std::size_t n = front::FormatRecord(id, runtime.c_str(), text.data(), text.size());
  std::array<char, front::kMaxPath> path{};
  if (n == 0 || !front::RecordPath(config_file.c_str(), path.data(), path.size())) return;
  const std::string_view record(text.data(), n);
  if (auto existing = ReadSmallFile(path.data(), front::kMaxRecord);
      existing && *existing == record) {
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(front::kRecordDir, ec);
  if (ec) return;
  (void)ReplaceFile(path.data(), record, 0600);
}

}  // namespace podlimits::runcwrap
