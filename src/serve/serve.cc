#include "serve/serve.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <memory>
#include <system_error>

#include "apiserver/namespace_controller.h"
#include "controllers/workload_controllers.h"
#include "apiserver/rest_handler.h"
#include "apiserver/store_maintenance.h"
#include "base/fs.h"
#include "base/server_process.h"
#include "base/unique_fd.h"
#include "nodeagent/cgroup_root_claim.h"
#include "nodeagent/node_agent.h"
#include "nodeagent/usage_sampler.h"
#include "serve/agent_options.h"
#include "serve/api_listener.h"
#include "serve/data_dir.h"
#include "serve/node_config_snapshot.h"
#include "serve/node_pki.h"
#include "serve/pki.h"

namespace podlimits::serve {
namespace {

namespace fs = std::filesystem;
using Failed = std::unexpected<Error>;

Failed NodeFailure(Error error) { return Failed(std::move(error).Because(kubelet::kNodeFailure)); }

Failed ConfigurationFailure(Error error) {
  return Failed(std::move(error).Because(kubelet::kInvalidNodeConfiguration));
}

// The bearer token of `--token-file`: the file's first 4 KiB, line ends trimmed.
Result<std::string> ReadBearerToken(const std::string& file) {
  if (file.empty()) return std::string();
  auto token = ReadSmallFile(file, 4096);
  if (!token) return token;
  while (!token->empty() && (token->back() == '\n' || token->back() == '\r')) token->pop_back();
  if (token->empty()) return Failure("--token-file " + file + " is empty");
  return token;
}

// What steps 1-4 of serve.h set up: the node is its own from here on.
struct PreparedNode {
  std::unique_ptr<kubelet::Kubelet> node;
  std::string token;
  fs::path data_dir;  // absolute
  UniqueFd lock;
  storage::NodeStore store;
  NodePki pki;
};

Result<PreparedNode> Prepare(const ServeOptions& options) {
  PreparedNode prepared;
  prepared.node = std::make_unique<kubelet::Kubelet>(kubelet::KubeletOptions{
      options.node_config, ImageRoot(options.data_dir), options.path_env, true});
  if (auto probed = prepared.node->Probe(); !probed) return Failed(probed.error());
  auto token = ReadBearerToken(options.token_file);
  if (!token) return ConfigurationFailure(token.error());
  prepared.token = std::move(*token);
  auto lock = LockDataDir(options.data_dir);
  if (!lock) return NodeFailure(lock.error());
  prepared.lock = std::move(*lock);
  prepared.data_dir = fs::absolute(options.data_dir);
  if (auto claimed = nodeagent::ClaimCgroupRoot(nodeagent::kCgroupRootClaimsDir, prepared.data_dir,
                                                options.node_config.cgroup_root);
      !claimed) {
    return NodeFailure(claimed.error());
  }
  auto store = storage::OpenNodeStore(
      {options.data_dir, options.store_integrity_check, options.reinitialize_store});
  if (!store) return NodeFailure(store.error());
  for (const auto& line : store->notices) options.notice(line);
  prepared.store = std::move(*store);
  auto pki = EnsureServePki(options.data_dir, options.listen_host, options.listen_port,
                            options.notice);
  if (!pki) return NodeFailure(pki.error());
  prepared.pki = std::move(*pki);
  if (auto written = WriteNodeConfigSnapshot(prepared.data_dir, options.node_config_text);
      !written) {
    return NodeFailure(written.error());
  }
  return prepared;
}


Result<fs::path> OwnBinary() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Failure("readlink /proc/self/exe: " + ec.message());
  return self;
}

}  // namespace

Result<Stopped> Run(const ServeOptions& options) {
  auto prepared = Prepare(options);
  if (!prepared) return Failed(prepared.error());
  storage::ObjectStore& store = *prepared->store.store;
  const sigset_t stop_signals = BlockStopSignals();
  // The API's feature gates are the node config's, as for `run` (one machine, one set of gates).
  admission::ChainOptions chain;
  chain.gates = options.node_config.feature_gates;
  apiserver::RestHandler rest(store, chain);
  if (auto ns = rest.EnsureSystemNamespaces(); !ns) return NodeFailure(ns.error());
  auto self = OwnBinary();
  if (!self) return NodeFailure(self.error());
  nodeagent::UsageSampler sampler(store, UsageSamplerOptionsFor(*prepared->node, options.metric_resolution),
                                  nodeagent::UsageSampler::DetectHierarchies(options.node_config));
  auto agent_options = NodeAgentOptionsFor({prepared->node.get(), prepared->data_dir, *self,
                                            options.eviction_monitoring_period, &rest},
                                           options.notice);
  agent_options.usage = &sampler;
  nodeagent::NodeAgent agent(store, std::move(agent_options));
  if (auto started = agent.Start(); !started) return NodeFailure(started.error());
  rest.set_pod_logs(&agent);
  rest.set_pod_executor(&agent);
  rest.set_pod_port_dialer(&agent);
  sampler.Start();
  rest.set_resource_metrics(&sampler);
  apiserver::NamespaceController namespaces(store, rest);
  namespaces.Start();
  controllers::WorkloadControllers workloads(store, rest);
  workloads.Start();
  apiserver::StoreMaintenance maintenance(store, {});
  maintenance.Start();
  auto listener = ApiListener::Start({options.listen_host, options.listen_port, prepared->token},
                                     prepared->pki, rest, agent);
  if (!listener) return NodeFailure(listener.error());
  // What this node cannot enforce, said once it serves: the scheduler keeps pods that need it
  // Pending (nodeagent/pod_fit.h), and `kubectl describe node` shows the same.
  for (const auto* f : prepared->node->features().All()) {
    if (f->Declared()) continue;
    options.notice(fmt::format("this node does not declare {}: {}; pods that need it stay Pending",
                               f->name, f->reason));
  }
  options.notice("listening on https://" + UrlHost(options.listen_host) + ":" +
                 std::to_string(listener->port()) + " (KUBECONFIG=" +
                 prepared->pki.kubeconfig.string() + ")");

  int signal = 0;
  sigwait(&stop_signals, &signal);
  listener->Stop();
  namespaces.Stop();
  workloads.Stop();
  maintenance.Stop();
  if (options.drain_on_exit) agent.StopAllPods(std::chrono::seconds(60));
  agent.Stop();
  rest.set_resource_metrics(nullptr);
  sampler.Stop();
  nodeagent::ReleaseCgroupRoot(nodeagent::kCgroupRootClaimsDir, prepared->data_dir,
                               options.node_config.cgroup_root);
  return Stopped{signal};
}

}  // namespace podlimits::serve
