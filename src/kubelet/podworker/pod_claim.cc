#include "kubelet/podworker/pod_claim.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <sstream>
#include <thread>

#include "base/fs.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;

// A lock file that keeps being replaced under us is someone else's business for a moment;
// past this many tries something is wrong.
constexpr int kAttempts = 20;

std::optional<std::uint64_t> StartTime(pid_t pid) {
  // A process that is gone has no start time.
  auto read = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  if (!read) return std::nullopt;
  const std::string& text = *read;
  // The command name may hold spaces and parentheses: fields resume after the last ')'.
  std::size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size()) return std::nullopt;
  return v;
}

std::string ReadFd(int fd) {
  std::string text;
  char buf[256];
  off_t offset = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof buf, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || text.size() > 4096) return text;
    text.append(buf, static_cast<std::size_t>(n));
    offset += n;
  }
}

bool SameFile(int fd, const fs::path& path) {
  struct stat held {
  }, now{};
  if (fstat(fd, &held) != 0 || stat(path.c_str(), &now) != 0) return false;
  return held.st_ino == now.st_ino && held.st_dev == now.st_dev;
}

}  // namespace

PodOwner ThisProcessOwner() {
  PodOwner owner;
  owner.pid = getpid();
  owner.start_time = StartTime(owner.pid).value_or(0);
  return owner;
}

std::string FormatOwner(const PodOwner& owner) {
  return fmt::format("pid {}\nstart {}\n", owner.pid, owner.start_time);
}

std::optional<PodOwner> ParseOwner(std::string_view text) {
  PodOwner owner;
  bool pid = false, start = false;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    auto number = [&](std::string_view key, auto& into) {
      if (!line.starts_with(key)) return false;
      std::string_view v = line.substr(key.size());
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), into);
      return ec == std::errc() && p == v.data() + v.size();
    };
    if (number("pid ", owner.pid)) {
      pid = owner.pid > 0;
    } else if (number("start ", owner.start_time)) {
      start = true;
    } else if (!line.empty()) {
      return std::nullopt;
    }
  }
  if (!pid || !start) return std::nullopt;
  return owner;
}

Result<PodClaim> PodClaim::Acquire(const fs::path& pods_dir, const std::string& uid,
                                   std::chrono::milliseconds patience) {
  const auto give_up = std::chrono::steady_clock::now() + patience;
  const fs::path lock_file = pods_dir / (uid + ".lock");
  const fs::path pod_dir = pods_dir / uid;
  if (uid.empty() || uid == "." || uid == ".." || uid.find('/') != std::string::npos) {
    return Failure(fmt::format("claim pod uid \"{}\": not a file name", uid));
  }
  std::error_code ec;
  fs::create_directories(pods_dir, ec);
  if (ec) return SystemError("mkdir", pods_dir, ec.value());
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    UniqueFd fd(open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd.valid()) return SystemError("open", lock_file, errno);
    if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) return SystemError("flock", lock_file, errno);
      if (std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        --attempt;  // waiting is not one of the replaced-file attempts
        continue;
      }
      const std::optional<PodOwner> owner = ParseOwner(ReadFd(fd.get()));
      return Refusal(kPodUIDInUse,
                     fmt::format("pod uid \"{}\" is in use by {} (it holds \"{}\")", uid,
                                 owner ? fmt::format("podlimits pid {}", owner->pid)
                                       : std::string("another podlimits process"),
                                 lock_file.string()));
    }
    // The holder before us may have unlinked this file as we opened it: then it is no longer the
    // lock, and whoever creates the next one wins.
    if (!SameFile(fd.get(), lock_file)) continue;
    const std::optional<PodOwner> previous = ParseOwner(ReadFd(fd.get()));
    const std::string owner = FormatOwner(ThisProcessOwner());
    if (ftruncate(fd.get(), 0) != 0 ||
        pwrite(fd.get(), owner.data(), owner.size(), 0) != static_cast<ssize_t>(owner.size())) {
      return SystemError("write", lock_file, errno);
    }
    const bool leftovers = fs::exists(pod_dir, ec);
    PodClaim claim(std::move(fd), lock_file, pod_dir, uid, leftovers);
    claim.previous_owner_ = previous;
    return claim;
  }
  return Failure(fmt::format("claim \"{}\": the lock file kept being replaced", lock_file.string()));
}

std::optional<PodOwner> PodClaim::Holder(const fs::path& pods_dir, const std::string& uid) {
  auto text = ReadWholeFile(pods_dir / (uid + ".lock"));
  if (!text) return std::nullopt;
  return ParseOwner(*text);
}

PodClaim::PodClaim(PodClaim&& other) noexcept
    : fd_(std::move(other.fd_)),
      lock_file_(std::exchange(other.lock_file_, {})),
      pod_dir_(std::exchange(other.pod_dir_, {})),
      uid_(std::exchange(other.uid_, {})),
      leftovers_(other.leftovers_),
      previous_owner_(other.previous_owner_) {}

PodClaim& PodClaim::operator=(PodClaim&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::move(other.fd_);
    lock_file_ = std::exchange(other.lock_file_, {});
    pod_dir_ = std::exchange(other.pod_dir_, {});
    uid_ = std::exchange(other.uid_, {});
    leftovers_ = other.leftovers_;
    previous_owner_ = other.previous_owner_;
  }
  return *this;
}

PodClaim::~PodClaim() {
  Release();
}

void PodClaim::Release() {
  if (!fd_.valid()) return;
  // Unlinked while locked: a process that opened it meanwhile sees the inode change.
  if (SameFile(fd_.get(), lock_file_)) unlink(lock_file_.c_str());
  fd_ = UniqueFd();
}

}  // namespace podlimits::kubelet
