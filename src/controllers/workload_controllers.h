// The workload controllers of `podlimits serve` in one thread (kube-controller-manager's, on one
// node): each change of the store (or every second, for back-offs, deadlines and schedules)
// runs the Deployment, ReplicaSet, CronJob and Job controllers and the garbage collector over
// every object, in that order, so that a Deployment's new ReplicaSet, or a CronJob's new Job,
// gets its pods in the same round.
#pragma once

#include <atomic>
#include <thread>

#include "apiserver/rest_handler.h"
#include "controllers/api_client.h"
#include "controllers/cron_job_controller.h"
#include "controllers/deployment_controller.h"
#include "controllers/garbage_collector.h"
#include "controllers/job_controller.h"
#include "controllers/replica_set_controller.h"
#include "storage/object_store.h"

namespace podlimits::controllers {

class WorkloadControllers {
 public:
  // `clock`: the controllers' time (status times, back-offs, deadlines); the system's when empty.
  WorkloadControllers(storage::ObjectStore& store, apiserver::RestHandler& rest,
                      ApiClient::Clock clock = {});
  ~WorkloadControllers() { Stop(); }
  WorkloadControllers(const WorkloadControllers&) = delete;
  WorkloadControllers& operator=(const WorkloadControllers&) = delete;

  void Start();
  void Stop();
  // One round of every controller (what the thread does on each change).
  void SyncOnce();

 private:
  storage::ObjectStore& store_;
  ApiClient deployment_api_, replica_set_api_, cron_job_api_, job_api_, gc_api_;
  DeploymentController deployments_;
  ReplicaSetController replica_sets_;
  CronJobController cron_jobs_;
  JobController jobs_;
  GarbageCollector garbage_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace podlimits::controllers
