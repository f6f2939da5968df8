#include "nodeagent/monitor_files.h"

#include "base/clock_text.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "base/fs.h"
#include "base/numbers.h"
#include "codec/json_codec.h"
#include "kubelet/eviction/eviction_manager.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using codec::Node;

namespace {

constexpr std::size_t kMaxStatusBytes = 4 << 20;

std::optional<Node> ParseOne(const std::string& text) {
  auto nodes = codec::ParseJsonStream(text);
  if (!nodes || nodes->size() != 1) return std::nullopt;
  return std::move((*nodes)[0]);
}

std::optional<std::int64_t> ParseInt(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return ParseInt64(text);
}

sockaddr_un SocketAddress(const fs::path& data_dir, bool& fits) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = NotifySocketPath(data_dir).string();
  fits = path.size() < sizeof addr.sun_path;
  if (fits) std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

}  // namespace

fs::path MonitorDirectory(const fs::path& data_dir, std::string_view uid) {
  return data_dir / "pods" / std::string(uid);
}

fs::path NotifySocketPath(const fs::path& data_dir) { return data_dir / "kubelet.sock"; }

Result<void> WriteMonitorStatus(const fs::path& dir, const MonitorStatus& status) {
  Node doc = Node::Object();
  doc.Set("status", status.status);
  doc.Set("finished", Node::Bool(status.finished));
  return WriteFileAtomically(dir / "status.json", codec::EncodeJson(doc, 0) + "\n", 0600);
}

std::optional<MonitorStatus> ReadMonitorStatus(const fs::path& dir) {
  auto text = ReadSmallFile(dir / "status.json", kMaxStatusBytes);
  if (!text) return std::nullopt;
  auto doc = ParseOne(*text);
  if (!doc || !doc->IsObject()) return std::nullopt;
  MonitorStatus out;
  if (const Node* s = doc->Find("status")) out.status = *s;
  if (const Node* f = doc->Find("finished")) out.finished = f->AsBool();
  return out;
}

Result<void> AppendMonitorEvent(const fs::path& dir, const MonitorEvent& event) {
  Node line = Node::Object();
  line.Set("type", Node::String(std::string(kubelet::EventTypeName(event.event.type))));
  line.Set("reason", Node::String(event.event.reason));
  line.Set("message", Node::String(event.event.message));
  line.Set("time", Node::String(event.time));
  line.Set("nanos", Node::Int(event.nanos));
  const std::string text = codec::EncodeJson(line, 0) + "\n";
  const fs::path path = dir / "events.jsonl";
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!fd.valid()) return SystemError("open", path, errno);
  // One write(2) of a whole line: a reader never sees half of one, even if we die.
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return SystemError("write", path, errno);
  }
  return {};
}

std::vector<MonitorEvent> ReadMonitorEvents(const fs::path& dir, std::uint64_t& offset) {
  std::vector<MonitorEvent> out;
  std::ifstream in(dir / "events.jsonl", std::ios::binary);
  if (!in) return out;
  in.seekg(static_cast<std::streamoff>(offset));
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline yet: not a whole line
    offset += line.size() + 1;
    auto doc = ParseOne(line);
    if (!doc || !doc->IsObject()) continue;
    auto str = [&](const char* key) {
      const Node* n = doc->Find(key);
      return n && n->IsString() ? n->scalar : std::string();
    };
    MonitorEvent e;
    e.event.type = str("type") == "Warning" ? kubelet::EventType::kWarning
                                            : kubelet::EventType::kNormal;
    e.event.reason = str("reason");
    e.event.message = str("message");
    e.time = str("time");
    if (const Node* n = doc->Find("nanos")) e.nanos = ParseInt(n->scalar).value_or(0);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<pid_t> LiveMonitorPid(const fs::path& dir) {
  const fs::path path = dir / "monitor.lock";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  if (flock(fd.get(), LOCK_SH | LOCK_NB) == 0) return std::nullopt;  // nobody holds it
  if (errno != EWOULDBLOCK) return std::nullopt;
  char buf[32] = {};
  const ssize_t n = ::pread(fd.get(), buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  auto pid = ParseInt(std::string_view(buf, static_cast<std::size_t>(n)));
  if (!pid || *pid <= 0) return std::nullopt;
  return static_cast<pid_t>(*pid);
}

std::optional<UniqueFd> LockMonitor(const fs::path& dir) {
  const fs::path path = dir / "monitor.lock";
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return std::nullopt;
  if (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return std::nullopt;
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd.get(), 0) != 0 ||
      ::pwrite(fd.get(), pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    return std::nullopt;
  }
  return fd;
}

namespace {

// A pidfd of the live monitor, or nothing. The pid is the monitor's while the lock is held: open
// it first, then check the lock again, so a signal cannot reach a process that took over a
// recycled pid.
std::optional<UniqueFd> LiveMonitorPidfd(const fs::path& dir) {
  auto pid = LiveMonitorPid(dir);
  if (!pid) return std::nullopt;
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, *pid, 0)));
  if (!pidfd.valid()) return std::nullopt;
  auto again = LiveMonitorPid(dir);
  if (!again || *again != *pid) return std::nullopt;
  return pidfd;
}

bool Signal(const UniqueFd& pidfd, int signal) {
  return syscall(SYS_pidfd_send_signal, pidfd.get(), signal, nullptr, 0) == 0;
}

}  // namespace

bool StopMonitor(const fs::path& dir, std::optional<std::int64_t> grace_seconds) {
  auto pidfd = LiveMonitorPidfd(dir);
  if (!pidfd) return false;
  if (grace_seconds) {
    (void)WriteFileAtomically(dir / "stop", std::to_string(*grace_seconds) + "\n", 0600);
  }
  return Signal(*pidfd, SIGTERM);
}

std::string SpecUpdateSignature(const codec::Node& pod) {
  codec::Node what = codec::Node::Object();
  const codec::Node* spec = pod.Find("spec");
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const codec::Node* containers = spec ? spec->Find(list) : nullptr;
    if (containers == nullptr || !containers->IsArray()) continue;
    codec::Node& images = what.Ensure(list);
    for (const codec::Node& c : containers->items) {
      images.Set(codec::StringOf(c.Find("name")), codec::Node::String(codec::StringOf(c.Find("image"))));
    }
  }
  if (const codec::Node* deadline = spec ? spec->Find("activeDeadlineSeconds") : nullptr) {
    what.Set("activeDeadlineSeconds", *deadline);
  }
  return codec::EncodeJson(what, 0);
}

Result<bool> UpdateMonitoredPod(const fs::path& dir, const codec::Node& pod) {
  if (auto w = WriteFileAtomically(dir / "pod.json", codec::EncodeJson(pod, 0) + "\n", 0600); !w) {
    return std::unexpected(std::move(w.error()));
  }
  auto pidfd = LiveMonitorPidfd(dir);
  return pidfd && Signal(*pidfd, kSpecUpdateSignal);
}

std::optional<std::int64_t> ReadStopGrace(const fs::path& dir) {
  auto text = ReadSmallFile(dir / "stop", 64);
  if (!text) return std::nullopt;
  return ParseInt(*text);
}

MonitorEvent MonitorEventNow(kubelet::Event event) {
  return MonitorEvent{std::move(event), Rfc3339Now(),
                      std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count()};
}

Result<void> WriteEvictionMessage(const fs::path& dir, const std::string& message) {
  return WriteFileAtomically(dir / "evicted", message, 0600);
}

std::optional<std::string> ReadEvictionMessage(const fs::path& dir) {
  auto text = ReadSmallFile(dir / "evicted", 64 * 1024);
  if (!text) return std::nullopt;
  return *text;
}

Result<void> WriteNodeShutdownMessage(const fs::path& dir) {
  return WriteFileAtomically(dir / "node-shutdown", std::string(kNodeShutdownMessage), 0600);
}

std::optional<std::string> ReadNodeShutdownMessage(const fs::path& dir) {
  auto text = ReadSmallFile(dir / "node-shutdown", 64 * 1024);
  if (!text) return std::nullopt;
  return *text;
}

void ApplyNodeKill(codec::Node& status, const NodeKill& kill) {
  using codec::Node;
  if (kill.eviction_message) {
    status.Set("phase", Node::String("Failed"));
    status.Set("reason", Node::String(std::string(kubelet::kEvictedReason)));
    status.Set("message", Node::String(*kill.eviction_message));
  } else if (kill.shutdown_message) {
    if (codec::StringOf(status.Find("phase")) != "Succeeded") {
      status.Set("phase", Node::String("Failed"));
    }
    status.Set("reason", Node::String(std::string(kNodeShutdownReason)));
    status.Set("message", Node::String(*kill.shutdown_message));
  }
}

codec::Node RejectedPodStatus(const std::string& reason, const std::string& message,
                            const std::string& start_time, const std::string& qos_class) {
  codec::Node status = codec::Node::Object();
  status.Set("phase", codec::Node::String("Failed"));
  status.Set("reason", codec::Node::String(reason));
  status.Set("message", codec::Node::String(message));
  status.Set("startTime", codec::Node::String(start_time));
  if (!qos_class.empty()) status.Set("qosClass", codec::Node::String(qos_class));
  return status;
}

void NotifyAgent(const fs::path& data_dir, std::string_view uid) {
  bool fits = false;
  sockaddr_un addr = SocketAddress(data_dir, fits);
  if (!fits) return;
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return;
  (void)::sendto(fd.get(), uid.data(), uid.size(), MSG_DONTWAIT,
                 reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
}

Result<UniqueFd> BindNotifySocket(const fs::path& data_dir) {
  bool fits = false;
  sockaddr_un addr = SocketAddress(data_dir, fits);
  const fs::path path = NotifySocketPath(data_dir);
  if (!fits) return Failure("bind", path, "the path is too long for a unix socket");
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return SystemError("socket", path, errno);
  ::unlink(path.c_str());  // a dead agent's socket
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return SystemError("bind", path, errno);
  }
  // Many pods may report at once: a large queue, and a lost datagram is caught by the agent's
  // periodic look at every pod.
  int size = 1 << 20;
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  return fd;
}

}  // namespace podlimits::nodeagent
