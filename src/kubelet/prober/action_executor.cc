#include "kubelet/prober/action_executor.h"

#include <sys/eventfd.h>
#include <unistd.h>

namespace podlimits::kubelet {

ActionExecutor::ActionExecutor() : event_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

ActionExecutor::~ActionExecutor() {
  cancelled_ = true;
  std::list<Running> all;
  {
    std::lock_guard lock(mu_);
    all.swap(running_);
  }
  for (auto& r : all) r.thread.join();
}

std::uint64_t ActionExecutor::Submit(api::HandlerAction action, ActionTarget target,
                                     std::chrono::milliseconds timeout) {
  JoinFinished();
  std::lock_guard lock(mu_);
  const std::uint64_t ticket = next_ticket_++;
  target.cancelled = &cancelled_;
  running_.push_back(Running{ticket, {}, false});
  Running& slot = running_.back();
  slot.thread = std::thread([this, ticket, action = std::move(action), target, timeout, &slot] {
    ActionOutcome outcome = RunAction(action, target, timeout);
    std::lock_guard inner(mu_);
    done_.emplace_back(ticket, std::move(outcome));
    slot.finished = true;
    std::uint64_t one = 1;
    (void)!write(event_.get(), &one, sizeof one);
  });
  return ticket;
}

std::vector<std::pair<std::uint64_t, ActionOutcome>> ActionExecutor::TakeDone() {
  std::uint64_t count = 0;
  (void)!read(event_.get(), &count, sizeof count);
  JoinFinished();
  std::lock_guard lock(mu_);
  return std::exchange(done_, {});
}

void ActionExecutor::JoinFinished() {
  std::list<Running> finished;
  {
    std::lock_guard lock(mu_);
    for (auto it = running_.begin(); it != running_.end();) {
      if (it->finished) {
        auto next = std::next(it);
        finished.splice(finished.end(), running_, it);
        it = next;
      } else {
        ++it;
      }
    }
  }
  for (auto& r : finished) r.thread.join();
}

}  // namespace podlimits::kubelet
