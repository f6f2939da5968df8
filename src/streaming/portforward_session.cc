#include "streaming/portforward_session.h"

#include <sys/socket.h>

#include <array>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <charconv>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "streaming/spdy_frames.h"
#include "http/strand_session.h"

namespace podlimits::streaming {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using Descriptor = asio::posix::stream_descriptor;
using error_code = boost::system::error_code;
using spdy::Frame;
using spdy::FrameType;
using spdy::FrameWriter;

// Past this much of the client's data the pods have not taken yet, the client is not read.
constexpr std::size_t kMaxPendingToPods = 4 << 20;
// Forwarded connections open at once on one session (each is a socket in the pod).
constexpr std::size_t kMaxForwards = 1024;
// The pod's bytes go out in data frames of at most this much (spdystream reads any size).
constexpr std::size_t kReadChunk = 32 << 10;

// One of kubectl's forwarded connections: a request id with its two streams.
struct Forward {
  std::string request_id;
  int port = 0;
  std::uint32_t error_stream = 0;
  std::uint32_t data_stream = 0;
  std::optional<Descriptor> socket;
  std::array<char, kReadChunk> buffer{};
  std::deque<std::string> to_pod;  // the client's bytes not written yet
  bool writing = false;
  bool client_fin = false;  // the client sent FIN on the data stream: no more bytes for the pod
  bool ended = false;       // both streams ended (FIN) or reset: nothing more goes either way
};

// The stream headers' checks (the kubelet's httpStreamReceived): the port, then the type.
std::optional<int> PortOf(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > 65535) {
    return std::nullopt;
  }
  return static_cast<int>(value);
}

class PortForwardSession {
 public:
  PortForwardSession(http::WebSocketConnection& connection, PortDial dial)
      : session_(connection.executor), ws_(connection.ws), dial_(std::move(dial)) {}

  void Run() {
    session_.Run([this] {
      ws_.binary(true);
      ReadClient();
    });
  }

 private:
  using ForwardPtr = std::shared_ptr<Forward>;

  void ReadClient() {
    reading_ = true;
    ws_.async_read(read_buffer_, session_.Track([this](error_code ec, std::size_t) {
      reading_ = false;
      if (ec) return Abort();
      const auto data = read_buffer_.cdata();
      frames_in_.Feed(std::string_view(static_cast<const char*>(data.data()), data.size()));
      read_buffer_.consume(read_buffer_.size());
      while (!over_) {
        auto next = frames_in_.Next();
        if (!next) {  // not SPDY/3: the header compression is out of step, nothing can go on
          Send(FrameWriter::GoAway(last_stream_, spdy::kProtocolError));
          return Close();
        }
        if (!*next) break;
        OnFrame(**next);
      }
      MaybeReadClient();
    }));
  }

  void MaybeReadClient() {
    if (!over_ && !reading_ && pending_to_pods_ < kMaxPendingToPods) ReadClient();
  }

  void OnFrame(Frame& f) {
    switch (f.type) {
      case FrameType::kSynStream:
        return OnSynStream(f);
      case FrameType::kData:
        return OnData(f);
      case FrameType::kRstStream:
        if (auto it = by_stream_.find(f.stream_id); it != by_stream_.end()) End(it->second, false);
        return;
      case FrameType::kPing:  // the client's (odd ids): echoed, as spdystream answers them
        if (f.ping_id % 2 == 1) Send(FrameWriter::Ping(f.ping_id));
        return;
      case FrameType::kGoAway:
        return Close();
      default:  // SYN_REPLY (the node opens no streams), HEADERS, SETTINGS, WINDOW_UPDATE
        return;
    }
  }

  void OnSynStream(const Frame& f) {
    last_stream_ = std::max(last_stream_, f.stream_id);
    const std::string_view type = spdy::HeaderValue(f.headers, "streamtype");
    const std::string request_id(spdy::HeaderValue(f.headers, "requestid"));
    const auto port = PortOf(spdy::HeaderValue(f.headers, "port"));
    if (by_stream_.contains(f.stream_id) || !port || (type != "error" && type != "data") ||
        request_id.empty()) {
      return Send(FrameWriter::RstStream(f.stream_id, spdy::kRefusedStream));
    }
    ForwardPtr& fw = by_request_[request_id];
    if (!fw) {
      if (by_request_.size() > kMaxForwards) {
        by_request_.erase(request_id);
        return Send(FrameWriter::RstStream(f.stream_id, spdy::kRefusedStream));
      }
      fw = std::make_shared<Forward>();
      fw->request_id = request_id;
    }
    std::uint32_t& slot = type == "error" ? fw->error_stream : fw->data_stream;
    if (slot != 0) return Send(FrameWriter::RstStream(f.stream_id, spdy::kRefusedStream));
    slot = f.stream_id;
    if (type == "data") fw->port = *port;
    by_stream_[f.stream_id] = fw;
    Send(frames_out_.SynReply(f.stream_id, {}, false));
    if (fw->error_stream != 0 && fw->data_stream != 0) Connect(fw);
  }

  // Both streams are there: the port is dialled (on the node, which answers at once for a
  // port on the pod's loopback).
  void Connect(const ForwardPtr& fw) {
    auto socket = dial_(fw->port);
    if (!socket) {
      Send(FrameWriter::Data(fw->error_stream, socket.error().Message(), false));
      return End(fw, true);
    }
    fw->socket.emplace(session_.executor(), socket->Release());
    PumpFromPod(fw);
  }

  void PumpFromPod(const ForwardPtr& fw) {
    fw->socket->async_read_some(
        asio::buffer(fw->buffer), session_.Track([this, fw](error_code ec, std::size_t n) {
          if (over_ || fw->ended) return;
          if (ec || n == 0) return End(fw, true);  // the pod closed its side (or reset it)
          Send(FrameWriter::Data(fw->data_stream, std::string_view(fw->buffer.data(), n), false),
               [this, fw] {
                 if (!over_ && !fw->ended) PumpFromPod(fw);
               });
        }));
  }

  void OnData(Frame& f) {
    auto it = by_stream_.find(f.stream_id);
    if (it == by_stream_.end()) return;  // a stream that has ended: its late bytes are dropped
    ForwardPtr fw = it->second;
    if (f.stream_id != fw->data_stream || fw->ended || !fw->socket) return;
    if (!f.data.empty()) {
      pending_to_pods_ += f.data.size();
      fw->to_pod.push_back(std::move(f.data));
    }
    if (f.fin()) fw->client_fin = true;
    WriteToPod(fw);
  }

  void WriteToPod(const ForwardPtr& fw) {
    if (fw->writing || fw->ended) return;
    if (fw->to_pod.empty()) {
      // Everything the client sent is written: its FIN becomes the socket's half-close.
      if (fw->client_fin) ::shutdown(fw->socket->native_handle(), SHUT_WR);
      return;
    }
    fw->writing = true;
    asio::async_write(*fw->socket, asio::buffer(fw->to_pod.front()),
                      session_.Track([this, fw](error_code ec, std::size_t) {
                        fw->writing = false;
                        if (over_ || fw->ended) return;
                        pending_to_pods_ -= fw->to_pod.front().size();
                        fw->to_pod.pop_front();
                        if (ec) return End(fw, true);  // the pod is gone: nowhere to write
                        WriteToPod(fw);
                        MaybeReadClient();
                      }));
  }

  // The forwarded connection is over: its socket closes, and unless the client reset a stream
  // (then it is done with both) both streams end, which ends kubectl's copy.
  void End(const ForwardPtr& fw, bool send_fin) {
    if (fw->ended) return;
    fw->ended = true;
    for (const std::string& pending : fw->to_pod) pending_to_pods_ -= pending.size();
    fw->to_pod.clear();
    if (fw->socket) {
      error_code ignored;
      fw->socket->close(ignored);
    }
    if (send_fin) {
      Send(FrameWriter::Data(fw->data_stream, "", true));
      Send(FrameWriter::Data(fw->error_stream, "", true));
    }
    by_stream_.erase(fw->error_stream);
    by_stream_.erase(fw->data_stream);
    by_request_.erase(fw->request_id);
    MaybeReadClient();
  }

  // Frames go out one WebSocket message each, one write at a time; `after` runs once sent.
  void Send(std::string bytes, std::function<void()> after = nullptr) {
    if (over_) return;
    out_.push_back({std::move(bytes), std::move(after)});
    if (out_.size() == 1) WriteNext();
  }

  void WriteNext() {
    ws_.async_write(asio::buffer(out_.front().bytes),
                    session_.Track([this](error_code ec, std::size_t) {
                      auto sent = std::move(out_.front());
                      out_.pop_front();
                      if (ec) return Abort();
                      if (sent.after) sent.after();
                      if (!out_.empty() && !over_) WriteNext();
                      if (out_.empty() && closing_) Abort();
                    }));
  }

  // Ends the session once what is queued (a GOAWAY) is sent.
  void Close() {
    closing_ = true;
    if (out_.empty()) Abort();
  }

  // The end, either way: every pod socket closed, the connection shut down, so that the
  // session's Run returns once the cancelled operations' handlers have run.
  void Abort() {
    if (over_) return;
    over_ = true;
    error_code ignored;
    for (auto& [id, fw] : by_request_) {
      fw->ended = true;
      if (fw->socket) fw->socket->close(ignored);
    }
    by_request_.clear();
    by_stream_.clear();
    // Shut down, not closed: the server still knows the connection by its descriptor's number.
    beast::get_lowest_layer(ws_).shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  }

  struct Outgoing {
    std::string bytes;
    std::function<void()> after;
  };

  http::StrandSession session_;
  http::WebSocketStream& ws_;
  PortDial dial_;
  beast::flat_buffer read_buffer_;
  spdy::FrameReader frames_in_;
  FrameWriter frames_out_;
  std::map<std::string, ForwardPtr> by_request_;
  std::map<std::uint32_t, ForwardPtr> by_stream_;
  std::deque<Outgoing> out_;
  std::size_t pending_to_pods_ = 0;
  std::uint32_t last_stream_ = 0;
  bool reading_ = false;
  bool closing_ = false;
  bool over_ = false;
};

}  // namespace

void RunPortForwardSession(http::WebSocketConnection& connection, PortDial dial) {
  PortForwardSession session(connection, std::move(dial));
  session.Run();
}

}  // namespace podlimits::streaming
