// OciRuntimeClient against a fake runtime: a shell script that records its arguments and
// behaves as each test tells it (prints, writes its --log, exits, hangs). Checks the command
// lines, how an error message is put together, the time limit, `state` parsing, and that
// killing or deleting a container that is already gone is not an error.
#include "cri/oci_runtime.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cri/oci_runtime_output.h"
#include "temp_dir.h"

namespace podlimits::cri {
namespace {

using podlimits::testing::ReadText;
using podlimits::testing::TempDir;
using podlimits::testing::WriteText;

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The fake runtime. Every call appends its arguments to `calls` (one per line, then "--").
// Global options are taken off (ROOT and LOG are set from them), then CMD.sh in the fake's
// directory runs, if a test wrote one, with the command's own arguments as "$@".
class FakeRuntime {
 public:
  FakeRuntime() : binary_(dir_.path() / "fake-runtime"), root_(dir_.path() / "state") {
    fs::create_directories(dir_.path() / "bundle");
    WriteText(binary_,
              "#!/bin/sh\n"
              "dir='" +
                  dir_.path().string() +
                  "'\n"
                  "for a in \"$0\" \"$@\"; do printf '%s\\n' \"$a\"; done >> \"$dir/calls\"\n"
                  "echo -- >> \"$dir/calls\"\n"
                  "ROOT= LOG=\n"
                  "while [ $# -gt 0 ]; do\n"
                  "  case \"$1\" in\n"
                  "    --root) ROOT=$2; shift 2 ;;\n"
                  "    --log) LOG=$2; shift 2 ;;\n"
                  "    --log-format) shift 2 ;;\n"
                  "    *) break ;;\n"
                  "  esac\n"
                  "done\n"
                  "cmd=$1; shift\n"
                  "if [ -f \"$dir/$cmd.sh\" ]; then . \"$dir/$cmd.sh\"; fi\n"
                  "exit 0\n");
    fs::permissions(binary_, fs::perms::owner_all);
  }

  // What `cmd` does, as shell text.
  void On(const std::string& cmd, const std::string& script) {
    WriteText(dir_.path() / (cmd + ".sh"), script);
  }
  // Each call's argument vector, argv[0] included.
  std::vector<std::vector<std::string>> Calls() const {
    std::vector<std::vector<std::string>> calls(1);
    std::istringstream in(ReadText(dir_.path() / "calls"));
    for (std::string line; std::getline(in, line);) {
      if (line == "--") {
        calls.emplace_back();
      } else {
        calls.back().push_back(line);
      }
    }
    calls.pop_back();
    return calls;
  }
  // The subcommand of each call.
  std::vector<std::string> Commands() const {
    std::vector<std::string> out;
    for (const auto& call : Calls()) {
      std::size_t i = 1;
      while (i + 1 < call.size() && call[i].starts_with("--")) i += 2;
      out.push_back(i < call.size() ? call[i] : "?");
    }
    return out;
  }
  OciRuntimeClient Client(RuntimeKind kind = RuntimeKind::kCrun) const {
    OciRuntimeClient client(kind, binary_, root_);
    client.timeout = 5s;
    return client;
  }
  // Makes the fake's state directory for `id` exist, as a real runtime's would.
  void Know(const std::string& id) const { fs::create_directories(root_ / id); }

  fs::path dir() const { return dir_.path(); }
  fs::path bundle() const { return dir_.path() / "bundle"; }
  const fs::path& binary() const { return binary_; }
  const fs::path& root() const { return root_; }

 private:
  TempDir dir_{"podlimits-ociruntime"};
  fs::path binary_;
  fs::path root_;
};

// `create` as the runtimes do it: the pid file, then exit 0.
const char* kCreateOk =
    "while [ $# -gt 1 ]; do case $1 in --pid-file) echo 4242 > \"$2\"; shift 2 ;;"
    " *) shift ;; esac; done\n";

TEST(OciRuntimeClient, CreatesTheStateRootPrivately) {
  FakeRuntime fake;
  fake.Client();
  struct stat st;
  ASSERT_EQ(stat(fake.root().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(OciRuntimeClient, CreatePassesArgumentsInOrderAndReadsThePidFile) {
  FakeRuntime fake;
  fake.On("create", kCreateOk);
  auto client = fake.Client();
  auto pid = client.Create("web-1", fake.bundle(), {});
  ASSERT_TRUE(pid) << pid.error();
  EXPECT_EQ(*pid, 4242);
  const std::string b = fake.bundle().string();
  ASSERT_EQ(fake.Calls().size(), 1u);
  EXPECT_EQ(fake.Calls()[0],
            (std::vector<std::string>{fake.binary().string(), "--root", fake.root().string(),
                                      "--log", b + "/runtime.log", "--log-format", "json", "create",
                                      "--bundle", b, "--pid-file", b + "/init.pid", "web-1"}));
}

TEST(OciRuntimeClient, EveryCommandLine) {
  FakeRuntime fake;
  fake.On("state", "echo '{\"id\":\"c1\",\"pid\":7,\"status\":\"running\",\"bundle\":\"/b\"}'\n");
  auto client = fake.Client(RuntimeKind::kRunc);
  ASSERT_TRUE(client.Start("c1"));
  ASSERT_TRUE(client.State("c1"));
  ASSERT_TRUE(client.Kill("c1", 15));
  ASSERT_TRUE(client.Kill("c1", 9, /*all=*/true));
  ASSERT_TRUE(client.Delete("c1"));
  const std::vector<std::string> global = {fake.binary().string(), "--root", fake.root().string(),
                                           "--log-format", "json"};
  auto with = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = global;
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  EXPECT_EQ(fake.Calls(), (std::vector<std::vector<std::string>>{
                              with({"start", "c1"}),
                              with({"state", "c1"}),
                              with({"kill", "c1", "15"}),
                              with({"kill", "--all", "c1", "9"}),
                              with({"delete", "--force", "c1"}),
                          }));
}

TEST(OciRuntimeClient, CreateHandsTheContainerStdioToTheRuntime) {
  FakeRuntime fake;
  fake.On("create", std::string(kCreateOk) + "read line; echo \"out: $line\"; echo err >&2\n");
  int in[2], out[2], err[2];
  ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(err, O_CLOEXEC), 0);
  ASSERT_EQ(write(in[1], "ping\n", 5), 5);
  close(in[1]);
  auto client = fake.Client();
  auto pid = client.Create("c1", fake.bundle(), {in[0], out[1], err[1]});
  close(in[0]);
  close(out[1]);
  close(err[1]);
  ASSERT_TRUE(pid) << pid.error();
  char buf[64];
  ssize_t n = read(out[0], buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "out: ping\n");
  n = read(err[0], buf, sizeof buf);
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "err\n");
  close(out[0]);
  close(err[0]);
}

TEST(OciRuntimeClient, CreateFailureNamesTheRuntimeMessageAndCleansUp) {
  struct Case {
    std::string name;
    RuntimeKind kind;
    std::string earlier_log;  // runtime.log before this create
    std::string create;       // what the fake create does
    std::string remove;       // what the fake delete does
    std::string error;
  };
  const std::vector<Case> cases = {
      {"crun json log", RuntimeKind::kCrun, "",
       "echo '{\"msg\":\"setrlimit `RLIMIT_NOFILE`: Operation not permitted\",\"level\":"
       "\"error\",\"time\":\"2026-11-22T08:07:50.835848Z\"}' >> \"$LOG\"\n"
       "echo 'setrlimit `RLIMIT_NOFILE`: Operation not permitted' >&2; exit 1\n",
       "", "crun create c1: setrlimit `RLIMIT_NOFILE`: Operation not permitted"},
      {"runc: the error after a warning", RuntimeKind::kRunc, "",
       "echo '{\"level\":\"warning\",\"msg\":\"unable to get oom kill count\"}' >> \"$LOG\"\n"
       "echo '{\"level\":\"error\",\"msg\":\"runc create failed: mountpoint for devices not "
       "found\"}' >> \"$LOG\"\nexit 1\n",
       "", "runc create c1: runc create failed: mountpoint for devices not found"},
      {"plain text log", RuntimeKind::kCrun, "",
       "echo 'mount `proc` to `proc`: Operation not permitted' >> \"$LOG\"; exit 1\n", "",
       "crun create c1: mount `proc` to `proc`: Operation not permitted"},
      {"an earlier failure in the log is not this one", RuntimeKind::kCrun,
       "{\"msg\":\"old failure\",\"level\":\"error\"}\n", "exit 2\n", "",
       "crun create c1: exit status 2"},
      {"no pid file", RuntimeKind::kCrun, "", "exit 0\n", "",
       "crun create c1: read \"BUNDLE/init.pid\": No such file or directory"},
      {"garbage pid file", RuntimeKind::kCrun, "",
       "while [ $# -gt 1 ]; do case $1 in --pid-file) echo nope > \"$2\"; shift 2 ;;"
       " *) shift ;; esac; done\n",
       "", "crun create c1: read \"BUNDLE/init.pid\": \"nope\" is not a pid"},
      {"the cleanup fails too", RuntimeKind::kCrun, "",
       "mkdir -p \"$ROOT/c1\"; echo '{\"msg\":\"boom\",\"level\":\"error\"}' >> \"$LOG\"; "
       "exit 1\n",
       "echo '{\"msg\":\"cannot delete\",\"level\":\"error\"}' >&2; exit 1\n",
       "crun create c1: boom (and then: crun delete c1: cannot delete)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeRuntime fake;
    if (!c.earlier_log.empty()) WriteText(fake.bundle() / "runtime.log", c.earlier_log);
    fake.On("create", c.create);
    if (!c.remove.empty()) fake.On("delete", c.remove);
    auto client = fake.Client(c.kind);
    auto pid = client.Create("c1", fake.bundle(), {});
    ASSERT_FALSE(pid);
    std::string want = c.error;
    if (auto at = want.find("BUNDLE"); at != std::string::npos) {
      want.replace(at, 6, fake.bundle().string());
    }
    EXPECT_EQ(pid.error().Message(), want);
    // The failed create was cleaned up with `delete --force`.
    EXPECT_EQ(fake.Commands(), (std::vector<std::string>{"create", "delete"}));
    EXPECT_EQ(fake.Calls().back().back(), "c1");
    EXPECT_EQ(fake.Calls().back()[6], "--force");
  }
}

TEST(OciRuntimeClient, OtherFailuresNameTheRuntimeMessageFromStderr) {
  struct Case {
    std::string name;
    std::string stderr_text;
    int exit_code;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"json", "{\"level\":\"error\",\"msg\":\"container does not exist\",\"time\":\"x\"}", 1,
       "runc start c1: container does not exist"},
      {"plain", "cannot start a container that has stopped", 1,
       "runc start c1: cannot start a container that has stopped"},
      {"silent", "", 5, "runc start c1: exit status 5"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeRuntime fake;
    fake.On("start",
            "echo '" + c.stderr_text + "' >&2; exit " + std::to_string(c.exit_code) + "\n");
    auto client = fake.Client(RuntimeKind::kRunc);
    auto started = client.Start("c1");
    ASSERT_FALSE(started);
    EXPECT_EQ(started.error().Message(), c.error);
  }
}

TEST(OciRuntimeClient, TimeoutKillsTheCommand) {
  FakeRuntime fake;
  fake.On("start", "sleep 30\n");
  auto client = fake.Client();
  client.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto started = client.Start("c1");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().Message(), "crun start c1: timed out after 200 ms");

  // A hanging create is killed, then cleaned up like any failed create.
  fake.On("create", "sleep 30\n");
  auto created = client.Create("c2", fake.bundle(), {});
  ASSERT_FALSE(created);
  EXPECT_EQ(created.error().Message(), "crun create c2: timed out after 200 ms");
  EXPECT_EQ(fake.Commands(), (std::vector<std::string>{"start", "create", "delete"}));
}

TEST(OciRuntimeClient, StateParsesTheRuntimeJson) {
  FakeRuntime fake;
  // crun 1.8.1's output, verbatim apart from the values.
  fake.On("state",
          "cat <<'EOF'\n"
          "{\n"
          "    \"ociVersion\": \"1.0.0\",\n"
          "    \"id\": \"web-1\",\n"
          "    \"pid\": 19464,\n"
          "    \"status\": \"created\",\n"
          "    \"bundle\": \"/tmp/rtm/bundle\",\n"
          "    \"rootfs\": \"rootfs\",\n"
          "    \"created\": \"2026-11-22T08:06:29.526658Z\",\n"
          "    \"systemd-scope\": \"\",\n"
          "    \"owner\": \"root\"\n"
          "}\n"
          "EOF\n");
  auto client = fake.Client();
  auto state = client.State("web-1");
  ASSERT_TRUE(state) << state.error();
  EXPECT_EQ(state->id, "web-1");
  EXPECT_EQ(state->status, "created");
  EXPECT_EQ(state->pid, 19464);
  EXPECT_EQ(state->bundle, "/tmp/rtm/bundle");

  fake.On("state", "echo 'not json'\n");
  auto bad = client.State("web-1");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().Message(), "crun state web-1: state JSON: Invalid value. (at byte 1)");
}

TEST(ParseContainerState, Table) {
  struct Case {
    std::string name;
    std::string json;
    std::string error;  // "" = parses
  };
  const std::vector<Case> cases = {
      {"stopped", R"({"id":"a","pid":0,"status":"stopped","bundle":"/b","annotations":{}})", ""},
      {"status missing", R"({"id":"a","pid":0,"bundle":"/b"})",
       "state JSON: \"status\" is missing"},
      {"pid a string", R"({"id":"a","pid":"1","status":"running","bundle":"/b"})",
       "state JSON: \"pid\" must be a non-negative integer"},
      {"pid negative", R"({"id":"a","pid":-4,"status":"running","bundle":"/b"})",
       "state JSON: \"pid\" must be a non-negative integer"},
      {"bundle not a string", R"({"id":"a","pid":1,"status":"running","bundle":3})",
       "state JSON: \"bundle\" must be a string"},
      {"array", "[]", "state JSON: not an object"},
      {"empty", "", "state JSON: The document is empty. (at byte 0)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto state = ParseContainerState(c.json);
    if (c.error.empty()) {
      ASSERT_TRUE(state) << state.error();
    } else {
      ASSERT_FALSE(state);
      EXPECT_EQ(state.error().Message(), c.error);
    }
  }
}

TEST(RuntimeMessage, Table) {
  struct Case {
    std::string name;
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"crun json", "{\"msg\":\"kill container: No such process\",\"level\":\"error\"}\n",
       "kill container: No such process"},
      {"runc json, error after warning",
       "{\"level\":\"warning\",\"msg\":\"w\"}\n{\"level\":\"error\",\"msg\":\"e\"}\n", "e"},
      {"the last error wins",
       "{\"level\":\"error\",\"msg\":\"first\"}\n{\"level\":\"error\",\"msg\":\"second\"}\n"
       "{\"level\":\"warning\",\"msg\":\"later warning\"}\n",
       "second"},
      {"only a warning", "{\"level\":\"warning\",\"msg\":\"w\"}\n", "w"},
      {"plain text with CRLF", "error opening file `/x/status`: No such file\r\n",
       "error opening file `/x/status`: No such file"},
      {"json without msg is plain text", "{\"foo\":1}\n", "{\"foo\":1}"},
      {"blank", "\n  \n", ""},
      {"empty", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RuntimeMessage(c.text), c.message);
  }
}

TEST(OciRuntimeClient, KillOfAContainerThatIsGoneIsNotAnError) {
  const std::string no_such_process =
      "echo '{\"msg\":\"kill container: No such process\",\"level\":\"error\"}' >&2; exit 1\n";
  struct Case {
    std::string name;
    bool known;         // the runtime has state for it
    std::string state;  // what `state` prints
    std::string error;  // "" = Kill succeeds
  };
  const std::vector<Case> cases = {
      {"unknown", false, "", ""},
      {"stopped", true, R"({"id":"c1","pid":0,"status":"stopped","bundle":"/b"})", ""},
      {"running and the kill failed", true,
       R"({"id":"c1","pid":9,"status":"running","bundle":"/b"})",
       "crun kill c1: kill container: No such process"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeRuntime fake;
    fake.On("kill", no_such_process);
    fake.On("state", "echo '" + c.state + "'\n");
    if (c.known) fake.Know("c1");
    auto client = fake.Client();
    auto killed = client.Kill("c1", 9);
    if (c.error.empty()) {
      EXPECT_TRUE(killed) << killed.error();
    } else {
      ASSERT_FALSE(killed);
      EXPECT_EQ(killed.error().Message(), c.error);
    }
  }
}

TEST(OciRuntimeClient, DeleteOfAnUnknownContainerIsNotAnError) {
  FakeRuntime fake;
  fake.On("delete",
          "echo '{\"msg\":\"cannot open directory `x`: No such file or directory\","
          "\"level\":\"error\"}' >&2; exit 1\n");
  auto client = fake.Client();
  EXPECT_TRUE(client.Delete("c1"));

  fake.Know("c1");
  auto deleted = client.Delete("c1");
  ASSERT_FALSE(deleted);
  EXPECT_EQ(deleted.error().Message(),
            "crun delete c1: cannot open directory `x`: No such file or directory");
}

TEST(OciRuntimeClient, RefusesIdsThatAreNotOnePathComponent) {
  FakeRuntime fake;
  auto client = fake.Client();
  for (std::string id : {"", ".", "..", "a/b"}) {
    SCOPED_TRACE(id);
    auto pid = client.Create(id, fake.bundle(), {});
    ASSERT_FALSE(pid);
    EXPECT_EQ(pid.error().Message(), "crun create " + id + ": invalid container id");
    EXPECT_FALSE(client.Delete(id));
  }
  EXPECT_TRUE(fake.Calls().empty());
}

TEST(OciRuntimeClient, AMissingBinaryIsNamed) {
  FakeRuntime fake;
  OciRuntimeClient client(RuntimeKind::kCrun, fake.dir() / "absent", fake.root());
  auto started = client.Start("c1");
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().Message(), "crun start c1: posix_spawn \"" +
                                           (fake.dir() / "absent").string() +
                                           "\": No such file or directory");
}

}  // namespace
}  // namespace podlimits::cri
