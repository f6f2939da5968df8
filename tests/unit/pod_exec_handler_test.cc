// `kubectl exec` and `kubectl attach` before the upgrade: the apiserver's and kubelet's checks
// and messages, the protocol negotiation, and the final Status the error channel carries.
#include <gtest/gtest.h>

#include <cerrno>

#include "podstreams/pod_attach_handler.h"
#include "podstreams/pod_exec_handler.h"
#include "podstreams/pod_portforward_handler.h"
#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "temp_dir.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

class FakeExecutor : public PodExecutor {
 public:
  Result<ExecStreams> StartExec(const Node&, const ExecOptions& options) override {
    seen = options;
    ++calls;
    if (refusal) return std::unexpected(*refusal);
    return ExecStreams{};
  }
  Result<AttachedInput> AttachInput(const Node&, const ExecOptions& options) override {
    seen = options;
    ++inputs;
    if (refusal) return std::unexpected(*refusal);
    int p[2];
    EXPECT_EQ(pipe(p), 0);
    close(p[0]);
    AttachedInput in;
    in.stdin_fd.Reset(p[1]);
    return in;
  }
  int inputs = 0;
  ExecOptions seen;
  int calls = 0;
  std::optional<Error> refusal;
};

class FakeDialer : public PodPortDialer {
 public:
  Result<UniqueFd> DialPort(const Node&, int) override {
    ++calls;
    return Failure("not in a unit test");
  }
  int calls = 0;
};

class FakeLogs : public PodLogSource {
 public:
  explicit FakeLogs(std::filesystem::path file) : file_(std::move(file)) {}
  Result<std::filesystem::path> ContainerLogFile(const Node&, std::string_view, bool) const override {
    return file_;
  }

 private:
  std::filesystem::path file_;
};

class PodExecHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = storage::ObjectStore::Open(dir_.path() / "state.db");
    ASSERT_TRUE(store);
    store_ = std::move(*store);
    Add(R"({"metadata":{"name":"web","namespace":"default","uid":"u1"},
            "spec":{"nodeName":"n1","containers":[{"name":"app"}]},"status":{"phase":"Running",
            "containerStatuses":[{"name":"app","restartCount":0,"state":{"running":{}}}]}})");
    Add(R"({"metadata":{"name":"interactive","namespace":"default","uid":"u6"},
            "spec":{"nodeName":"n1","containers":[{"name":"app","stdin":true,"tty":true}]},
            "status":{"phase":"Running",
            "containerStatuses":[{"name":"app","restartCount":0,"state":{"running":{}}}]}})");
    Add(R"({"metadata":{"name":"waiting","namespace":"default","uid":"u5"},
            "spec":{"nodeName":"n1","containers":[{"name":"app"}]},"status":{"phase":"Running",
            "containerStatuses":[{"name":"app","restartCount":1,"state":{"waiting":{}}}]}})");
    Add(R"({"metadata":{"name":"two","namespace":"default","uid":"u2"},
            "spec":{"nodeName":"n1","initContainers":[{"name":"init"}],
                    "containers":[{"name":"a"},{"name":"b"}]},"status":{"phase":"Running"}})");
    Add(R"({"metadata":{"name":"pending","namespace":"default","uid":"u3"},
            "spec":{"containers":[{"name":"app"}]},"status":{"phase":"Pending"}})");
    Add(R"({"metadata":{"name":"done","namespace":"default","uid":"u4"},
            "spec":{"nodeName":"n1","containers":[{"name":"app"}]},"status":{"phase":"Succeeded"}})");
  }
  void Add(const std::string& json) {
    Node pod = (*codec::ParseJsonStream(json))[0];
    const std::string name = codec::StringOf(pod.FindPath({"metadata", "name"}));
    ASSERT_TRUE(store_->Create({"pods", "default", name},
                               [&](std::int64_t rv) { return RenderStoredObject(pod, "Pod", rv); }));
  }
  http::HttpResponse Exec(const std::string& name, const std::string& query, bool websocket = true,
                    const std::string& protocols = "v5.channel.k8s.io") {
    return ServePodExec(*store_, executor_, Request("exec", name, query, websocket, protocols),
                        {"pods", "default", name});
  }
  http::HttpResponse Attach(const std::string& name, const std::string& query, bool websocket = true) {
    return ServePodAttach(*store_, logs_, executor_, Request("attach", name, query, websocket),
                          {"pods", "default", name});
  }
  // A GET of pods/{name}/{subresource}; a WebSocket upgrade offering `protocols`, or else one
  // that asks for SPDY as kubectl's fallback does.
  static http::HttpRequest Request(const std::string& subresource, const std::string& name,
                             const std::string& query, bool websocket,
                             const std::string& protocols = "v5.channel.k8s.io") {
    http::HttpRequest r;
    r.method = "GET";
    r.target = "/api/v1/namespaces/default/pods/" + name + "/" + subresource + "?" + query;
    r.path = "/api/v1/namespaces/default/pods/" + name + "/" + subresource;
    std::string_view rest = query;
    while (!rest.empty()) {
      auto amp = rest.find('&');
      auto pair = rest.substr(0, amp);
      auto eq = pair.find('=');
      r.query[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
      if (amp == std::string_view::npos) break;
      rest.remove_prefix(amp + 1);
    }
    if (websocket) {
      r.headers["upgrade"] = "websocket";
      r.headers["connection"] = "Upgrade";
      r.headers["sec-websocket-protocol"] = protocols;
    }
    return r;
  }
  static std::string Message(const http::HttpResponse& r) {
    if (r.content_type.starts_with("text/plain")) return r.body;
    auto nodes = codec::ParseJsonStream(r.body);
    return nodes ? codec::StringOf((*nodes)[0].Find("message")) : r.body;
  }

  podlimits::testing::TempDir dir_{"podlimits-exec-handler"};
  std::unique_ptr<storage::ObjectStore> store_;
  FakeExecutor executor_;
  FakeDialer dialer_;
  FakeLogs logs_{dir_.path() / "0.log"};
};

// The node's refusal travels as an Error; its reason picks the kubelet's status, its message
// is the plain-text body, and a failure without a reason (a system call's) is a 500.
TEST(ExecRefusalTest, StatusFollowsTheReason) {
  struct Case {
    const char* name;
    Error refusal;
    int status;
    std::string body;
  };
  const Case cases[] = {
      {"not found", ExecRefusal(404, "container not found (\"app\")"), 404,
       "container not found (\"app\")"},
      {"bad request", ExecRefusal(400, "attach without -i"), 400, "attach without -i"},
      {"internal", ExecRefusal(500, "timed out"), 500, "timed out"},
      {"a failed system call", Error{"socketpair", {}, EMFILE}, 500,
       "socketpair: Too many open files"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ExecRefusalStatus(c.refusal), c.status) << c.name;
    EXPECT_EQ(c.refusal.Message(), c.body) << c.name;
  }
}

TEST_F(PodExecHandlerTest, Refusals) {
  struct Case {
    std::string name, pod, query;
    int status;
    std::string message;
    bool websocket = true;
    std::string protocols = "v5.channel.k8s.io";
  };
  const std::string ok = "command=sh&stdout=true";
  const std::vector<Case> cases = {
      {"no such pod", "nope", ok, 404, "pods \"nope\" not found"},
      {"no such container", "web", ok + "&container=x", 400, "container x is not valid for pod web"},
      {"which container", "two", ok, 400,
       "a container name must be specified for pod two, choose one of: [init a b]"},
      {"not scheduled", "pending", ok, 400, "pod pending does not have a host assigned"},
      {"no stream", "web", "command=sh", 400, "you must specify at least 1 of stdin, stdout, stderr"},
      {"no command", "web", "stdout=true", 400, "you must specify at least one command for the container"},
      {"not an upgrade", "web", ok, 400, "Upgrade request required", false},
      {"old protocols only", "web", ok, 400,
       "requested protocol(s) are not supported: [v3.channel.k8s.io channel.k8s.io]; supports "
       "[v5.channel.k8s.io v4.channel.k8s.io]",
       true, "v3.channel.k8s.io, channel.k8s.io"},
      {"a finished pod", "done", ok, 404, "container not found (\"app\")"},
      {"a container that is not running", "waiting", ok, 404, "container not found (\"app\")"},
      // kubectl shows what its SPDY fallback got: the same refusal, as a Status.
      {"not running, to SPDY", "waiting", ok, 404, "container not found (\"app\")", false},
  };
  for (const auto& c : cases) {
    http::HttpResponse r = Exec(c.pod, c.query, c.websocket, c.protocols);
    EXPECT_EQ(r.status, c.status) << c.name;
    EXPECT_EQ(Message(r), c.message) << c.name;
    EXPECT_FALSE(r.websocket) << c.name;
  }
  EXPECT_EQ(executor_.calls, 0);
}

// `kubectl port-forward` before the upgrade: the apiserver's and kubelet's refusals (as Statuses,
// which kubectl's SPDY fallback shows), the tunnelled protocol, and nothing dialled yet.
TEST_F(PodExecHandlerTest, PortForwardRefusalsAndUpgrade) {
  auto forward = [&](const std::string& pod, bool websocket, const std::string& protocols,
                     const char* upgrade = nullptr) {
    http::HttpRequest r = Request("portforward", pod, "", websocket, protocols);
    if (upgrade != nullptr) r.headers["upgrade"] = upgrade;
    return ServePodPortForward(*store_, dialer_, r, {"pods", "default", pod});
  };
  const std::string spdy = "SPDY/3.1+portforward.k8s.io";
  struct Case {
    std::string name;
    http::HttpResponse got;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no such pod", forward("nope", true, spdy), 404, "pods \"nope\" not found"},
      {"not scheduled", forward("pending", true, spdy), 400, "pod pending does not have a host assigned"},
      {"a finished pod", forward("done", true, spdy), 400, "failed to find sandboxID for pod done"},
      {"not an upgrade", forward("web", false, ""), 400, "Upgrade request required"},
      {"SPDY without the tunnel", forward("web", false, "", "SPDY/3.1"), 400,
       "podlimits serves port-forward over WebSocket only (SPDY/3.1+portforward.k8s.io), not "
       "SPDY/3.1 directly: run kubectl without KUBECTL_PORT_FORWARD_WEBSOCKETS=false"},
      {"the WebSocket protocol of its own", forward("web", true, "v4.channel.k8s.io"), 400,
       "requested protocol(s) are not supported: [v4.channel.k8s.io]; supports "
       "[SPDY/3.1+portforward.k8s.io]"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.got.status, c.status) << c.name;
    EXPECT_EQ(Message(c.got), c.message) << c.name;
    EXPECT_FALSE(c.got.websocket) << c.name;
  }
  http::HttpResponse ok = forward("web", true, "v4.channel.k8s.io, " + spdy);
  EXPECT_TRUE(ok.websocket);
  EXPECT_EQ(ok.websocket_protocol, spdy);
  EXPECT_EQ(dialer_.calls, 0);  // a port is dialled only when kubectl opens a stream pair
}

TEST_F(PodExecHandlerTest, SpdyIsRefusedWithAReason) {
  http::HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true";
  r.query = {{"command", "sh"}, {"stdout", "true"}};
  r.headers["upgrade"] = "SPDY/3.1";
  http::HttpResponse got = ServePodExec(*store_, executor_, r, {"pods", "default", "web"});
  EXPECT_EQ(got.status, 400);
  EXPECT_NE(got.body.find("not SPDY/3.1"), std::string::npos) << got.body;
}

TEST_F(PodExecHandlerTest, StartsWithTheRequestedStreams) {
  http::HttpResponse r = Exec("web", "command=sh&command=-c&command=echo%20a%26b&stdin=true&stdout=true&stderr=true&tty=true",
                        true, "v4.channel.k8s.io, v5.channel.k8s.io");
  ASSERT_TRUE(r.websocket);
  EXPECT_EQ(r.websocket_protocol, "v5.channel.k8s.io");
  EXPECT_EQ(executor_.seen.container, "app");
  EXPECT_EQ(executor_.seen.command, (std::vector<std::string>{"sh", "-c", "echo a&b"}));
  EXPECT_TRUE(executor_.seen.stdin);
  EXPECT_TRUE(executor_.seen.stdout);
  EXPECT_FALSE(executor_.seen.stderr) << "a terminal carries stderr with stdout";
  EXPECT_TRUE(executor_.seen.tty);

  executor_.refusal = ExecRefusal(404, "container not found (\"app\")");
  r = Exec("web", "command=sh&stdout=true", true, "v4.channel.k8s.io");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, "container not found (\"app\")");
}

TEST_F(PodExecHandlerTest, AttachRefusalsAndStart) {
  http::HttpResponse input = Attach("web", "stdin=true&stdout=true");
  EXPECT_EQ(input.status, 400);
  EXPECT_EQ(Message(input),
            "podlimits does not attach to a container's input unless it declares stdin: true: the "
            "stdin of container app is /dev/null; attach without -i");
  http::HttpResponse spdy = Attach("web", "stdin=true&stdout=true", false);
  EXPECT_EQ(spdy.status, 400);
  EXPECT_TRUE(spdy.content_type.starts_with("application/json")) << spdy.content_type;
  EXPECT_EQ(Message(spdy), Message(input));
  EXPECT_EQ(Attach("waiting", "stdout=true").status, 404);
  EXPECT_EQ(Attach("web", "").status, 400);  // no stream
  // No command: attach starts, on the protocol negotiated.
  http::HttpResponse started = Attach("web", "stdout=true&stderr=true");
  EXPECT_TRUE(started.websocket);
  EXPECT_EQ(started.websocket_protocol, "v5.channel.k8s.io");
  EXPECT_EQ(executor_.calls, 0);
  EXPECT_EQ(executor_.inputs, 0);
  // A container that declares stdin: its input is attached through the node.
  http::HttpResponse with_input = Attach("interactive", "stdin=true&stdout=true&tty=true");
  EXPECT_TRUE(with_input.websocket) << with_input.body;
  EXPECT_EQ(executor_.inputs, 1);
  EXPECT_TRUE(executor_.seen.stdin);
  EXPECT_TRUE(executor_.seen.tty);
  // The node's refusal (the container went in between) is the answer before the upgrade.
  executor_.refusal = ExecRefusal(404, "container not found (\"app\")");
  http::HttpResponse gone = Attach("interactive", "stdin=true&stdout=true");
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(gone.body, "container not found (\"app\")");
}

TEST(ExecStatusTest, FinalStatus) {
  const std::vector<std::string> command = {"sh", "-c", "exit 3"};
  EXPECT_EQ(ExecStatusJson(R"({"exitCode":0})", command), R"({"metadata":{},"status":"Success"})");
  EXPECT_EQ(ExecStatusJson(R"({"exitCode":3})", command),
            R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: )"
            R"(error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode",)"
            R"("details":{"causes":[{"reason":"ExitCode","message":"3"}]}})");
  const std::string internal = ExecStatusJson(R"({"error":"crun exec x: no such file"})", command);
  auto n = (*codec::ParseJsonStream(internal))[0];
  EXPECT_EQ(codec::StringOf(n.Find("reason")), "InternalError");
  EXPECT_EQ(codec::StringOf(n.Find("message")),
            "Internal error occurred: error executing command in container: crun exec x: no such file");
  EXPECT_EQ(codec::IntOf(n.Find("code")), 500);
}

TEST(QueryValuesTest, RepeatedAndDecoded) {
  EXPECT_EQ(QueryValues("/x?command=ls&container=a&command=-l&command=a%2Bb+c", "command"),
            (std::vector<std::string>{"ls", "-l", "a+b c"}));
  EXPECT_TRUE(QueryValues("/x", "command").empty());
}

}  // namespace
}  // namespace podlimits::apiserver
