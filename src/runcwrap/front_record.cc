#include "runcwrap/front_record.h"

#include <unistd.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "base/fs.h"
#include "runcwrap/front/runc_front.h"

namespace podlimits::runcwrap {

void RecordRuntimeForFront(const WrapperConfig& config) {
  std::array<char, front::kMaxPath> path{};
  if (!front::RecordPath(config.source.c_str(), path.data(), path.size())) return;
  std::array<char, front::kMaxRecord> record{};
  std::size_t n = 0;
  const std::optional<std::string>& text = config.runtime_naming_text;
  if (text && text->size() <= front::kMaxConfig) {  // a larger file the front would never match
    n = front::FormatRecord(front::DigestOf(text->data(), text->size()), config.runtime.c_str(),
                            record.data(), record.size());
  }
  if (n == 0) {
    ::unlink(path.data());
    return;
  }
  const std::string_view content(record.data(), n);
  if (auto existing = ReadSmallFile(path.data(), front::kMaxRecord);
      existing && *existing == content) {
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(front::kRecordDir, ec);
  if (ec) return;
  (void)ReplaceFile(path.data(), content, 0600);
}

}  // namespace podlimits::runcwrap
