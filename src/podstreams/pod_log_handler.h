// GET /api/v1/namespaces/{ns}/pods/{name}/log: `kubectl logs`, as the apiserver proxies it to the
// kubelet's ReadLogs. Query: container, previous, tailLines, sinceSeconds, sinceTime,
// timestamps, limitBytes, follow (a chunked text stream that ends when the container's run
// does, the client goes or the server stops). Errors in the apiserver's and kubelet's words:
// `container "x" in pod "web" is waiting to start: ContainerCreating`, `a container name must
// be specified for pod web, choose one of: [a b]`.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

#include "base/error.h"
#include "codec/node.h"
#include "http/https_server.h"
#include "storage/object_store.h"

namespace podlimits::apiserver {

// Where the node keeps a container's log (the node agent).
class PodLogSource {
 public:
  virtual ~PodLogSource() = default;
  virtual Result<std::filesystem::path> ContainerLogFile(const codec::Node& pod,
                                                         std::string_view container,
                                                         bool previous) const = 0;
};

http::HttpResponse ServePodLog(storage::ObjectStore& store, const PodLogSource& logs, const http::HttpRequest& request,
                         const storage::ObjectKey& pod_key);

}  // namespace podlimits::apiserver
