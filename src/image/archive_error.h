// libarchive's message for its last error. archive_error_string returns NULL when libarchive set
// none (a truncated compressed stream can end so), which std::string and fmt must never see.
#pragma once

#include <archive.h>

#include <string>

namespace podlimits::image {

inline std::string ArchiveError(struct archive* a) {
  const char* message = archive_error_string(a);
  return message != nullptr ? std::string(message) : std::string("malformed archive");
}

}  // namespace podlimits::image
