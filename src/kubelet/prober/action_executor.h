// Runs probe and hook actions (handler_runner.h) off the pod worker's thread, each in a thread of
// its own, so a slow probe never stalls the worker's loop (its output pumps, exits, stops). The
// worker polls fd() and takes the finished outcomes by ticket.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "kubelet/prober/handler_runner.h"

namespace podlimits::kubelet {

class ActionExecutor {
 public:
  ActionExecutor();
  ~ActionExecutor();  // cancels what still runs and waits for it
  ActionExecutor(const ActionExecutor&) = delete;
  ActionExecutor& operator=(const ActionExecutor&) = delete;

  // Readable when an outcome is ready.
  int fd() const { return event_.get(); }

  std::uint64_t Submit(api::HandlerAction action, ActionTarget target,
                       std::chrono::milliseconds timeout);
  std::vector<std::pair<std::uint64_t, ActionOutcome>> TakeDone();

  // Sleeps end early; the rest end by their own timeouts (or when their container dies).
  void CancelAll() { cancelled_ = true; }

 private:
  struct Running {
    std::uint64_t ticket;
    std::thread thread;
    bool finished = false;
  };
  void JoinFinished();

  UniqueFd event_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::uint64_t next_ticket_ = 1;
  std::list<Running> running_;
  std::vector<std::pair<std::uint64_t, ActionOutcome>> done_;
};

}  // namespace podlimits::kubelet
