#include "kubelet/podworker/stop_signals.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace podlimits::kubelet {

StopSignals::StopSignals(PodStop& stop, std::vector<int> signals, GraceOf grace_of)
    : wake_signal_(signals.front()) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : signals) sigaddset(&set, sig);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  signal_fd_ = UniqueFd(signalfd(-1, &set, SFD_CLOEXEC));
  if (!signal_fd_.valid()) return;
  thread_ = std::jthread([this, &stop, grace_of = std::move(grace_of)](std::stop_token token) {
    while (!token.stop_requested()) {
      signalfd_siginfo info;
      if (read(signal_fd_.get(), &info, sizeof info) != sizeof info) continue;
      // The wake-up the destructor queues is not a stop request.
      if (info.ssi_code == SI_QUEUE && info.ssi_pid == static_cast<uint32_t>(getpid())) continue;
      std::optional<std::int64_t> grace;
      if (grace_of) grace = grace_of(static_cast<int>(info.ssi_signo));
      if (grace) {
        stop.Request(*grace);
      } else {
        stop.Request();
      }
    }
  });
}

StopSignals::~StopSignals() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  // Wakes the reader: a signal to this process is queued for the signalfd.
  sigqueue(getpid(), wake_signal_, sigval{0});
  thread_.join();
}

}  // namespace podlimits::kubelet
