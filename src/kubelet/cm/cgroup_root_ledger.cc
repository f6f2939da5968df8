#include "kubelet/cm/cgroup_root_ledger.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/error.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;

Result<std::string> ReadAll(int fd, const fs::path& file) {
  std::string text;
  char buf[4096];
  off_t offset = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SystemError("read", file.string(), errno);
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    offset += n;
  }
}

}  // namespace

std::vector<fs::path> ParseLedger(std::string_view text) {
  std::vector<fs::path> out;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty() || line.front() != '/') continue;
    fs::path p(line);
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
  }
  return out;
}

std::string FormatLedger(const std::vector<fs::path>& entries) {
  std::string out;
  for (const fs::path& p : entries) out += p.string() + "\n";
  return out;
}

Result<CgroupRootLedger> CgroupRootLedger::Lock(const fs::path& state_dir) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec) return SystemError("mkdir", state_dir.string(), ec.value());
  const fs::path file = state_dir / "cgroup-roots";
  UniqueFd fd(open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return SystemError("open", file.string(), errno);
  while (flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return SystemError("flock", file.string(), errno);
  }
  auto text = ReadAll(fd.get(), file);
  if (!text) return std::unexpected(text.error());
  return CgroupRootLedger(std::move(fd), file, ParseLedger(*text));
}

Result<void> CgroupRootLedger::Update(const std::vector<fs::path>& created,
                                      const std::vector<fs::path>& removed) {
  std::vector<fs::path> next;
  for (const fs::path& p : entries_) {
    if (std::find(removed.begin(), removed.end(), p) == removed.end()) next.push_back(p);
  }
  for (const fs::path& p : created) {
    if (std::find(next.begin(), next.end(), p) == next.end()) next.push_back(p);
  }
  if (next == entries_) return {};
  const std::string text = FormatLedger(next);
  // In place, under the lock: readers take the same lock first.
  if (ftruncate(fd_.get(), 0) != 0) return SystemError("truncate", file_.string(), errno);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = pwrite(fd_.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SystemError("write", file_.string(), errno);
    done += static_cast<std::size_t>(n);
  }
  entries_ = std::move(next);
  return {};
}

}  // namespace podlimits::kubelet
