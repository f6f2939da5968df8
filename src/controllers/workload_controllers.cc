#include "controllers/workload_controllers.h"

namespace podlimits::controllers {

WorkloadControllers::WorkloadControllers(storage::ObjectStore& store, apiserver::RestHandler& rest,
                                         ApiClient::Clock clock)
    : store_(store),
      deployment_api_(store, rest, "deployment-controller", clock),
      replica_set_api_(store, rest, "replicaset-controller", clock),
      cron_job_api_(store, rest, "cronjob-controller", clock),
      job_api_(store, rest, "job-controller", clock),
      gc_api_(store, rest, "generic-garbage-collector", clock),
      deployments_(deployment_api_),
      replica_sets_(replica_set_api_),
      cron_jobs_(cron_job_api_),
      jobs_(job_api_),
      garbage_(gc_api_) {}

void WorkloadControllers::SyncOnce() {
  deployments_.SyncAll();
  replica_sets_.SyncAll();
  cron_jobs_.SyncAll();
  jobs_.SyncAll();
  garbage_.SyncAll();
}

void WorkloadControllers::Start() {
  thread_ = std::thread([this] {
    std::int64_t seen = 0;
    while (!stopping_) {
      // The revision before the round: the round's own writes wake the next one.
      auto before = store_.Revision();
      SyncOnce();
      seen = store_.WaitForChange(before ? *before : seen, std::chrono::milliseconds(1000));
    }
  });
}

void WorkloadControllers::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
}

}  // namespace podlimits::controllers
