// Runs a streaming session (exec, attach, port-forward) on its connection's strand and waits
// for it to end: what `io_context::run()` did when each connection had an io_context and a
// thread of its own. The session's handlers run on the server's io threads, one at a time; the
// thread that called Run (a worker of the listener) only waits.
//
// A session is over when no operation it started is outstanding, so every completion handler
// it passes to an asynchronous operation goes through Track: counted when the operation starts,
// uncounted after the handler ran. Once the count drops to zero nothing can start another
// operation (only handlers and the start do), and Run returns.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <cstddef>
#include <functional>
#include <future>
#include <utility>

namespace podlimits::http {

class StrandSession {
 public:
  explicit StrandSession(boost::asio::any_io_executor strand) : strand_(std::move(strand)) {}
  StrandSession(const StrandSession&) = delete;
  StrandSession& operator=(const StrandSession&) = delete;

  const boost::asio::any_io_executor& executor() const { return strand_; }

  // A completion handler counted as outstanding until it has run. Call on the strand (or from
  // the start function).
  template <typename Handler>
  auto Track(Handler handler) {
    ++outstanding_;
    return [this, handler = std::move(handler)](auto&&... args) mutable {
      {
        // What the handler holds goes before the session may: once the count is zero, Run
        // returns and the session's objects are destroyed.
        Handler run = std::move(handler);
        run(std::forward<decltype(args)>(args)...);
      }
      if (--outstanding_ == 0) over_.set_value();
    };
  }

  // Runs `start` on the strand, then waits until it and every tracked handler have run.
  void Run(std::function<void()> start) {
    auto over = over_.get_future();
    boost::asio::post(strand_, Track([start = std::move(start)] { start(); }));
    over.wait();
  }

 private:
  boost::asio::any_io_executor strand_;
  std::size_t outstanding_ = 0;  // touched on the strand only
  std::promise<void> over_;
};

}  // namespace podlimits::http
