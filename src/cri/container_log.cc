#include "cri/container_log.h"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "base/clock_text.h"
#include "base/unique_fd.h"

namespace podlimits::cri {

namespace fs = std::filesystem;

namespace {

// containerd's bufio reader size: a longer line is written in partial (P) entries.
constexpr std::size_t kMaxLineBytes = 16 * 1024;


}  // namespace

// One run's log file, shared by its stdout and stderr sinks; rotates itself.
class CriLogFile {
 public:
  CriLogFile(fs::path path, ContainerLogPolicy policy) : path_(std::move(path)), policy_(policy) {
    Reopen();
  }
  void Append(const std::string& entry) {
    std::lock_guard lock(mu_);
    if (!fd_.valid()) return;
    if (size_ > 0 && size_ + entry.size() > policy_.max_size) Rotate();
    const char* p = entry.data();
    std::size_t left = entry.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_.get(), p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // a full disk loses log lines, never the container
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    size_ += entry.size();
  }

 private:
  void Reopen() {
    std::error_code ec;
    fs::create_directories(path_.parent_path(), ec);
    fd_ = UniqueFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640));
    struct stat st{};
    size_ = fd_.valid() && fstat(fd_.get(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  }
  void Rotate() {
    const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    fs::path rotated = path_;
    rotated += fmt::format(".{:%Y%m%d-%H%M%S}", now);
    std::error_code ec;
    fs::rename(path_, rotated, ec);
    // Keep max_files in all: the current file and the newest rotated ones.
    std::vector<fs::path> old;
    const std::string prefix = path_.filename().string() + ".";
    for (const auto& e : fs::directory_iterator(path_.parent_path(), ec)) {
      if (e.path().filename().string().starts_with(prefix)) old.push_back(e.path());
    }
    std::sort(old.begin(), old.end());
    const std::size_t keep = static_cast<std::size_t>(std::max(1, policy_.max_files) - 1);
    for (std::size_t i = 0; i + keep < old.size(); ++i) fs::remove(old[i], ec);
    Reopen();
  }

  std::mutex mu_;
  fs::path path_;
  ContainerLogPolicy policy_;
  UniqueFd fd_;
  std::uint64_t size_ = 0;
};

namespace {

class CriLogSink : public OutputSink {
 public:
  CriLogSink(std::shared_ptr<CriLogFile> file, std::string_view stream)
      : file_(std::move(file)), stream_(stream) {}
  void Feed(std::string_view data) override {
    pending_.append(data);
    std::size_t start = 0;
    for (;;) {
      const std::size_t nl = pending_.find('\n', start);
      if (nl == std::string::npos) break;
      std::string_view line = std::string_view(pending_).substr(start, nl - start);
      while (line.size() > kMaxLineBytes) {
        Write(line.substr(0, kMaxLineBytes), true);
        line.remove_prefix(kMaxLineBytes);
      }
      Write(line, false);
      start = nl + 1;
    }
    pending_.erase(0, start);
    while (pending_.size() >= kMaxLineBytes) {
      Write(std::string_view(pending_).substr(0, kMaxLineBytes), true);
      pending_.erase(0, kMaxLineBytes);
    }
  }
  void Finish() override {
    if (!pending_.empty()) Write(pending_, false);
    pending_.clear();
  }

 private:
  void Write(std::string_view text, bool partial) {
    std::string entry = Rfc3339NanoNow();
    entry += ' ';
    entry += stream_;
    entry += partial ? " P " : " F ";
    entry += text;
    entry += '\n';
    file_->Append(entry);
  }

  std::shared_ptr<CriLogFile> file_;
  std::string_view stream_;
  std::string pending_;
};

// "2026-11-26T01:02:03.123456789Z" (UTC, as the writer makes them) as a time point; nullopt
// when malformed.
std::optional<std::chrono::system_clock::time_point> ParseTimestamp(const std::string& ts) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(ts.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  auto t = std::chrono::system_clock::from_time_t(timegm(&tm));
  std::string_view rest = std::string_view(ts).substr(static_cast<std::size_t>(consumed));
  if (!rest.empty() && rest[0] == '.') {
    std::int64_t nanos = 0;
    int digits = 0;
    for (std::size_t i = 1; i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])); ++i) {
      if (digits < 9) {
        nanos = nanos * 10 + (rest[i] - '0');
        ++digits;
      }
    }
    while (digits++ < 9) nanos *= 10;
    t += std::chrono::duration_cast<std::chrono::system_clock::duration>(
        std::chrono::nanoseconds(nanos));
  }
  return t;
}

}  // namespace

fs::path PodLogDirectory(const fs::path& root, std::string_view namespace_, std::string_view name,
                         std::string_view uid) {
  return root / fmt::format("{}_{}_{}", namespace_, name, uid);
}

fs::path ContainerLogFile(const fs::path& pod_log_dir, std::string_view container, int restart) {
  return pod_log_dir / std::string(container) / fmt::format("{}.log", restart);
}

std::unique_ptr<OutputSink> CriLogOutput::Open(std::string_view container, int restart,
                                               OutputStream stream) {
  // The run's stdout and stderr share one file.
  std::lock_guard lock(mu_);
  const fs::path path = ContainerLogFile(dir_, container, restart);
  std::shared_ptr<CriLogFile> file;
  if (auto it = open_.find(path); it != open_.end()) file = it->second.lock();
  if (!file) {
    file = std::make_shared<CriLogFile>(path, policy_);
    open_[path] = file;
  }
  return std::make_unique<CriLogSink>(file, stream == OutputStream::kStdout ? "stdout" : "stderr");
}

std::optional<LogEntry> ParseLogEntry(std::string_view line) {
  const std::size_t a = line.find(' ');
  if (a == std::string_view::npos) return std::nullopt;
  const std::size_t b = line.find(' ', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  LogEntry e;
  e.timestamp = std::string(line.substr(0, a));
  e.stream = std::string(line.substr(a + 1, b - a - 1));
  std::string_view rest = line.substr(b + 1);
  // The tag (F or P) is absent in files of older runtimes: then the rest is a full line.
  if (rest.size() >= 2 && (rest[0] == 'F' || rest[0] == 'P') && rest[1] == ' ') {
    e.partial = rest[0] == 'P';
    rest.remove_prefix(2);
  } else if (rest == "F" || rest == "P") {
    e.partial = rest[0] == 'P';
    rest = {};
  }
  e.text = std::string(rest);
  return e;
}

std::string RenderLogEntry(const LogEntry& entry, bool timestamps) {
  std::string out;
  if (timestamps) out = entry.timestamp + " ";
  out += entry.text;
  if (!entry.partial) out += '\n';
  return out;
}

std::string ReadContainerLog(const fs::path& log_file, const LogReadOptions& options) {
  std::vector<fs::path> files;
  std::error_code ec;
  const std::string prefix = log_file.filename().string() + ".";
  for (const auto& e : fs::directory_iterator(log_file.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && !name.ends_with(".tmp")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  files.push_back(log_file);
  std::deque<std::string> lines;  // rendered, newest last
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      auto entry = ParseLogEntry(line);
      if (!entry) continue;
      if (options.since) {
        auto when = ParseTimestamp(entry->timestamp);
        if (when && *when < *options.since) continue;
      }
      lines.push_back(RenderLogEntry(*entry, options.timestamps));
      if (options.tail_lines && static_cast<std::int64_t>(lines.size()) > *options.tail_lines) {
        lines.pop_front();
      }
    }
  }
  std::string out;
  for (const auto& l : lines) out += l;
  if (options.limit_bytes && static_cast<std::int64_t>(out.size()) > *options.limit_bytes) {
    out.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, *options.limit_bytes)));
  }
  return out;
}

}  // namespace podlimits::cri
