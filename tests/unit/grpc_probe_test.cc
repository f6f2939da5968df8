// grpc probes against a real gRPC server (Debian's python3-grpcio, tests/support/
// grpc_health_server.py), with the kubelet prober's messages.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "kubelet/prober/grpc_health.h"
#include "kubelet/prober/handler_runner.h"
#include "net_test_support.h"

namespace podlimits::kubelet {
namespace {

using namespace std::chrono_literals;

// The server script, started with a mode; stops when this closes its stdin.
class GrpcServer {
 public:
  explicit GrpcServer(const std::string& mode) {
    int in[2], out[2];
    EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    const std::string script =
        std::string(PODLIMITS_SOURCE_DIR) + "/tests/support/grpc_health_server.py";
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      execl("/usr/bin/python3", "python3", script.c_str(), mode.c_str(), nullptr);
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    stdin_ = in[1];
    FILE* f = fdopen(out[0], "r");
    char line[32] = {};
    if (f == nullptr || fgets(line, sizeof line, f) == nullptr) {
      ADD_FAILURE() << "the gRPC test server did not start (is python3-grpcio installed? "
                       "scripts/install-deps)";
    }
    if (f) fclose(f);
    port_ = std::atoi(line);
  }
  ~GrpcServer() {
    close(stdin_);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
};

ActionOutcome Probe(int port, std::optional<std::string> service,
                    std::chrono::milliseconds timeout = 1000ms) {
  api::HandlerAction a;
  a.kind = "grpc";
  a.port = std::to_string(port);
  a.grpc_service = std::move(service);
  static const api::Container c = [] {
    api::Container c;
    c.name = "app";
    return c;
  }();
  ActionTarget t;
  t.container = &c;
  return RunAction(a, t, timeout);
}

TEST(GrpcProbe, AnswersInTheProbersWords) {
  GrpcServer server("health");
  ASSERT_GT(server.port(), 0);

  auto healthy = Probe(server.port(), std::nullopt);
  EXPECT_EQ(healthy.result, ProbeResult::kSuccess) << healthy.output;
  EXPECT_EQ(healthy.output, "service healthy");

  auto down = Probe(server.port(), "down");
  EXPECT_EQ(down.result, ProbeResult::kFailure);
  EXPECT_EQ(down.output, "service unhealthy (responded with \"NOT_SERVING\")");

  auto missing = Probe(server.port(), "missing");
  EXPECT_EQ(missing.result, ProbeResult::kFailure);
  EXPECT_EQ(missing.output,
            "error: health rpc probe failed: rpc error: code = NotFound desc = unknown service "
            "missing");

  auto slow = Probe(server.port(), "slow");
  EXPECT_EQ(slow.result, ProbeResult::kFailure);
  EXPECT_EQ(slow.output, "timeout: health rpc did not complete within 1s");
}

TEST(GrpcProbe, ServerWithoutTheHealthService) {
  GrpcServer server("none");
  ASSERT_GT(server.port(), 0);
  auto r = Probe(server.port(), std::nullopt);
  EXPECT_EQ(r.result, ProbeResult::kFailure);
  EXPECT_EQ(r.output.rfind("error: this server does not implement the grpc health protocol "
                           "(grpc.health.v1.Health): ",
                           0),
            0u)
      << r.output;
}

TEST(GrpcProbe, NothingListening) {
  const int port = podlimits::testing::UnusedLoopbackPort();
  auto r = Probe(port, std::nullopt, 2000ms);
  EXPECT_EQ(r.result, ProbeResult::kFailure);
  EXPECT_EQ(r.output, "timeout: failed to connect service \"127.0.0.1:" + std::to_string(port) +
                          "\" within 2s: context deadline exceeded");
}

TEST(GrpcHealthMessages, RequestAndResponse) {
  EXPECT_EQ(EncodeHealthCheckRequest(""), std::string(5, '\0'));
  EXPECT_EQ(EncodeHealthCheckRequest("db"), std::string("\0\0\0\0\x04\x0a\x02" "db", 9));
  EXPECT_EQ(DecodeHealthCheckResponse(""), 0);
  EXPECT_EQ(DecodeHealthCheckResponse("\x08\x01"), 1);
  // Unknown fields are skipped, as protobuf does.
  EXPECT_EQ(DecodeHealthCheckResponse(std::string("\x12\x01x\x08\x02", 5)), 2);
  EXPECT_EQ(DecodeHealthCheckResponse("\x08"), -1);
  EXPECT_EQ(GrpcCodeName(12), "Unimplemented");
  EXPECT_EQ(GrpcCodeName(99), "Code(99)");
  EXPECT_EQ(HealthServingStatusName(3), "SERVICE_UNKNOWN");
}

}  // namespace
}  // namespace podlimits::kubelet
