// An exec's process file: the container's process (user, env, cwd, capabilities, rlimits,
// no_new_privs, labels) with the exec's command line and terminal.
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "cri/exec_process.h"

namespace podlimits::cri {
namespace {

constexpr std::string_view kConfig = R"({
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "consoleSize": {"height": 10, "width": 20},
    "user": {"uid": 1000, "gid": 1000},
    "args": ["sleep", "3600"],
    "env": ["PATH=/bin", "TERM=dumb", "HOME=/"],
    "cwd": "/work",
    "capabilities": {"bounding": ["CAP_CHOWN"], "effective": ["CAP_CHOWN"]},
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 4096, "soft": 1024},
                {"type": "RLIMIT_NPROC", "hard": 50, "soft": 50}],
    "noNewPrivileges": true,
    "apparmorProfile": "podlimits-default"
  },
  "linux": {"cgroupsPath": "/kubepods/pod1/c1"}
})";

codec::Node Parse(const std::string& text) {
  auto nodes = codec::ParseJsonStream(text);
  EXPECT_TRUE(nodes && nodes->size() == 1) << text;
  return nodes ? (*nodes)[0] : codec::Node{};
}

TEST(ExecProcessTest, KeepsTheContainersProcessButTheCommand) {
  auto process = ContainerProcessJson(kConfig, "config.json");
  ASSERT_TRUE(process) << process.error().Message();
  const std::vector<std::string> argv = {"sh", "-c", "ulimit -n"};
  auto text = ExecProcessJson(*process, argv, false);
  ASSERT_TRUE(text) << text.error().Message();
  codec::Node got = Parse(*text);
  EXPECT_EQ(codec::EncodeJson(*got.Find("args"), 0), R"(["sh","-c","ulimit -n"])");
  EXPECT_FALSE(got.Find("terminal")->AsBool());
  EXPECT_EQ(got.Find("consoleSize"), nullptr);
  // Everything else is the container's, rlimits first of all.
  codec::Node want = Parse(*process);
  for (const char* key : {"user", "env", "cwd", "capabilities", "rlimits", "noNewPrivileges",
                          "apparmorProfile"}) {
    ASSERT_NE(got.Find(key), nullptr) << key;
    EXPECT_EQ(codec::EncodeJson(*got.Find(key), 0), codec::EncodeJson(*want.Find(key), 0)) << key;
  }
}

TEST(ExecProcessTest, TerminalGetsTermXterm) {
  auto process = ContainerProcessJson(kConfig, "config.json");
  ASSERT_TRUE(process);
  const std::vector<std::string> argv = {"sh"};
  auto text = ExecProcessJson(*process, argv, true);
  ASSERT_TRUE(text);
  codec::Node got = Parse(*text);
  EXPECT_TRUE(got.Find("terminal")->AsBool());
  EXPECT_EQ(codec::EncodeJson(*got.Find("env"), 0), R"(["PATH=/bin","HOME=/","TERM=xterm"])");
}

TEST(ExecProcessTest, Errors) {
  EXPECT_EQ(ContainerProcessJson("{", "\"b/config.json\"").error().Message(),
            "read \"b/config.json\": not a JSON object");
  EXPECT_EQ(ContainerProcessJson(R"({"linux":{}})", "\"b/config.json\"").error().Message(),
            "read \"b/config.json\": no process object");
  EXPECT_EQ(ExecProcessJson(R"({"args":["x"]})", {}, false).error().Message(), "exec: no command");
}

}  // namespace
}  // namespace podlimits::cri
