// The monitor's ear for kSpecUpdateSignal (monitor_files.h): blocked in the constructing thread
// (so in every thread started after it) the moment this is made, and read from a signalfd on a
// thread of its own once Watch is called; each signal calls `on_update` there. Made first thing
// in the monitor, before it takes its lock: the agent signals only a monitor it found by the
// lock, so the signal's default action (terminate) can never hit one.
#pragma once

#include <functional>
#include <thread>

#include "base/unique_fd.h"

namespace podlimits::nodeagent {

class SpecUpdateSignal {
 public:
  SpecUpdateSignal();
  ~SpecUpdateSignal();
  SpecUpdateSignal(const SpecUpdateSignal&) = delete;
  SpecUpdateSignal& operator=(const SpecUpdateSignal&) = delete;

  // False when the signal could not be blocked or watched.
  bool Watch(std::function<void()> on_update);

 private:
  bool blocked_ = false;
  UniqueFd signal_fd_;
  std::jthread thread_;
};

}  // namespace podlimits::nodeagent
