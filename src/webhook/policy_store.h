// The policy the webhook answers reviews with, replaced whole when the cluster's Namespaces or
// LimitRanges change (cluster_sync.h): each review takes the current one and keeps it to its
// end, so a review never sees half an update.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "webhook/admission_review.h"

namespace podlimits::webhook {

class PolicyStore {
 public:
  PolicyStore(std::shared_ptr<const ReviewPolicy> initial, bool ready)
      : current_(std::move(initial)), ready_(ready) {}

  std::shared_ptr<const ReviewPolicy> Current() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  void Publish(std::shared_ptr<const ReviewPolicy> policy) {
    std::lock_guard lock(mu_);
    current_ = std::move(policy);
  }
  // Ready once the webhook knows the cluster (the first lists); /readyz says so.
  bool Ready() const {
    std::lock_guard lock(mu_);
    return ready_;
  }
  void SetReady(bool ready) {
    std::lock_guard lock(mu_);
    ready_ = ready;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ReviewPolicy> current_;
  bool ready_ = true;
};

}  // namespace podlimits::webhook
