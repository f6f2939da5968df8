#include "kubelet/prober/grpc_health.h"

#include <fmt/format.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <memory>
#include <optional>
#include <vector>

#include "base/percent_encoding.h"
#include "kubelet/prober/probe_dial.h"

namespace podlimits::kubelet {

using Clock = std::chrono::steady_clock;

namespace {

constexpr std::string_view kCheckPath = "/grpc.health.v1.Health/Check";
// More than any health response; a server sending more is not answering a health check.
constexpr std::size_t kMaxResponseBytes = 64 * 1024;

void AppendVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

std::optional<std::uint64_t> ReadVarint(std::string_view& in) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    auto byte = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return std::nullopt;
}

// grpc-go's HTTP status → code mapping for a response that is not gRPC.
int CodeForHttpStatus(int status) {
  switch (status) {
    case 400: return 13;  // Internal
    case 401: return 16;  // Unauthenticated
    case 403: return 7;   // PermissionDenied
    case 404: return 12;  // Unimplemented
    case 429: case 502: case 503: case 504: return 14;  // Unavailable
    default: return 2;    // Unknown
  }
}

struct Call {
  std::string request;        // the length-prefixed message
  std::size_t request_sent = 0;
  std::int32_t stream_id = -1;
  int http_status = 0;
  std::optional<int> grpc_status;
  std::string grpc_message;
  std::string body;
  bool closed = false;
  std::uint32_t close_error = 0;
  bool too_large = false;
};

ssize_t ReadRequest(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                    std::uint32_t* flags, nghttp2_data_source* source, void*) {
  auto* call = static_cast<Call*>(source->ptr);
  const std::size_t n = std::min(length, call->request.size() - call->request_sent);
  std::copy_n(call->request.data() + call->request_sent, n, buf);
  call->request_sent += n;
  if (call->request_sent == call->request.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
             std::size_t namelen, const std::uint8_t* value, std::size_t valuelen, std::uint8_t,
             void* user) {
  auto* call = static_cast<Call*>(user);
  if (frame->hd.stream_id != call->stream_id) return 0;
  std::string_view n(reinterpret_cast<const char*>(name), namelen);
  std::string_view v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":status") {
    call->http_status = std::atoi(std::string(v).c_str());
  } else if (n == "grpc-status") {
    call->grpc_status = std::atoi(std::string(v).c_str());
  } else if (n == "grpc-message") {
    call->grpc_message = PercentDecode(v, false);  // percent-encoded by the gRPC HTTP/2 spec
  }
  return 0;
}

int OnData(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
           std::size_t len, void* user) {
  auto* call = static_cast<Call*>(user);
  if (stream_id != call->stream_id) return 0;
  if (call->body.size() + len > kMaxResponseBytes) {
    call->too_large = true;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }
  call->body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int OnClose(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code, void* user) {
  auto* call = static_cast<Call*>(user);
  if (stream_id == call->stream_id) {
    call->closed = true;
    call->close_error = error_code;
  }
  return 0;
}

struct SessionDeleter {
  void operator()(nghttp2_session* s) const { nghttp2_session_del(s); }
};

GrpcCallResult Transport(std::string message) {
  GrpcCallResult r;
  r.kind = GrpcCallResult::Kind::kTransport;
  r.message = std::move(message);
  return r;
}

GrpcCallResult Status(int code, std::string message) {
  GrpcCallResult r;
  r.kind = GrpcCallResult::Kind::kStatus;
  r.code = code;
  r.message = std::move(message);
  return r;
}

// What the finished stream says.
GrpcCallResult Interpret(const Call& call) {
  if (call.http_status != 200) {
    return Status(CodeForHttpStatus(call.http_status),
                  fmt::format("unexpected HTTP status code received from server: {}",
                              call.http_status));
  }
  if (!call.grpc_status) {
    if (call.close_error != 0) {
      return Status(13, fmt::format("stream terminated by RST_STREAM with error code: {}",
                                    nghttp2_http2_strerror(call.close_error)));
    }
    return Status(13, "server closed the stream without sending trailers");
  }
  if (*call.grpc_status != 0) return Status(*call.grpc_status, call.grpc_message);
  std::string_view body = call.body;
  if (body.size() < 5) return Status(13, "grpc: the response has no message");
  if (body[0] != 0) return Status(13, "grpc: the response is compressed, which was not asked for");
  const std::uint32_t length = (static_cast<std::uint32_t>(static_cast<unsigned char>(body[1])) << 24) |
                               (static_cast<std::uint32_t>(static_cast<unsigned char>(body[2])) << 16) |
                               (static_cast<std::uint32_t>(static_cast<unsigned char>(body[3])) << 8) |
                               static_cast<std::uint32_t>(static_cast<unsigned char>(body[4]));
  if (body.size() - 5 < length) return Status(13, "grpc: the response message is truncated");
  const int status = DecodeHealthCheckResponse(body.substr(5, length));
  if (status < 0) return Status(13, "grpc: failed to unmarshal the received message");
  GrpcCallResult r;
  r.kind = GrpcCallResult::Kind::kResponse;
  r.serving_status = status;
  return r;
}

}  // namespace

std::string EncodeHealthCheckRequest(std::string_view service) {
  std::string message;
  if (!service.empty()) {
    message += '\x0a';  // field 1, length-delimited
    AppendVarint(message, service.size());
    message += service;
  }
  std::string out(5, '\0');  // not compressed, then the length, big-endian
  const auto n = static_cast<std::uint32_t>(message.size());
  out[1] = static_cast<char>(n >> 24);
  out[2] = static_cast<char>(n >> 16);
  out[3] = static_cast<char>(n >> 8);
  out[4] = static_cast<char>(n);
  return out + message;
}

int DecodeHealthCheckResponse(std::string_view message) {
  int status = 0;  // proto3: an absent field is its zero value (UNKNOWN)
  while (!message.empty()) {
    auto tag = ReadVarint(message);
    if (!tag) return -1;
    const std::uint64_t field = *tag >> 3;
    switch (*tag & 7) {
      case 0: {
        auto v = ReadVarint(message);
        if (!v) return -1;
        if (field == 1) status = static_cast<int>(static_cast<std::int32_t>(*v));
        break;
      }
      case 1:
        if (message.size() < 8) return -1;
        message.remove_prefix(8);
        break;
      case 2: {
        auto len = ReadVarint(message);
        if (!len || *len > message.size()) return -1;
        message.remove_prefix(*len);
        break;
      }
      case 5:
        if (message.size() < 4) return -1;
        message.remove_prefix(4);
        break;
      default:
        return -1;
    }
  }
  return status;
}

std::string GrpcCodeName(int code) {
  static constexpr std::array<std::string_view, 17> kNames = {
      "OK",       "Canceled",          "Unknown",           "InvalidArgument",
      "DeadlineExceeded", "NotFound", "AlreadyExists",     "PermissionDenied",
      "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
      "Unimplemented", "Internal",    "Unavailable",       "DataLoss",
      "Unauthenticated"};
  if (code >= 0 && code < static_cast<int>(kNames.size())) return std::string(kNames[code]);
  return fmt::format("Code({})", code);
}

std::string HealthServingStatusName(int status) {
  switch (status) {
    case 0: return "UNKNOWN";
    case 1: return "SERVING";
    case 2: return "NOT_SERVING";
    case 3: return "SERVICE_UNKNOWN";
    default: return std::to_string(status);
  }
}

GrpcCallResult GrpcHealthCheck(int fd, std::string_view authority, std::string_view service,
                               std::string_view user_agent, Clock::time_point deadline,
                               const std::atomic<bool>* cancelled) {
  Call call;
  call.request = EncodeHealthCheckRequest(service);

  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return Transport("nghttp2: out of memory");
  nghttp2_session_callbacks_set_on_header_callback(callbacks, OnHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, OnData);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, OnClose);
  nghttp2_session* raw = nullptr;
  const int created = nghttp2_session_client_new(&raw, callbacks, &call);
  nghttp2_session_callbacks_del(callbacks);
  if (created != 0) return Transport(std::string("nghttp2: ") + nghttp2_strerror(created));
  std::unique_ptr<nghttp2_session, SessionDeleter> session(raw);

  if (int rc = nghttp2_submit_settings(session.get(), NGHTTP2_FLAG_NONE, nullptr, 0); rc != 0) {
    return Transport(std::string("nghttp2: ") + nghttp2_strerror(rc));
  }
  auto nv = [](std::string_view name, std::string_view value) {
    return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                      reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())),
                      name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
  };
  const std::array<nghttp2_nv, 7> headers = {
      nv(":method", "POST"),           nv(":scheme", "http"),
      nv(":path", kCheckPath),         nv(":authority", authority),
      nv("content-type", "application/grpc"), nv("te", "trailers"),
      nv("user-agent", user_agent)};
  nghttp2_data_provider body{};
  body.source.ptr = &call;
  body.read_callback = ReadRequest;
  call.stream_id = nghttp2_submit_request(session.get(), nullptr, headers.data(), headers.size(),
                                          &body, nullptr);
  if (call.stream_id < 0) {
    return Transport(std::string("nghttp2: ") + nghttp2_strerror(call.stream_id));
  }

  std::array<std::uint8_t, 16384> buf{};
  while (!call.closed) {
    // Everything nghttp2 has to send, then whatever the server answers.
    while (nghttp2_session_want_write(session.get())) {
      const std::uint8_t* data = nullptr;
      ssize_t n = nghttp2_session_mem_send(session.get(), &data);
      if (n < 0) return Transport(std::string("nghttp2: ") + nghttp2_strerror(static_cast<int>(n)));
      if (n == 0) break;
      std::size_t off = 0;
      while (off < static_cast<std::size_t>(n)) {
        ssize_t w = write(fd, data + off, static_cast<std::size_t>(n) - off);
        if (w > 0) {
          off += static_cast<std::size_t>(w);
          continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
          return Transport(fmt::format("write: {}", GoErrno(errno)));
        }
        pollfd p{fd, POLLOUT, 0};
        if (PollUntil(p, deadline, cancelled) <= 0) {
          GrpcCallResult r;
          r.kind = GrpcCallResult::Kind::kTimeout;
          return r;
        }
      }
    }
    if (call.closed) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = PollUntil(p, deadline, cancelled);
    if (ready == 0) {
      GrpcCallResult r;
      r.kind = GrpcCallResult::Kind::kTimeout;
      return r;
    }
    ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return Transport(fmt::format("read: {}", GoErrno(errno)));
    if (n == 0) return Transport("error reading from server: EOF");
    ssize_t used = nghttp2_session_mem_recv(session.get(), buf.data(), static_cast<std::size_t>(n));
    if (call.too_large) {
      return Status(8, fmt::format("grpc: received message larger than max ({} bytes)",
                                   kMaxResponseBytes));
    }
    if (used < 0) {
      return Transport(std::string("http2: ") + nghttp2_strerror(static_cast<int>(used)));
    }
  }
  return Interpret(call);
}

}  // namespace podlimits::kubelet
