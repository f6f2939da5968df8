#include "streaming/exec_session.h"

#include <sys/ioctl.h>
#include <termios.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <optional>

#include "codec/json_codec.h"
#include "cri/exec_wire.h"
#include "http/strand_session.h"

namespace podlimits::streaming {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using Descriptor = asio::posix::stream_descriptor;
using error_code = boost::system::error_code;

// The channels of the remotecommand protocol.
constexpr unsigned char kStdin = 0, kStdout = 1, kStderr = 2, kError = 3, kResize = 4, kClose = 255;
// Past this much stdin the process has not taken yet, the client is not read (backpressure).
constexpr std::size_t kMaxPendingStdin = 4 << 20;
// After the command ended, what it wrote is still sent for this long (a process it left
// behind may hold its stdout open for ever).
constexpr auto kDrainAfterEnd = std::chrono::seconds(2);
// With a terminal, kubectl sends the terminal's size once it has created all its streams;
// output sent before that is dropped by client-go ("Unknown stream id 1, discarding message"),
// so a terminal's output waits for that first size, or this long for clients that send none.
constexpr auto kFirstSizeWait = std::chrono::seconds(1);

class ExecSession {
 public:
  ExecSession(http::WebSocketConnection& connection, ExecStreams streams,
              ExecStatusWriter final_status, bool v5)
      : session_(connection.executor),
        ws_(connection.ws),
        final_status_(std::move(final_status)),
        v5_(v5),
        control_(session_.executor()),
        drain_timer_(session_.executor()),
        size_timer_(session_.executor()) {
    producer_ = std::move(streams.producer);
    terminal_ = std::move(streams.terminal);
    final_message_ = std::move(streams.final_message);
    if (streams.control) control_.assign(streams.control.Release());
    if (streams.stdin_fd) stdin_.emplace(session_.executor(), streams.stdin_fd.Release());
    if (streams.stdout_fd)
      outputs_.push_back({Descriptor(session_.executor(), streams.stdout_fd.Release()), kStdout});
    if (streams.stderr_fd)
      outputs_.push_back({Descriptor(session_.executor(), streams.stderr_fd.Release()), kStderr});
  }

  void Run() {
    session_.Run([this] {
      ws_.binary(true);
      ReadClient();
      if (terminal_) {
        size_timer_.expires_after(kFirstSizeWait);
        size_timer_.async_wait(session_.Track([this](error_code ec) {
          if (!ec) StartOutput();
        }));
      } else {
        StartOutput();
      }
      if (final_message_) {
        Ended(*final_message_);
      } else {
        WatchControl();
      }
    });
  }

 private:
  void StartOutput() {
    if (output_started_ || over_) return;
    output_started_ = true;
    size_timer_.cancel();
    for (Output& o : outputs_) Pump(o);
  }

  struct Output {
    Descriptor fd;
    unsigned char channel;
    std::array<char, 32768> buffer{};
    bool done = false;
  };
  struct Frame {
    std::string bytes;  // empty with `close`
    bool close = false;
    std::function<void()> after;
  };

  // The client's messages: stdin, resizes, v5's close of stdin.
  void ReadClient() {
    reading_ = true;
    ws_.async_read(read_buffer_, session_.Track([this](error_code ec, std::size_t) {
      reading_ = false;
      if (ec) return Abort();
      const auto data = read_buffer_.cdata();
      std::string message(static_cast<const char*>(data.data()), data.size());
      read_buffer_.consume(read_buffer_.size());
      OnClientMessage(message);
      if (!over_ && pending_stdin_ < kMaxPendingStdin) ReadClient();
    }));
  }

  void OnClientMessage(const std::string& message) {
    if (message.empty()) return;
    const auto channel = static_cast<unsigned char>(message[0]);
    if (channel == kStdin && stdin_) {
      if (message.size() == 1) return;
      pending_stdin_ += message.size() - 1;
      stdin_queue_.push_back(message.substr(1));
      if (stdin_queue_.size() == 1) WriteStdin();
    } else if (channel == kResize) {
      Resize(message.substr(1));
      StartOutput();
    } else if (channel == kClose && v5_ && message.size() >= 2 &&
               static_cast<unsigned char>(message[1]) == kStdin) {
      stdin_closing_ = true;
      if (stdin_queue_.empty()) CloseStdin();
    }
  }

  void WriteStdin() {
    asio::async_write(*stdin_, asio::buffer(stdin_queue_.front()),
                      session_.Track([this](error_code ec, std::size_t n) {
                        if (ec || !stdin_) {  // the process closed its stdin: drop the rest
                          stdin_queue_.clear();
                          pending_stdin_ = 0;
                          CloseStdin();
                        } else {
                          pending_stdin_ -= n;
                          stdin_queue_.pop_front();
                          if (!stdin_queue_.empty()) {
                            WriteStdin();
                          } else if (stdin_closing_) {
                            CloseStdin();
                          }
                        }
                        if (!over_ && !reading_ && pending_stdin_ < kMaxPendingStdin) ReadClient();
                      }));
  }

  void CloseStdin() {
    // With a terminal, stdin is the master: the process keeps its terminal until it ends.
    if (stdin_ && !terminal_) stdin_.reset();
  }

  // {"Width": 80, "Height": 24}, as kubectl sends it.
  void Resize(const std::string& json) {
    if (!terminal_) return;
    auto nodes = codec::ParseJsonStream(json);
    if (!nodes || nodes->size() != 1) return;
    const auto width = codec::IntOf((*nodes)[0].Find("Width"));
    const auto height = codec::IntOf((*nodes)[0].Find("Height"));
    if (!width || !height || *width < 0 || *height < 0 || *width > 65535 || *height > 65535) return;
    winsize size{};
    size.ws_col = static_cast<unsigned short>(*width);
    size.ws_row = static_cast<unsigned short>(*height);
    ioctl(terminal_.get(), TIOCSWINSZ, &size);
  }

  // The process's output, a message per read, the next read once that message is sent.
  void Pump(Output& o) {
    o.fd.async_read_some(
        asio::buffer(o.buffer), session_.Track([this, &o](error_code ec, std::size_t n) {
          if (ec || n == 0) {  // end of file; EIO once a terminal's last writer closed it
            o.done = true;
            MaybeFinish();
            return;
          }
          std::string frame(1, static_cast<char>(o.channel));
          frame.append(o.buffer.data(), n);
          Send({std::move(frame), false, [this, &o] {
                  if (!over_) Pump(o);
                }});
        }));
  }

  void Send(Frame frame) {
    frames_.push_back(std::move(frame));
    if (frames_.size() == 1) WriteNext();
  }

  void WriteNext() {
    Frame& f = frames_.front();
    auto done = [this](error_code ec, std::size_t = 0) {
      Frame sent = std::move(frames_.front());
      frames_.pop_front();
      if (ec || sent.close) return Abort();
      if (sent.after) sent.after();
      if (!frames_.empty()) WriteNext();
    };
    if (f.close) {
      ws_.async_close(websocket::close_code::normal,
                      session_.Track([done](error_code ec) { done(ec); }));
    } else {
      ws_.async_write(asio::buffer(f.bytes), session_.Track(done));
    }
  }

  // The node's last message: how the command ended.
  void WatchControl() {
    control_.async_wait(Descriptor::wait_read, session_.Track([this](error_code ec) {
      if (ec) return;  // cancelled: the session is over
      auto message = cri::ReceiveExecMessage(control_.native_handle());
      std::string text;
      if (!message || message->json.empty()) {
        text = R"({"error":"the pod's monitor went away before the command ended"})";
      } else {
        text = std::move(message->json);
      }
      Ended(text);
    }));
  }

  void Ended(const std::string& node_message) {
    status_ = final_status_(node_message);
    drain_timer_.expires_after(kDrainAfterEnd);
    drain_timer_.async_wait(session_.Track([this](error_code ec) {
      if (!ec) SendStatus();
    }));
    MaybeFinish();
  }

  void MaybeFinish() {
    if (!status_ || !output_started_) return;
    for (const Output& o : outputs_) {
      if (!o.done) return;
    }
    SendStatus();
  }

  void SendStatus() {
    if (status_sent_ || over_) return;
    status_sent_ = true;
    drain_timer_.cancel();
    std::string frame(1, static_cast<char>(kError));
    frame += *status_;
    Send({std::move(frame), false, nullptr});
    Send({"", true, nullptr});
  }

  // The end, either way: every descriptor closed (the node kills a command still running when
  // its connection closes), every pending operation cancelled, so that the session's Run
  // returns once their handlers have run.
  void Abort() {
    if (over_) return;
    over_ = true;
    error_code ignored;
    drain_timer_.cancel();
    size_timer_.cancel();
    control_.close(ignored);
    stdin_.reset();
    for (Output& o : outputs_) o.fd.close(ignored);
    terminal_.Reset();
    // Shut down, not closed: the server still knows the connection by its descriptor's number.
    beast::get_lowest_layer(ws_).shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  }

  // First: joined after every descriptor below has closed, which is what stops it.
  std::jthread producer_;
  http::StrandSession session_;
  http::WebSocketStream& ws_;
  ExecStatusWriter final_status_;
  bool v5_;
  Descriptor control_;
  std::optional<Descriptor> stdin_;
  std::deque<Output> outputs_;  // a deque: a pump's handler holds a reference to its Output
  UniqueFd terminal_;
  std::optional<std::string> final_message_;
  asio::steady_timer drain_timer_;
  asio::steady_timer size_timer_;
  bool output_started_ = false;
  beast::flat_buffer read_buffer_;
  std::deque<std::string> stdin_queue_;
  std::size_t pending_stdin_ = 0;
  bool stdin_closing_ = false;
  bool reading_ = false;
  std::deque<Frame> frames_;
  std::optional<std::string> status_;
  bool status_sent_ = false;
  bool over_ = false;
};

}  // namespace

void RunExecSession(http::WebSocketConnection& connection, ExecStreams streams,
                    ExecStatusWriter final_status, bool v5) {
  ExecSession session(connection, std::move(streams), std::move(final_status), v5);
  session.Run();
}

}  // namespace podlimits::streaming
