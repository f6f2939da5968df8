// Following a container's run as it writes its CRI log file: what `kubectl logs -f` and
// `kubectl attach` both read. The file is polled (every 200 ms) from a byte offset; a rotation
// (the file shrank) starts over at the new file's beginning; complete entries are handed on as
// they come. The run is over once the pod's published status no longer shows that run of the
// container running (another uid, restart count or state), and one more read catches its last
// lines.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "cri/container_log.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

// The container's status in the pod object, or null.
const codec::Node* ContainerStatusOf(const codec::Node& pod, std::string_view container);

// The run a follower reads: the pod's uid and the container's restart count when it started.
struct FollowedRun {
  storage::ObjectKey pod_key;
  std::string uid;
  std::string container;
  std::string restart_count;
};
FollowedRun RunOf(const codec::Node& pod, const storage::ObjectKey& key, const std::string& container);

// True once the store no longer shows `run` running.
bool RunOver(storage::ObjectStore& store, const FollowedRun& run);

// Hands the entries completed since `offset` to `emit` until it returns false, `stop` returns
// true, or the run is over.
void FollowContainerLog(const std::filesystem::path& path, std::uintmax_t offset,
                        const std::function<bool(const std::vector<cri::LogEntry>&)>& emit,
                        const std::function<bool()>& over, const std::function<bool()>& stop);

}  // namespace podlimits::apiserver
