// Container logs as the kubelet and its CRI runtime keep them:
//
//   <podLogsDir>/<namespace>_<name>_<uid>/<container>/<restartCount>.log
//
// one line per line the container wrote, in the CRI format, `<RFC3339Nano> <stdout|stderr>
// <F|P> <text>` (P: a partial line, cut at 16 KiB or at the end of the stream, continued by the
// next entry), rotated as the kubelet's container log manager does: once a file passes
// containerLogMaxSize it is renamed to `<restartCount>.log.<YYYYMMDD-hhmmss>` and a new one
// begun, keeping at most containerLogMaxFiles files per container run.
//
// ReadContainerLog is the kubelet's ReadLogs behind `kubectl logs`: the rotated files then the
// current one, with --timestamps, --tail, --since and --limit-bytes.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "cri/container_output.h"

namespace podlimits::cri {

struct ContainerLogPolicy {
  std::uint64_t max_size = 10 * 1024 * 1024;  // containerLogMaxSize (10Mi)
  int max_files = 5;                          // containerLogMaxFiles
};

// <root>/<namespace>_<name>_<uid>
std::filesystem::path PodLogDirectory(const std::filesystem::path& root, std::string_view namespace_,
                                      std::string_view name, std::string_view uid);
// <pod log dir>/<container>/<restart>.log
std::filesystem::path ContainerLogFile(const std::filesystem::path& pod_log_dir,
                                       std::string_view container, int restart);

// Writes every container's output to its CRI log file.
class CriLogOutput : public ContainerOutput {
 public:
  CriLogOutput(std::filesystem::path pod_log_dir, ContainerLogPolicy policy)
      : dir_(std::move(pod_log_dir)), policy_(policy) {}
  std::unique_ptr<OutputSink> Open(std::string_view container, int restart,
                                   OutputStream stream) override;

 private:
  std::filesystem::path dir_;
  ContainerLogPolicy policy_;
  std::mutex mu_;
  std::map<std::filesystem::path, std::weak_ptr<class CriLogFile>> open_;  // by path
};

struct LogReadOptions {
  bool timestamps = false;
  std::optional<std::int64_t> tail_lines;                        // the last N lines
  std::optional<std::chrono::system_clock::time_point> since;    // lines at or after
  std::optional<std::int64_t> limit_bytes;                       // at most N bytes of output
};

// One entry of a CRI log file.
struct LogEntry {
  std::string timestamp;  // as written (RFC3339Nano)
  std::string stream;     // "stdout" / "stderr"
  bool partial = false;
  std::string text;       // without the newline
};
std::optional<LogEntry> ParseLogEntry(std::string_view line);

// What `kubectl logs` prints for the run whose current file is `log_file`.
std::string ReadContainerLog(const std::filesystem::path& log_file, const LogReadOptions& options);

// The output text of one entry as ReadLogs writes it (with its timestamp when asked).
std::string RenderLogEntry(const LogEntry& entry, bool timestamps);

}  // namespace podlimits::cri
