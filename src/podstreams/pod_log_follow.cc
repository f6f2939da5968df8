#include "podstreams/pod_log_follow.h"

#include <chrono>
#include <fstream>
#include <thread>

#include "listwatch/stored_object.h"

namespace podlimits::apiserver {

namespace fs = std::filesystem;
using codec::Node;

const Node* ContainerStatusOf(const Node& pod, std::string_view container) {
  for (const char* list : {"initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"}) {
    const Node* statuses = pod.FindPath({"status", list});
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const Node& s : statuses->items) {
      if (const Node* n = s.Find("name"); n && n->scalar == container) return &s;
    }
  }
  return nullptr;
}

FollowedRun RunOf(const Node& pod, const storage::ObjectKey& key, const std::string& container) {
  FollowedRun run{key, codec::StringOf(pod.FindPath({"metadata", "uid"})), container, "0"};
  if (const Node* s = ContainerStatusOf(pod, container)) {
    if (const Node* count = s->Find("restartCount")) run.restart_count = count->scalar;
  }
  return run;
}

bool RunOver(storage::ObjectStore& store, const FollowedRun& run) {
  auto got = store.Get(run.pod_key);
  if (!got) return true;
  auto pod = ParseStoredObject(got->data);
  if (!pod) return true;
  const Node* u = pod->FindPath({"metadata", "uid"});
  if (u == nullptr || u->scalar != run.uid) return true;
  const Node* s = ContainerStatusOf(*pod, run.container);
  if (s == nullptr) return true;
  const Node* count = s->Find("restartCount");
  if (count && count->scalar != run.restart_count) return true;
  return s->FindPath({"state", "running"}) == nullptr;
}

void FollowContainerLog(const fs::path& path, std::uintmax_t offset,
                        const std::function<bool(const std::vector<cri::LogEntry>&)>& emit,
                        const std::function<bool()>& over, const std::function<bool()>& stop) {
  std::error_code ec;
  std::string pending;
  bool ended = false;
  for (;;) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size < offset) offset = 0;  // rotated: the new file from its start
    if (!ec && size > offset) {
      std::ifstream in(path, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(offset));
      std::string chunk(static_cast<std::size_t>(size - offset), '\0');
      in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      chunk.resize(static_cast<std::size_t>(in.gcount()));
      offset += chunk.size();
      pending += chunk;
      std::vector<cri::LogEntry> entries;
      std::size_t start = 0;
      for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        if (auto entry = cri::ParseLogEntry(std::string_view(pending).substr(start, nl - start))) {
          entries.push_back(std::move(*entry));
        }
      }
      pending.erase(0, start);
      if (!entries.empty() && !emit(entries)) return;
    }
    if (ended || stop()) return;
    // One more read after the run is over catches its last lines.
    ended = over();
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace podlimits::apiserver
