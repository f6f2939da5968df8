// One call of the gRPC health protocol (grpc.health.v1.Health/Check), as the kubelet's grpc
// prober makes it: HTTP/2 without TLS on an already connected socket (grpc-go's insecure
// credentials: the connection preface right away, no upgrade), HTTP/2 framing and HPACK by
// Debian's libnghttp2, the two protobuf messages (a string field, an enum field) by hand.
//
// Request:  POST /grpc.health.v1.Health/Check, content-type application/grpc, te trailers,
//           user-agent kube-probe/1.32, one length-prefixed HealthCheckRequest{service}.
// Response: a HealthCheckResponse{status} and grpc-status 0, or a grpc-status with its
//           (percent-encoded) grpc-message, in the trailers or a trailers-only response.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

namespace podlimits::kubelet {

struct GrpcCallResult {
  enum class Kind {
    kResponse,   // grpc-status 0 and a response: `serving_status`
    kStatus,     // the call failed with `code` and `message` (grpc-status, or HTTP's mapping)
    kTransport,  // the connection failed: `message`
    kTimeout,    // the deadline passed first
  };
  Kind kind = Kind::kTransport;
  int serving_status = 0;  // HealthCheckResponse.ServingStatus: 0 UNKNOWN, 1 SERVING, ...
  int code = 0;
  std::string message;
};

// Makes the call on `fd` (connected, non-blocking). `authority` is "host:port".
GrpcCallResult GrpcHealthCheck(int fd, std::string_view authority, std::string_view service,
                               std::string_view user_agent,
                               std::chrono::steady_clock::time_point deadline,
                               const std::atomic<bool>* cancelled);

// codes.Code's String(): "OK", "Unimplemented", ...; "Code(42)" for an unknown one.
std::string GrpcCodeName(int code);

// HealthCheckResponse_ServingStatus's String(): "SERVING", "NOT_SERVING", ...
std::string HealthServingStatusName(int status);

// The health request and response messages, exposed for tests: the length-prefixed request,
// and the status of a response message (nullopt-like -1 when it does not parse).
std::string EncodeHealthCheckRequest(std::string_view service);
int DecodeHealthCheckResponse(std::string_view message);

}  // namespace podlimits::kubelet
