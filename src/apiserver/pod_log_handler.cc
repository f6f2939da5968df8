#include "apiserver/pod_log_handler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <thread>
#include <vector>

#include "apiserver/api_errors.h"
#include "apiserver/pod_container.h"
#include "apiserver/stored_object.h"
#include "base/numbers.h"
#include "kubelet/container_log.h"

namespace podlimits::apiserver {

namespace fs = std::filesystem;
using api::Node;

namespace {


bool Truthy(const std::string& v) { return v == "true" || v == "1"; }

// The container's status, or null.
const Node* ContainerStatus(const Node& pod, std::string_view container) {
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const Node* statuses = pod.FindPath({"status", list});
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const Node& s : statuses->items) {
      if (const Node* n = s.Find("name"); n && n->scalar == container) return &s;
    }
  }
  return nullptr;
}

// The run a follow reads is over: the container is not running it any more.
bool RunOver(ObjectStore& store, const ObjectKey& key, const std::string& uid,
             const std::string& container, const std::string& restart_count) {
  auto got = store.Get(key);
  if (!got) return true;
  auto pod = ParseStoredObject(got->data);
  if (!pod) return true;
  const Node* u = pod->FindPath({"metadata", "uid"});
  if (u == nullptr || u->scalar != uid) return true;
  const Node* s = ContainerStatus(*pod, container);
  if (s == nullptr) return true;
  const Node* count = s->Find("restartCount");
  if (count && count->scalar != restart_count) return true;
  return s->FindPath({"state", "running"}) == nullptr;
}

}  // namespace

HttpResponse ServePodLog(ObjectStore& store, const PodLogSource& logs, const HttpRequest& request,
                         const ObjectKey& pod_key) {
  auto query = [&](const char* key) -> std::optional<std::string> {
    auto it = request.query.find(key);
    if (it == request.query.end()) return std::nullopt;
    return it->second;
  };
  auto got = store.Get(pod_key);
  if (!got) {
    if (got.error().kind == StoreError::Kind::kNotFound) {
      return NotFound("pods", pod_key.name).Response();
    }
    return InternalError(got.error().error.Message()).Response();
  }
  auto pod = ParseStoredObject(got->data);
  if (!pod) return InternalError("a stored object does not parse").Response();

  auto resolved = ResolvePodContainer(*pod, query("container").value_or(""), pod_key.name);
  if (!resolved) return resolved.error().Response();
  const std::string container = std::move(*resolved);
  kubelet::LogReadOptions options;
  options.timestamps = Truthy(query("timestamps").value_or(""));
  const bool previous = Truthy(query("previous").value_or(""));
  const bool follow = Truthy(query("follow").value_or("")) && !previous;
  for (const char* key : {"tailLines", "limitBytes", "sinceSeconds"}) {
    auto v = query(key);
    if (!v) continue;
    auto n = ParseInt64(*v);
    if (!n || *n < 0 || (std::string_view(key) == "sinceSeconds" && *n < 1)) {
      return BadRequest(fmt::format("{}: Invalid value: {}: must be {}", key, *v,
                                    std::string_view(key) == "sinceSeconds"
                                        ? "greater than 0"
                                        : "greater than or equal to 0"))
          .Response();
    }
    if (std::string_view(key) == "tailLines") options.tail_lines = n;
    if (std::string_view(key) == "limitBytes") options.limit_bytes = n;
    if (std::string_view(key) == "sinceSeconds") {
      options.since = std::chrono::system_clock::now() - std::chrono::seconds(*n);
    }
  }
  auto file = logs.ContainerLogFile(*pod, container, previous);
  if (!file) return BadRequest(file.error().Message()).Response();

  std::string text = kubelet::ReadContainerLog(*file, options);
  if (!follow) return {200, "text/plain", std::move(text)};

  HttpResponse response(200, "text/plain", "");
  const Node* s = ContainerStatus(*pod, container);
  const Node* count = s ? s->Find("restartCount") : nullptr;
  const std::string restart_count = count ? count->scalar : "0";
  const Node* uid_node = pod->FindPath({"metadata", "uid"});
  const std::string uid = uid_node ? uid_node->scalar : "";
  const bool timestamps = options.timestamps;
  response.stream = [&store, pod_key, uid, container, restart_count, timestamps,
                     first = std::move(text), path = *file](ResponseStream& out) {
    if (!out.Write(first)) return;
    // From the end of what was read; lines completed later are sent as they come.
    std::error_code ec;
    std::uintmax_t offset = fs::file_size(path, ec);
    if (ec) offset = 0;
    std::string pending;
    bool over = false;
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
        std::string send;
        std::size_t start = 0;
        for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
          if (auto entry = kubelet::ParseLogEntry(std::string_view(pending).substr(start, nl - start))) {
            send += kubelet::RenderLogEntry(*entry, timestamps);
          }
        }
        pending.erase(0, start);
        if (!send.empty() && !out.Write(send)) return;
      }
      if (over || out.Closed()) return;
      // One more read after the run is over catches its last lines.
      over = RunOver(store, pod_key, uid, container, restart_count);
      if (!over) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  };
  return response;
}

}  // namespace podlimits::apiserver
