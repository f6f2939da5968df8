#include "podstreams/pod_log_handler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <thread>
#include <vector>

#include "listwatch/api_errors.h"
#include "podstreams/pod_container.h"
#include "podstreams/pod_log_follow.h"
#include "listwatch/request_info.h"
#include "listwatch/stored_object.h"
#include "base/numbers.h"
#include "cri/container_log.h"

namespace podlimits::apiserver {

namespace fs = std::filesystem;
using codec::Node;

http::HttpResponse ServePodLog(storage::ObjectStore& store, const PodLogSource& logs, const http::HttpRequest& request,
                         const storage::ObjectKey& pod_key) {
  auto query = [&](const char* key) -> std::optional<std::string> {
    auto it = request.query.find(key);
    if (it == request.query.end()) return std::nullopt;
    return it->second;
  };
  auto pod = LoadPod(store, pod_key);
  if (!pod) return pod.error().Response();

  auto resolved = ResolvePodContainer(*pod, query("container").value_or(""), pod_key.name);
  if (!resolved) return resolved.error().Response();
  const std::string container = std::move(*resolved);
  cri::LogReadOptions options;
  options.timestamps = QueryFlag(request, "timestamps");
  const bool previous = QueryFlag(request, "previous");
  const bool follow = QueryFlag(request, "follow") && !previous;
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

  std::string text = cri::ReadContainerLog(*file, options);
  if (!follow) return {200, "text/plain", std::move(text)};

  http::HttpResponse response(200, "text/plain", "");
  const FollowedRun run = RunOf(*pod, pod_key, container);
  const bool timestamps = options.timestamps;
  response.stream = [&store, run, timestamps, first = std::move(text),
                     path = *file](http::ResponseStream& out) {
    if (!out.Write(first)) return;
    // From the end of what was read; lines completed later are sent as they come.
    std::error_code ec;
    std::uintmax_t offset = fs::file_size(path, ec);
    if (ec) offset = 0;
    FollowContainerLog(
        path, offset,
        [&](const std::vector<cri::LogEntry>& entries) {
          std::string send;
          for (const auto& e : entries) send += cri::RenderLogEntry(e, timestamps);
          return out.Write(send);
        },
        [&] { return RunOver(store, run); }, [&] { return out.Closed(); });
  };
  return response;
}

}  // namespace podlimits::apiserver
