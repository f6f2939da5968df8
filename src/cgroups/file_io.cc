#include "cgroups/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"
#include "base/unique_fd.h"

namespace podlimits::cgroups {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v';
}

}  // namespace

Result<std::string> ReadFile(const std::filesystem::path& file) {
  return ReadWholeFile(file);
}

Result<void> WriteFile(const std::filesystem::path& file, std::string_view value) {
  UniqueFd fd(::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (fd.get() < 0) return SystemError("open", file, errno);
  ssize_t n;
  do {
    n = ::write(fd.get(), value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return SystemError("write", file, errno);
  if (static_cast<std::size_t>(n) != value.size()) {
    return Failure(
        "write", file,
        "short write: " + std::to_string(n) + " of " + std::to_string(value.size()) + " bytes");
  }
  return {};
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    std::size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

}  // namespace podlimits::cgroups
