#include "http/worker_pool.h"

namespace podlimits::http {

void WorkerPool::Run(std::function<void()> task) {
  std::unique_lock lock(mu_);
  if (joining_) return;
  tasks_.push_back(std::move(task));
  // An idle thread takes it; idle counts threads not yet woken for an earlier task too.
  if (idle_ >= tasks_.size()) {
    wake_.notify_one();
    return;
  }
  ++threads_;
  lock.unlock();
  std::thread([this] { Work(); }).detach();
}

void WorkerPool::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    if (!tasks_.empty()) {
      auto task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // whatever it holds goes before the thread is counted idle
      lock.lock();
      continue;
    }
    if (joining_) break;
    ++idle_;
    const bool woken =
        wake_.wait_for(lock, options_.idle_exit, [this] { return !tasks_.empty() || joining_; });
    --idle_;
    if (!woken && threads_ > options_.keep) break;
  }
  if (--threads_ == 0) ended_.notify_all();
}

void WorkerPool::Join() {
  std::unique_lock lock(mu_);
  joining_ = true;
  wake_.notify_all();
  ended_.wait(lock, [this] { return threads_ == 0; });
}

std::size_t WorkerPool::threads() const {
  std::lock_guard lock(mu_);
  return threads_;
}

}  // namespace podlimits::http
