// What a pod's monitor process and the node agent share: a directory per pod,
// <data-dir>/pods/<uid>/, and a datagram socket, <data-dir>/kubelet.sock.
//
//   pod.json       the pod as the API admitted it (the agent writes it before the monitor starts)
//   monitor.lock   held (flock) by the live monitor for its whole life, and holding its pid: a
//                  monitor is alive exactly while the lock is held, whatever became of pids
//   status.json    {"status": <PodStatus>, "finished": bool}, replaced atomically on each change
//   events.jsonl   one event per line, appended: {"type","reason","message","time","nanos"}
//   stop           the grace period (seconds) of a stop the agent asks for with SIGTERM
//                  (pod.json is rewritten with the stored pod when an update changed what a
//                  running pod takes — images, activeDeadlineSeconds, ephemeral containers —
//                  and the monitor told
//                  with kSpecUpdateSignal; kubelet/podworker/pod_spec_update.h)
//   pid-limit-applied  the monitor applied the pod's spec.resources.limits.pid to its cgroup
//   evicted        the eviction message, written by the agent before it stops an evicted pod:
//                  the monitor's final status is then phase Failed, reason Evicted, that message
//   node-shutdown  the node shutdown manager's message, written by the agent before it stops the
//                  pod because the node stops (`--drain-on-exit`): the final status is then
//                  reason Terminated with that message, phase Failed unless it had Succeeded
//
// The monitor sends the pod's uid to the socket after each change; the agent reads the files
// (a monitor never waits for the agent, and the files are what a restarted agent reads first).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "codec/node.h"
#include "kubelet/events/events.h"

namespace podlimits::nodeagent {

std::filesystem::path MonitorDirectory(const std::filesystem::path& data_dir, std::string_view uid);
std::filesystem::path NotifySocketPath(const std::filesystem::path& data_dir);

struct MonitorStatus {
  codec::Node status;  // the PodStatus
  bool finished = false;
};

// A recorded event with the time it happened.
struct MonitorEvent {
  kubelet::Event event;
  std::string time;          // RFC 3339, seconds
  std::int64_t nanos = 0;    // Unix nanoseconds: names the API event, so replays are no-ops
};

// `event` as it happens now: the RFC 3339 time and the Unix nanoseconds that name it.
MonitorEvent MonitorEventNow(kubelet::Event event);

Result<void> WriteMonitorStatus(const std::filesystem::path& dir, const MonitorStatus& status);
std::optional<MonitorStatus> ReadMonitorStatus(const std::filesystem::path& dir);

Result<void> AppendMonitorEvent(const std::filesystem::path& dir, const MonitorEvent& event);
// The events from byte `offset` on; `offset` moves past the last whole line read.
std::vector<MonitorEvent> ReadMonitorEvents(const std::filesystem::path& dir, std::uint64_t& offset);

// The live monitor's pid, or nullopt when no monitor holds the lock.
std::optional<pid_t> LiveMonitorPid(const std::filesystem::path& dir);

// Takes the lock for this process (nullopt: another monitor holds it) and records the pid.
std::optional<UniqueFd> LockMonitor(const std::filesystem::path& dir);

// Asks the live monitor to stop its pod (SIGTERM after writing the stop file): within
// `grace_seconds`, or with the pod's own terminationGracePeriodSeconds when nullopt. False when
// no monitor is alive.
bool StopMonitor(const std::filesystem::path& dir, std::optional<std::int64_t> grace_seconds);
// The stop's grace period as the agent wrote it.
std::optional<std::int64_t> ReadStopGrace(const std::filesystem::path& dir);

inline constexpr std::string_view kPidLimitAppliedFile = "pid-limit-applied";

// "pod.json changed what the running pod takes": blocked by the monitor before it takes its
// lock, so a monitor that can be found can never be killed by it.
inline constexpr int kSpecUpdateSignal = SIGUSR1;

// What of the pod a spec update may change and the node acts on (its containers', init
// containers' and ephemeral containers' images, activeDeadlineSeconds), as one comparable string.
std::string SpecUpdateSignature(const codec::Node& pod);

// Rewrites pod.json with `pod` and tells the live monitor, if any (false: none was told).
Result<bool> UpdateMonitoredPod(const std::filesystem::path& dir, const codec::Node& pod);

// The eviction manager's word to the monitor (see `evicted` above).
Result<void> WriteEvictionMessage(const std::filesystem::path& dir, const std::string& message);
std::optional<std::string> ReadEvictionMessage(const std::filesystem::path& dir);

// The kubelet's node shutdown manager's words for a pod it stopped because the node shuts down
// (pkg/kubelet/nodeshutdown: nodeShutdownReason, nodeShutdownMessage), also the message of the
// DisruptionTarget condition (reason TerminationByKubelet) it sets.
inline constexpr std::string_view kNodeShutdownReason = "Terminated";
inline constexpr std::string_view kNodeShutdownMessage =
    "Pod was terminated in response to imminent node shutdown.";
Result<void> WriteNodeShutdownMessage(const std::filesystem::path& dir);
std::optional<std::string> ReadNodeShutdownMessage(const std::filesystem::path& dir);

// Why the node itself stopped a pod, as the agent told its monitor.
struct NodeKill {
  std::optional<std::string> eviction_message;  // `evicted`
  std::optional<std::string> shutdown_message;  // `node-shutdown`
};
// The final status of such a pod, as the kubelet's kill leaves it: an eviction is phase Failed,
// reason Evicted, its message; a node shutdown reason Terminated, its message, phase Failed
// unless the pod had Succeeded. Nothing changes without either.
void ApplyNodeKill(codec::Node& status, const NodeKill& kill);

// The status of a pod the node did not run (the kubelet's rejectPod): phase Failed, the reason
// and message, startTime (`start_time`, RFC 3339) and the QoS class ("" for none).
codec::Node RejectedPodStatus(const std::string& reason, const std::string& message,
                            const std::string& start_time, const std::string& qos_class);

// The monitor's side of the socket: sends `uid` (best effort; no agent, no message).
void NotifyAgent(const std::filesystem::path& data_dir, std::string_view uid);
// The agent's side: bound to the socket path (replacing a stale one).
Result<UniqueFd> BindNotifySocket(const std::filesystem::path& data_dir);

}  // namespace podlimits::nodeagent
