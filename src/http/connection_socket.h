// The type of a listener connection's socket: a TCP socket whose executor is the connection's
// strand as a concrete type. With Asio's default (the type-erased any_io_executor) every
// asynchronous operation copied and re-wrapped the strand on the heap, some 18 allocations a
// request under the webhook's load (docs/benchmarks.md, issue 32).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>

namespace podlimits::http {

using ConnectionStrand = boost::asio::strand<boost::asio::io_context::executor_type>;
using ConnectionSocket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, ConnectionStrand>;
using ConnectionTimer =
    boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                      boost::asio::wait_traits<std::chrono::steady_clock>,
                                      ConnectionStrand>;

}  // namespace podlimits::http
