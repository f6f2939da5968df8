#include "cri/process_limits.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "base/error.h"
#include "base/fs.h"
#include "cri/kernel_limits.h"

namespace podlimits::cri {
namespace {

struct LimitRow {
  std::string_view row;   // the name the kernel prints (fs/proc/base.c lnames[])
  std::string_view type;  // the OCI / setrlimit name
  int resource;
};

constexpr LimitRow kRows[] = {
    {"Max cpu time", "RLIMIT_CPU", RLIMIT_CPU},
    {"Max file size", "RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"Max data size", "RLIMIT_DATA", RLIMIT_DATA},
    {"Max stack size", "RLIMIT_STACK", RLIMIT_STACK},
    {"Max core file size", "RLIMIT_CORE", RLIMIT_CORE},
    {"Max resident set", "RLIMIT_RSS", RLIMIT_RSS},
    {"Max processes", "RLIMIT_NPROC", RLIMIT_NPROC},
    {"Max open files", "RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"Max locked memory", "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"Max address space", "RLIMIT_AS", RLIMIT_AS},
    {"Max file locks", "RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"Max pending signals", "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"Max msgqueue size", "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"Max nice priority", "RLIMIT_NICE", RLIMIT_NICE},
    {"Max realtime priority", "RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"Max realtime timeout", "RLIMIT_RTTIME", RLIMIT_RTTIME},
};

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// The row a line is about. Names are several words and the kernel pads them to a column
// (`%-25s `), so the line must continue with whitespace after the whole name: "Max file size"
// and "Max file locks" never match each other.
const LimitRow* RowOf(std::string_view line) {
  for (const LimitRow& r : kRows) {
    if (line.starts_with(r.row) && line.size() > r.row.size() && IsSpace(line[r.row.size()])) {
      return &r;
    }
  }
  return nullptr;
}

std::optional<std::uint64_t> ParseValue(std::string_view s) {
  if (s == "unlimited") return kUnlimited;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string ValueText(std::uint64_t v) {
  return v == kUnlimited ? std::string("unlimited") : std::to_string(v);
}

std::string LimitsFile(pid_t pid, const std::filesystem::path& proc_root) {
  return (proc_root / std::to_string(pid) / "limits").string();
}

}  // namespace

std::string DescribePrlimitFailure(const Rlimit& want, const ProcessLimit& found, pid_t pid,
                                   int err, const PrlimitContext& context) {
  std::string why =
      fmt::format("the OCI runtime left it at {}/{}", ValueText(found.soft), ValueText(found.hard));
  if (err == EPERM && want.type == "RLIMIT_NOFILE" && context.nr_open &&
      want.hard > static_cast<std::uint64_t>(*context.nr_open)) {
    why += fmt::format(", and the kernel refuses a hard limit above fs.nr_open ({})",
                       *context.nr_open);
  } else if (err == EPERM && want.hard > found.hard) {
    why += fmt::format(", and raising a hard limit ({} to {}) needs CAP_SYS_RESOURCE, which {}",
                       ValueText(found.hard), ValueText(want.hard),
                       context.cap_sys_resource
                           ? "podlimits has in its effective set, yet the kernel refused"
                           : "podlimits lacks");
  } else if (err == EINVAL && want.soft > want.hard) {
    why += ", and a soft limit above the hard limit is invalid";
  }
  return fmt::format("set {} of pid {} to {}/{}: {}: {}", want.type, pid, ValueText(want.soft),
                     ValueText(want.hard), why, std::strerror(err));
}

Result<std::vector<ProcessLimit>> ParseProcLimits(const std::string& text) {
  std::vector<ProcessLimit> out;
  std::string_view rest = text;
  int number = 0;
  bool header = false;
  while (!rest.empty()) {
    auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    ++number;
    if (Fields(line).empty()) continue;
    if (!header) {
      if (Fields(line) !=
          std::vector<std::string_view>{"Limit", "Soft", "Limit", "Hard", "Limit", "Units"}) {
        return Failure(fmt::format(
            "line {}: expected the header \"Limit Soft Limit Hard Limit Units\"", number));
      }
      header = true;
      continue;
    }
    const LimitRow* row = RowOf(line);
    if (row == nullptr) {
      return Failure(fmt::format("line {}: unknown limit \"{}\"", number, line));
    }
    auto fields = Fields(line.substr(row->row.size()));
    if (fields.size() < 2 || fields.size() > 3) {
      return Failure(
          fmt::format("line {}: {}: want a soft limit, a hard limit and maybe units, got \"{}\"",
                      number, row->row, line));
    }
    auto soft = ParseValue(fields[0]);
    auto hard = ParseValue(fields[1]);
    if (!soft || !hard) {
      return Failure(fmt::format("line {}: {}: \"{}\" is not a number or \"unlimited\"", number,
                                 row->row, soft ? fields[1] : fields[0]));
    }
    bool repeated = std::any_of(out.begin(), out.end(),
                                [&](const ProcessLimit& l) { return l.type == row->type; });
    if (repeated) return Failure(fmt::format("line {}: {} repeated", number, row->row));
    out.push_back({std::string(row->type), *soft, *hard,
                   fields.size() == 3 ? std::string(fields[2]) : std::string()});
  }
  if (!header) return Failure("empty: no header line");
  return out;
}

Result<std::vector<ProcessLimit>> ReadProcessLimits(pid_t pid,
                                                    const std::filesystem::path& proc_root) {
  const std::string file = LimitsFile(pid, proc_root);
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return SystemError("read", file, errno);
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return SystemError("read", file, e);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fd);
  auto limits = ParseProcLimits(text);
  if (!limits) return Failure(fmt::format("parse \"{}\": {}", file, limits.error().Message()));
  return limits;
}

Result<std::vector<LimitCorrection>> CorrectProcessLimits(pid_t pid,
                                                          const std::vector<Rlimit>& wanted,
                                                          const std::filesystem::path& proc_root) {
  if (wanted.empty()) return std::vector<LimitCorrection>();
  auto corrected = CorrectAndReadProcessLimits(pid, wanted, proc_root);
  if (!corrected) return std::unexpected(std::move(corrected.error()));
  return std::move(corrected->corrections);
}

Result<CorrectedLimits> CorrectAndReadProcessLimits(pid_t pid, const std::vector<Rlimit>& wanted,
                                                    const std::filesystem::path& proc_root) {
  CorrectedLimits out;
  auto found = ReadProcessLimits(pid, proc_root);
  if (!found) return std::unexpected(found.error());
  out.limits = std::move(*found);
  for (const Rlimit& want : wanted) {
    auto row = std::find_if(std::begin(kRows), std::end(kRows),
                            [&](const LimitRow& r) { return r.type == want.type; });
    if (row == std::end(kRows)) return Failure(fmt::format("unknown rlimit \"{}\"", want.type));
    auto have = std::find_if(out.limits.begin(), out.limits.end(),
                             [&](const ProcessLimit& l) { return l.type == want.type; });
    if (have == out.limits.end()) {
      return Failure(fmt::format("\"{}\" has no \"{}\" row", LimitsFile(pid, proc_root), row->row));
    }
    if (have->soft == want.soft && have->hard == want.hard) continue;
    const rlimit limit{want.soft, want.hard};
    if (prlimit(pid, static_cast<enum __rlimit_resource>(row->resource), &limit, nullptr) != 0) {
      const int err = errno;
      PrlimitContext context;
      // An unreadable status reads as empty, as it always did: the capability counts as missing.
      context.cap_sys_resource =
          HasCapSysResource(ReadWholeFile(proc_root / "self/status").value_or(""));
      context.nr_open = ReadNrOpen(proc_root);
      return Failure(DescribePrlimitFailure(want, *have, pid, err, context));
    }
    out.corrections.push_back({want, have->soft, have->hard});
    // What the kernel now holds: prlimit sets exactly the values given, or fails.
    have->soft = want.soft;
    have->hard = want.hard;
  }
  return out;
}

Result<int> ReadSeccompMode(pid_t pid) {
  const std::string path = fmt::format("/proc/{}/status", pid);
  auto text = ReadSmallFile(path, 1 << 16);
  if (!text) return std::unexpected(std::move(text.error()));
  constexpr std::string_view kKey = "\nSeccomp:";
  const std::size_t at = text->find(kKey);
  if (at == std::string::npos) return Failure("read seccomp mode", path, "no Seccomp field");
  std::size_t i = at + kKey.size();
  while (i < text->size() && ((*text)[i] == ' ' || (*text)[i] == '\t')) ++i;
  if (i >= text->size() || (*text)[i] < '0' || (*text)[i] > '2') {
    return Failure("read seccomp mode", path, "the Seccomp field is not 0, 1 or 2");
  }
  return (*text)[i] - '0';
}

}  // namespace podlimits::cri
