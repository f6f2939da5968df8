// The cluster's Namespaces and LimitRanges, kept current for the webhook: each kind listed and
// then watched on a thread of its own with kube_client.h, as a client-go reflector does (list,
// watch from the list's resourceVersion with bookmarks, watch again when the server ends the
// stream, list again on 410 Gone or a failure, with a backoff of 1 s doubling to 30 s). Every
// change publishes a new policy (policy_store.h); the store is ready once both kinds are listed.
//
// A LimitRange is read as the webhook's --config reads one (cluster_limit_range.h translates
// podlimits.dev/Pod items) and checked as admission checks it; one that fails leaves its
// namespace's pods that use a podlimits field refused with the reason, rather than admitted
// without the bounds it was meant to set.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"

#include "codec/node.h"
#include "webhook/admission_review.h"
#include "webhook/kube_client.h"
#include "webhook/policy_store.h"

namespace podlimits::webhook {

class ClusterSync {
 public:
  using Logger = std::function<void(const std::string&)>;

  // `base` is the --config policy (runtime class, Pod Security); its namespaces and limit
  // ranges are replaced by the cluster's.
  ClusterSync(ClusterAccess access, ReviewPolicy base, PolicyStore& store, Logger log);
  ~ClusterSync();

  void Start();
  // Ends both watches and joins their threads.
  void Stop();

  // What a LimitRange object from the cluster becomes: the translated object, or why it cannot
  // be applied (the message denied pods carry).
  static Result<codec::Node> CheckLimitRange(codec::Node object,
                                                               const ReviewPolicy& base);

 private:
  enum class Kind { kNamespaces, kLimitRanges };
  void Run(Kind kind);
  bool ListAndWatch(Kind kind, KubeClient& client);
  void Apply(Kind kind, const std::string& type, codec::Node object);
  void Publish();

  ClusterAccess access_;
  ReviewPolicy base_;
  PolicyStore& store_;
  Logger log_;

  std::mutex mu_;
  std::map<std::string, codec::Node> namespaces_;                    // by name
  std::map<std::string, std::map<std::string, codec::Node>> ranges_;  // ns -> name -> object
  std::map<std::string, std::map<std::string, std::string>> broken_;  // ns -> name -> why
  bool listed_[2] = {false, false};

  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<KubeClient>> clients_;
  std::vector<std::thread> threads_;
};

}  // namespace podlimits::webhook
