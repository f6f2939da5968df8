// The namespace controller of kube-controller-manager, for `podlimits serve`: a namespace being
// deleted (deletionTimestamp set, phase Terminating) has its content deleted through the API as
// a client would (pods gracefully, the rest at once), and once nothing is left its `kubernetes`
// finalizer is removed and the namespace object goes. `kubectl delete namespace` returns then.
#pragma once

#include <atomic>
#include <thread>

#include "storage/object_store.h"
#include "apiserver/rest_handler.h"

namespace podlimits::apiserver {

class NamespaceController {
 public:
  NamespaceController(storage::ObjectStore& store, RestHandler& rest) : store_(store), rest_(rest) {}
  ~NamespaceController() { Stop(); }
  NamespaceController(const NamespaceController&) = delete;
  NamespaceController& operator=(const NamespaceController&) = delete;

  void Start();
  void Stop();
  // One pass over the namespaces being deleted (what the thread does on each change).
  void SyncOnce();

 private:
  void Finalize(const storage::StoredObject& ns);

  storage::ObjectStore& store_;
  RestHandler& rest_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace podlimits::apiserver
