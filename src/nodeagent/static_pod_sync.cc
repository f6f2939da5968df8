// The node agent's static pods (node_agent.h, static_pods.h): the manifests of staticPodPath
// run as the kubelet's file source runs them, each shown in the API by its mirror pod.
#include "nodeagent/node_agent.h"

#include <fmt/format.h>

#include "apiserver/api_handler.h"
#include "listwatch/stored_object.h"
#include "base/clock_text.h"
#include "codec/json_codec.h"
#include "cri/container_log.h"
#include "nodeagent/monitor_files.h"
#include "nodeagent/object_fields.h"

namespace podlimits::nodeagent {

namespace fs = std::filesystem;
using storage::ObjectKey;

void NodeAgent::SyncStaticPods() {
  if (options_.static_pod_path.empty()) return;
  StaticPodScan scan =
      ReadStaticPods(options_.static_pod_path, options_.node_name, options_.gates, Rfc3339Now());
  for (const auto& e : scan.errors) {
    if (reported_.insert(e).second) Log("static pod not run: " + e);
  }
  for (auto& [uid, known] : pods_) {
    if (known.static_pod) known.in_manifests = false;
  }
  for (const StaticPod& sp : scan.pods) {
    KnownPod& known = pods_[sp.uid];
    if (known.removed) continue;
    known.static_pod = true;
    known.in_manifests = true;
    const std::string ns = Str(sp.object, {"metadata", "namespace"});
    const std::string name = Str(sp.object, {"metadata", "name"});
    known.key = {"pods", ns, name};
    known.log_dir = cri::PodLogDirectory(options_.pod_logs_dir, ns, name, sp.uid);
    const fs::path dir = MonitorDirectory(options_.data_dir, sp.uid);
    if (auto status = ReadMonitorStatus(dir); status && status->finished) known.finished = true;
    const bool alive = known.child > 0 || LiveMonitorPid(dir).has_value();
    if (!alive && !known.finished) Spawn(sp.uid, known, sp.object);
    EnsureMirror(sp);
  }
  // Manifests that are gone: their pods stop, then go with their mirrors.
  for (auto& [uid, known] : pods_) {
    if (!known.static_pod || known.in_manifests || known.removed) continue;
    const fs::path dir = MonitorDirectory(options_.data_dir, uid);
    if (known.child > 0 || LiveMonitorPid(dir)) {
      if (!known.stopping) {
        known.stopping = true;  // with the pod's own grace period, as the kubelet stops it
        (void)StopMonitor(dir, std::nullopt);
      }
      continue;
    }
    Finalize(uid, known);
  }
  Sweep();
}

// The static pod's mirror in the API, created as the kubelet's mirror client does; one left by
// an older manifest goes first.
void NodeAgent::EnsureMirror(const StaticPod& pod) {
  if (options_.api == nullptr) return;
  const std::string ns = Str(pod.object, {"metadata", "namespace"});
  const std::string name = Str(pod.object, {"metadata", "name"});
  const ObjectKey key{"pods", ns, name};
  if (auto got = store_.Get(key)) {
    auto stored = apiserver::ParseStoredObject(got->data);
    if (!stored || IsPod(*stored, pod.uid)) return;
    const std::string other =
        Str(*stored, {"metadata", "annotations", std::string(kConfigMirrorAnnotation)});
    if (other.empty()) {
      const std::string why = fmt::format("static pod {}/{} ({}): a pod of that name exists in the "
                                          "API and is not its mirror",
                                          ns, name, pod.file.string());
      if (reported_.insert(why).second) Log(why);
      return;
    }
    (void)store_.Delete(key, got->revision, [&](std::int64_t rv) {
      return apiserver::RenderStoredObject(*stored, "Pod", rv);
    });
  }
  std::string node_uid;
  if (auto node = store_.Get({"nodes", "", options_.node_name})) {
    if (auto tree = apiserver::ParseStoredObject(node->data)) {
      node_uid = Str(*tree, {"metadata", "uid"});
    }
  }
  http::HttpRequest create;
  create.method = "POST";
  create.path = "/api/v1/namespaces/" + ns + "/pods";
  create.headers["content-type"] = "application/json";
  create.body = codec::EncodeJson(MirrorPod(pod, node_uid), 0);
  create.user = "system:node:" + options_.node_name;
  // The kubelet's agent: the mirror pod is its write (managedFields manager "kubelet").
  create.headers["user-agent"] =
      fmt::format("kubelet/{} (linux/amd64) kubernetes/podlimits", apiserver::kServedGitVersion);
  auto r = options_.api->Handle(create);
  if (r && r->status != 201 && r->status != 409) {
    const std::string why =
        fmt::format("mirror pod {}/{} not created: {}", ns, name, r->body);
    if (reported_.insert(why).second) Log(why);
  }
}

}  // namespace podlimits::nodeagent
