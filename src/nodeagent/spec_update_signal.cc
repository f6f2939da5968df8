#include "nodeagent/spec_update_signal.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "nodeagent/monitor_files.h"

namespace podlimits::nodeagent {

namespace {

sigset_t SpecUpdateSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, kSpecUpdateSignal);
  return set;
}

}  // namespace

SpecUpdateSignal::SpecUpdateSignal() {
  const sigset_t set = SpecUpdateSet();
  blocked_ = pthread_sigmask(SIG_BLOCK, &set, nullptr) == 0;
}

bool SpecUpdateSignal::Watch(std::function<void()> on_update) {
  if (!blocked_) return false;
  const sigset_t set = SpecUpdateSet();
  // A signal that came before this is pending, and the signalfd reads it.
  signal_fd_ = UniqueFd(signalfd(-1, &set, SFD_CLOEXEC));
  if (!signal_fd_.valid()) return false;
  thread_ = std::jthread([this, on_update = std::move(on_update)](std::stop_token token) {
    while (!token.stop_requested()) {
      signalfd_siginfo info;
      if (read(signal_fd_.get(), &info, sizeof info) != sizeof info) continue;
      // The wake-up the destructor queues is not an update.
      if (info.ssi_code == SI_QUEUE && info.ssi_pid == static_cast<uint32_t>(getpid())) continue;
      on_update();
    }
  });
  return true;
}

SpecUpdateSignal::~SpecUpdateSignal() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  sigqueue(getpid(), kSpecUpdateSignal, sigval{0});
  thread_.join();
}

}  // namespace podlimits::nodeagent
