// The threads that run the listener's request handlers. Handlers block (a SQLite commit, a
// watch that streams for minutes, an exec session), so they cannot run on the threads that
// drive the sockets; a thread per *request being handled* is what they need, not a thread per
// connection. The pool keeps idle threads for reuse, starts another when every thread is busy,
// and lets a thread that stayed idle for `idle_exit` go (down to `keep`), so an idle server
// holds a handful of threads however many connections it has open.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace podlimits::http {

class WorkerPool {
 public:
  struct Options {
    std::size_t keep = 2;
    std::chrono::milliseconds idle_exit{30'000};
  };
  WorkerPool() : WorkerPool(Options{}) {}
  explicit WorkerPool(Options options) : options_(options) {}
  ~WorkerPool() { Join(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `task` on a pool thread (a new one if none is idle). Ignored after Join began.
  void Run(std::function<void()> task);
  // Waits for every task to finish and every thread to end.
  void Join();

  std::size_t threads() const;

 private:
  void Work();

  const Options options_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable ended_;
  std::deque<std::function<void()>> tasks_;
  std::size_t threads_ = 0;
  std::size_t idle_ = 0;
  bool joining_ = false;
};

}  // namespace podlimits::http
