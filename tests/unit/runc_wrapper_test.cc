// podlimits-runc's decisions, without a runtime: runc's command line, the node settings file,
// what a bundle's annotations ask (containerd's and CRI-O's), the config.json edits, an exec'd
// process's rlimits, the pod
// cgroup a cgroupsPath names, and the plan for a create on nodes of every kind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "runcwrap/bundle_request.h"
#include "runcwrap/create_plan.h"
#include "runcwrap/exec_limits.h"
#include "runcwrap/node_feature_labels.h"
#include "runcwrap/pod_cgroup_limits.h"
#include "runcwrap/runc_args.h"
#include "runcwrap/runtime_log.h"
#include "runcwrap/spec_edit.h"
#include "runcwrap/wrapper_config.h"
#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::runcwrap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using podlimits::testing::ParseJsonValue;

// --- runc's command line ------------------------------------------------------------------------

TEST(RuncCallTest, ContainerdShimCreate) {
  auto call = ParseRuncCall({"--root", "/run/containerd/runc/k8s.io", "--log",
                             "/run/x/log.json", "--log-format", "json", "create", "--bundle",
                             "/run/x", "--pid-file", "/run/x/init.pid", "--console-socket",
                             "/tmp/s.sock", "abc123"});
  ASSERT_TRUE(call) << call.error();
  EXPECT_THAT(call->global_args, ElementsAre("--root", "/run/containerd/runc/k8s.io", "--log",
                                             "/run/x/log.json", "--log-format", "json"));
  EXPECT_EQ(call->log_file, "/run/x/log.json");
  EXPECT_EQ(call->log_format, "json");
  EXPECT_EQ(call->command, "create");
  EXPECT_TRUE(call->Creates());
  EXPECT_EQ(call->bundle, "/run/x");
  EXPECT_EQ(call->pid_file, "/run/x/init.pid");
  EXPECT_EQ(call->container_id, "abc123");
}

TEST(RuncCallTest, EqualsFormsSingleDashAndRunDetach) {
  auto call = ParseRuncCall({"--root=/r", "-log", "/l", "--systemd-cgroup", "run", "-d",
                             "-b=/b", "--no-pivot", "--preserve-fds", "2", "id1"});
  ASSERT_TRUE(call) << call.error();
  EXPECT_EQ(call->log_file, "/l");
  EXPECT_EQ(call->log_format, "text");
  EXPECT_EQ(call->command, "run");
  EXPECT_TRUE(call->detach);
  EXPECT_EQ(call->bundle, "/b");
  EXPECT_EQ(call->container_id, "id1");
}

TEST(RuncCallTest, OtherCommandsAreOnlyNamed) {
  for (const char* command : {"start", "delete", "kill", "state", "update", "ps"}) {
    auto call = ParseRuncCall({"--root", "/r", command, "--force", "id"});
    ASSERT_TRUE(call);
    EXPECT_EQ(call->command, command);
    EXPECT_FALSE(call->Creates());
    EXPECT_TRUE(call->bundle.empty());
  }
  auto none = ParseRuncCall({"--version"});
  ASSERT_TRUE(none);
  EXPECT_EQ(none->command, "");
}

TEST(RuncCallTest, ExecNamesItsProcessFileAndContainer) {
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::optional<std::string> process_file;
    std::string container_id;
  };
  const std::vector<Case> cases = {
      {"containerd's runc shim",
       {"--root", "/run/containerd/runc/k8s.io", "--log", "/b/log.json", "--log-format", "json",
        "exec", "--process", "/tmp/runc-process1", "--detach", "--pid-file", "/b/x.pid", "abc"},
       "/tmp/runc-process1", "abc"},
      {"short -p, equals forms, a tty and a console socket",
       {"exec", "-t", "--console-socket=/s.sock", "-p", "/p.json", "abc"}, "/p.json", "abc"},
      {"-p= and options that take values",
       {"exec", "--cwd", "/", "-e", "A=1", "--user", "0:0", "-p=/p.json", "abc", "sh"},
       "/p.json", "abc"},
      {"no process file: the command on the line", {"exec", "abc", "sh", "-c", "true"},
       std::nullopt, "abc"},
  };
  for (const auto& c : cases) {
    auto call = ParseRuncCall(c.args);
    ASSERT_TRUE(call) << c.name;
    EXPECT_EQ(call->command, "exec") << c.name;
    EXPECT_TRUE(call->Execs()) << c.name;
    EXPECT_TRUE(call->NeedsWrapper()) << c.name;
    EXPECT_FALSE(call->Creates()) << c.name;
    EXPECT_EQ(call->process_file, c.process_file) << c.name;
    EXPECT_EQ(call->container_id, c.container_id) << c.name;
  }
  auto bad = ParseRuncCall({"exec", "--process"});
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().Message(), HasSubstr("exec --process: the option needs a value"));
}

TEST(RuncCallTest, BundleDefaultsToTheWorkingDirectoryAndAMissingValueIsAnError) {
  auto call = ParseRuncCall({"create", "id"});
  ASSERT_TRUE(call);
  EXPECT_EQ(call->bundle, std::filesystem::current_path());
  auto bad = ParseRuncCall({"create", "--pid-file"});
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().Message(), HasSubstr("--pid-file: the option needs a value"));
}

// --- /etc/podlimits/runc.yaml -------------------------------------------------------------------

TEST(WrapperConfigTest, KeysAndErrors) {
  auto empty = ParseWrapperConfig("", "runc.yaml");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->runtime.empty());
  EXPECT_EQ(empty->max_descendants, 250);
  EXPECT_EQ(empty->max_depth, 50);

  auto full = ParseWrapperConfig(
      "runtime: /usr/sbin/runc\nwritableCgroups:\n  maxDescendants: 10\n  maxDepth: 3\n"
      "requirePodAnnotations: true\n",
      "f");
  ASSERT_TRUE(full) << full.error();
  EXPECT_EQ(full->runtime, "/usr/sbin/runc");
  EXPECT_EQ(full->max_descendants, 10);
  EXPECT_EQ(full->max_depth, 3);
  EXPECT_TRUE(full->require_pod_annotations);
  EXPECT_FALSE(empty->require_pod_annotations);

  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"runtim: /x\n", "f: unknown key \"runtim\" (runtime, writableCgroups, defaultUlimits, "
                        "requirePodAnnotations)"},
      {"runtime: 3\n", "f: runtime: must be the path of crun or runc"},
      {"requirePodAnnotations: yes-please\n", "f: requirePodAnnotations: must be true or false"},
      {"writableCgroups: 5\n", "f: writableCgroups: must be a mapping"},
      {"writableCgroups: {maxDepth: -1}\n",
       "f: writableCgroups.maxDepth: must be a non-negative integer, not \"-1\""},
      {"writableCgroups: {maxDepth: x}\n",
       "f: writableCgroups.maxDepth: must be a non-negative integer, not \"x\""},
      {"writableCgroups: {depth: 1}\n", "f: writableCgroups: unknown key \"depth\""},
      {"- a\n", "f: must be one YAML mapping"},
      {"runtime: [\n", "f: yaml: line"},
  };
  for (const auto& c : cases) {
    auto r = ParseWrapperConfig(c.text, "f");
    ASSERT_FALSE(r) << c.text;
    EXPECT_THAT(r.error().Message(), HasSubstr(c.error)) << c.text;
  }
}

TEST(WrapperConfigTest, DefaultUlimitsAreHeldToTheKepRules) {
  auto ok = ParseWrapperConfig(
      "defaultUlimits:\n  - {name: nofile, soft: 1048576, hard: 1048576}\n"
      "  - {name: core, soft: -1, hard: -1}\n",
      "f");
  ASSERT_TRUE(ok) << ok.error();
  ASSERT_EQ(ok->default_ulimits.size(), 2u);
  EXPECT_EQ(ok->default_ulimits[0].name, "nofile");
  EXPECT_EQ(ok->default_ulimits[0].soft, 1048576);
  EXPECT_EQ(ok->default_ulimits[1].hard, -1);

  struct Case {
    const char* name;
    const char* text;
    const char* error;
  } cases[] = {
      {"not a list", "defaultUlimits: {name: nofile}\n",
       "f: defaultUlimits: must be a list of {name, soft, hard}"},
      {"unknown key", "defaultUlimits: [{name: nofile, soft: 1, hard: 1, max: 2}]\n",
       "f: defaultUlimits[0]: unknown key \"max\" (name, soft, hard)"},
      {"hard missing", "defaultUlimits: [{name: nofile, soft: 1}]\n",
       "f: defaultUlimits[0]: needs both soft and hard"},
      {"not an integer", "defaultUlimits: [{name: nofile, soft: many, hard: 1}]\n",
       "f: defaultUlimits[0].soft: must be an integer, not \"many\""},
      {"soft above hard", "defaultUlimits: [{name: nofile, soft: 2048, hard: 1024}]\n",
       "f: defaultUlimits[0].soft: Invalid value: 2048"},
      {"nofile above the KEP's maximum",
       "defaultUlimits: [{name: nofile, soft: 1024, hard: 2000000}]\n",
       "f: defaultUlimits[0].hard: Invalid value: 2000000: must be less than or equal to 1048576"},
      {"a name outside the allowlist", "defaultUlimits: [{name: nproc, soft: 1, hard: 1}]\n",
       "f: defaultUlimits[0].name: Unsupported value: \"nproc\""},
      {"twice", "defaultUlimits: [{name: core, soft: 1, hard: 1}, {name: core, soft: 1, hard: 1}]\n",
       "f: defaultUlimits[1].name: Duplicate value: \"core\""},
  };
  for (const auto& c : cases) {
    auto r = ParseWrapperConfig(c.text, "f");
    ASSERT_FALSE(r) << c.name;
    EXPECT_THAT(r.error().Message(), HasSubstr(c.error)) << c.name;
  }
}

TEST(WrapperConfigTest, LoadResolvesTheRuntime) {
  podlimits::testing::TempDir dir("runcwrap-config");
  auto write = [&](const std::string& text) {
    dir.Write("runc.yaml", text);
    return (dir / "runc.yaml").string();
  };
  auto missing = LoadWrapperConfig((dir / "absent.yaml").c_str());
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().Message(), HasSubstr("absent.yaml\": No such file or directory"));

  auto relative = LoadWrapperConfig(write("runtime: crun\n").c_str());
  ASSERT_FALSE(relative);
  EXPECT_THAT(relative.error().Message(), HasSubstr("runtime: must be an absolute path"));

  auto not_there = LoadWrapperConfig(write("runtime: /nonexistent/crun\n").c_str());
  ASSERT_FALSE(not_there);
  EXPECT_THAT(not_there.error().Message(), HasSubstr("\"/nonexistent/crun\""));

  auto fine = LoadWrapperConfig(write("runtime: /bin/sh\n").c_str());
  ASSERT_TRUE(fine) << fine.error();
  EXPECT_EQ(fine->runtime, "/bin/sh");
}

// --- what a bundle asks -------------------------------------------------------------------------

codec::Node Annotations(const std::string& json) { return ParseJsonValue(json); }

constexpr const char* kContainerd =
    R"("io.kubernetes.cri.container-type":"container","io.kubernetes.cri.container-name":"app",)"
    R"("io.kubernetes.cri.sandbox-name":"web","io.kubernetes.cri.sandbox-namespace":"default")";
constexpr const char* kSandbox =
    R"("io.kubernetes.cri.container-type":"sandbox",)"
    R"("io.kubernetes.cri.sandbox-name":"web","io.kubernetes.cri.sandbox-namespace":"default")";

TEST(BundleRequestTest, NoCriAnnotationsIsNotAPod) {
  auto none = ReadBundleRequest(nullptr);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->role, BundleRole::kOther);
  EXPECT_FALSE(none->Any());

  auto a = Annotations(R"({"ulimits.noderesource.dev/container.app":"[]"})");
  auto refused = ReadBundleRequest(&a);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().Message(),
              HasSubstr("carries podlimits annotations but no io.kubernetes.cri.container-type"));
}

TEST(BundleRequestTest, ContainerReadsItsOwnKeysAndThePodWideOnes) {
  auto a = Annotations(std::string("{") + kContainerd +
                       R"(,"ulimits.noderesource.dev/container.app":)"
                       R"("[{\"type\":\"RLIMIT_NOFILE\",\"soft\":1024,\"hard\":2048}]",)"
                       R"("ulimits.noderesource.dev/container.other":"not even yaml: [",)"
                       R"("podlimits.dev/pod-pid-limit":"1500",)"
                       R"("cgroups.noderesource.dev/writable":"true"})");
  auto req = ReadBundleRequest(&a);
  ASSERT_TRUE(req) << req.error();
  EXPECT_EQ(req->role, BundleRole::kContainer);
  EXPECT_EQ(req->Subject(), "container \"app\" of pod default/web");
  ASSERT_TRUE(req->container);
  ASSERT_TRUE(req->container->security_context->ulimits);
  const auto& u = req->container->security_context->ulimits->at(0);
  EXPECT_EQ(u.name, "nofile");
  EXPECT_EQ(u.soft, 1024);
  EXPECT_EQ(u.hard, 2048);
  EXPECT_EQ(req->pod_pid_limit, 1500);
  EXPECT_TRUE(req->writable);
  EXPECT_TRUE(req->Any());
}

TEST(BundleRequestTest, TheKepRulesHoldOnTheNode) {
  struct Case {
    const char* ulimits;
    const char* error;
  } cases[] = {
      {R"([{\"type\":\"nofile\",\"soft\":10,\"hard\":5}])",
       "metadata.annotations[ulimits.noderesource.dev/container.app]: "
       "securityContext.ulimits[0].soft: Invalid value: 10: must be less than or equal to hard "
       "limit 5"},
      {R"([{\"type\":\"nofile\",\"soft\":1,\"hard\":2000000}])",
       "securityContext.ulimits[0].hard: Invalid value: 2000000: must be less than or equal to "
       "1048576 (or -1 for unlimited)"},
      {R"([{\"type\":\"RLIMIT_NPROC\",\"soft\":1,\"hard\":2}])",
       "securityContext.ulimits[0].name: Unsupported value: \"nproc\""},
      {R"([{\"type\":\"nofile\",\"soft\":1.5}])", "soft of nofile must be an integer"},
  };
  for (const auto& c : cases) {
    auto a = Annotations(std::string("{") + kContainerd +
                         R"(,"ulimits.noderesource.dev/container.app":")" + c.ulimits + "\"}");
    auto req = ReadBundleRequest(&a);
    ASSERT_FALSE(req) << c.ulimits;
    EXPECT_THAT(req.error().Message(), HasSubstr("container \"app\" of pod default/web: "));
    EXPECT_THAT(req.error().Message(), HasSubstr(c.error)) << c.ulimits;
  }
}

TEST(BundleRequestTest, UnlimitedAndTheDeprecatedKeyWithAWarning) {
  auto a = Annotations(std::string("{") + kContainerd +
                       R"(,"ulimits.nri.containerd.io/container.app":)"
                       R"("- {type: RLIMIT_CORE, soft: -1, hard: -1}"})");
  auto req = ReadBundleRequest(&a);
  ASSERT_TRUE(req) << req.error();
  ASSERT_THAT(req->warnings, ElementsAre(HasSubstr("deprecated, use "
                                                   "ulimits.noderesource.dev/container.app")));
  EXPECT_EQ(req->container->security_context->ulimits->at(0).soft, -1);
}

TEST(BundleRequestTest, SandboxReadsThePidLimitAndWhetherAnyContainerIsWritable) {
  auto a = Annotations(std::string("{") + kSandbox +
                       R"(,"podlimits.dev/pod-pid-limit":"2k",)"
                       R"("podlimits.dev/writable-cgroups.container.builder":"true",)"
                       R"("ulimits.noderesource.dev/container.app":"not checked here: ["})");
  auto req = ReadBundleRequest(&a);
  ASSERT_TRUE(req) << req.error();
  EXPECT_EQ(req->role, BundleRole::kSandbox);
  EXPECT_EQ(req->Subject(), "pod default/web");
  EXPECT_EQ(req->pod_pid_limit, 2000);
  EXPECT_TRUE(req->pod_has_writable);
  EXPECT_FALSE(req->writable);
  EXPECT_FALSE(req->container);

  auto bad = Annotations(std::string("{") + kSandbox + R"(,"podlimits.dev/pod-pid-limit":"lots"})");
  auto refused = ReadBundleRequest(&bad);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().Message(),
              HasSubstr("pod default/web: metadata.annotations[podlimits.dev/pod-pid-limit]: "
                        "Invalid value: \"lots\""));
}

TEST(BundleRequestTest, CrioNamesFromLabelsAndKubeAnnotations) {
  auto a = Annotations(
      R"({"io.kubernetes.cri-o.ContainerType":"container",)"
      R"("io.kubernetes.cri-o.Labels":"{\"io.kubernetes.container.name\":\"app\",)"
      R"(\"io.kubernetes.pod.name\":\"web\",\"io.kubernetes.pod.namespace\":\"ci\"}",)"
      R"("io.kubernetes.cri-o.Annotations":"{\"podlimits.dev/writable-cgroups.container.app\":)"
      R"(\"true\"}"})");
  auto req = ReadBundleRequest(&a);
  ASSERT_TRUE(req) << req.error();
  EXPECT_EQ(req->Subject(), "container \"app\" of pod ci/web");
  EXPECT_TRUE(req->writable);
}

// --- config.json edits ----------------------------------------------------------------------------

TEST(SpecEditTest, RlimitsReplaceTheirTypeAndKeepTheRest) {
  auto spec = ParseJsonValue(
      R"({"ociVersion":"1.0.2","process":{"args":["sh"],"rlimits":[)"
      R"({"type":"RLIMIT_NOFILE","hard":1024,"soft":1024},{"type":"RLIMIT_CORE","hard":0,"soft":0}]}})");
  SpecEdits edits;
  edits.rlimits = {{"nofile", 256, 512}, {"memlock", kubelet::kRlimInfinity, kubelet::kRlimInfinity}};
  auto changed = EditSpec(spec, edits);
  ASSERT_TRUE(changed) << changed.error();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(codec::EncodeJson(spec, 0),
            R"({"ociVersion":"1.0.2","process":{"args":["sh"],"rlimits":[)"
            R"({"type":"RLIMIT_NOFILE","hard":512,"soft":256},{"type":"RLIMIT_CORE","hard":0,"soft":0},)"
            R"({"type":"RLIMIT_MEMLOCK","hard":18446744073709551615,"soft":18446744073709551615}]}})");
  auto again = EditSpec(spec, edits);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
}

// --- an exec'd process's rlimits ------------------------------------------------------------------

TEST(ExecLimitsTest, TheContainersRlimitsReachTheProcess) {
  struct Case {
    std::string name;
    std::string spec;     // config.json as podlimits-runc left it
    std::string process;  // process.json as the shim wrote it
    bool changed;
    std::string want;  // process.json afterwards
  };
  const std::string kSpec =
      R"({"process":{"args":["sh"],"rlimits":[{"type":"RLIMIT_NOFILE","hard":2048,"soft":1024},)"
      R"({"type":"RLIMIT_CORE","hard":0,"soft":0}]}})";
  const std::vector<Case> cases = {
      {"containerd 2.x: the process has none", kSpec, R"({"args":["cat"],"cwd":"/"})", true,
       R"({"args":["cat"],"cwd":"/","rlimits":[{"type":"RLIMIT_NOFILE","hard":2048,"soft":1024},)"
       R"({"type":"RLIMIT_CORE","hard":0,"soft":0}]})"},
      {"the stored spec's default is replaced, others kept", kSpec,
       R"({"args":["cat"],"rlimits":[{"type":"RLIMIT_NOFILE","hard":1024,"soft":1024},)"
       R"({"type":"RLIMIT_NPROC","hard":10,"soft":10}]})",
       true,
       R"({"args":["cat"],"rlimits":[{"type":"RLIMIT_NOFILE","hard":2048,"soft":1024},)"
       R"({"type":"RLIMIT_NPROC","hard":10,"soft":10},{"type":"RLIMIT_CORE","hard":0,"soft":0}]})"},
      {"already the container's", kSpec,
       R"({"rlimits":[{"type":"RLIMIT_CORE","hard":0,"soft":0},)"
       R"({"type":"RLIMIT_NOFILE","hard":2048,"soft":1024}]})",
       false,
       R"({"rlimits":[{"type":"RLIMIT_CORE","hard":0,"soft":0},)"
       R"({"type":"RLIMIT_NOFILE","hard":2048,"soft":1024}]})"},
      {"null rlimits in the process", kSpec, R"({"rlimits":null})", true,
       R"({"rlimits":[{"type":"RLIMIT_NOFILE","hard":2048,"soft":1024},)"
       R"({"type":"RLIMIT_CORE","hard":0,"soft":0}]})"},
      {"a container without rlimits changes nothing", R"({"process":{"args":["sh"]}})",
       R"({"args":["cat"]})", false, R"({"args":["cat"]})"},
  };
  for (const auto& c : cases) {
    auto spec = ParseJsonValue(c.spec);
    auto process = ParseJsonValue(c.process);
    auto changed = CopyContainerRlimits(spec, process);
    ASSERT_TRUE(changed) << c.name << ": " << changed.error();
    EXPECT_EQ(*changed, c.changed) << c.name;
    EXPECT_EQ(codec::EncodeJson(process, 0), c.want) << c.name;
  }
  auto bad_spec = ParseJsonValue(R"({"process":{"rlimits":{}}})");
  auto process = ParseJsonValue(R"({"args":["cat"]})");
  auto refused = CopyContainerRlimits(bad_spec, process);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().Message(), HasSubstr("process.rlimits is not a list"));
  auto spec = ParseJsonValue(kSpec);
  auto bad_process = ParseJsonValue(R"({"rlimits":"none"})");
  auto refused_process = CopyContainerRlimits(spec, bad_process);
  ASSERT_FALSE(refused_process);
  EXPECT_THAT(refused_process.error().Message(), HasSubstr("process.json: rlimits is not a list"));
}

TEST(SpecEditTest, WritableCgroupGetsANamespaceAndARwMount) {
  auto spec = ParseJsonValue(
      R"({"mounts":[{"destination":"/proc","type":"proc","source":"proc"},)"
      R"({"destination":"/sys/fs/cgroup","type":"cgroup","source":"cgroup",)"
      R"("options":["nosuid","noexec","nodev","relatime","ro"]}],)"
      R"("linux":{"namespaces":[{"type":"pid"},{"type":"mount"}]}})");
  SpecEdits edits;
  edits.writable_cgroup = true;
  ASSERT_TRUE(EditSpec(spec, edits).value());
  EXPECT_EQ(codec::EncodeJson(*spec.Find("mounts"), 0),
            R"([{"destination":"/proc","type":"proc","source":"proc"},)"
            R"({"destination":"/sys/fs/cgroup","type":"cgroup","source":"cgroup",)"
            R"("options":["nosuid","noexec","nodev","relatime","rw"]}])");
  EXPECT_EQ(codec::EncodeJson(*spec.FindPath({"linux", "namespaces"}), 0),
            R"([{"type":"pid"},{"type":"mount"},{"type":"cgroup"}])");

  auto bare = ParseJsonValue(R"({})");
  ASSERT_TRUE(EditSpec(bare, edits).value());
  EXPECT_EQ(codec::EncodeJson(bare, 0),
            R"({"linux":{"namespaces":[{"type":"cgroup"}]},"mounts":[{"destination":)"
            R"("/sys/fs/cgroup","type":"cgroup","source":"cgroup","options":["nosuid",)"
            R"("noexec","nodev","relatime","rw"]}]})");

  auto joined = ParseJsonValue(R"({"linux":{"namespaces":[{"type":"cgroup","path":"/proc/9/ns/cgroup"}]}})");
  auto refused = EditSpec(joined, edits);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().Message(), HasSubstr("joins the cgroup namespace /proc/9/ns/cgroup"));
}

// --- the pod cgroup -------------------------------------------------------------------------------

TEST(PodCgroupTest, CgroupfsAndSystemdPaths) {
  struct Case {
    const char* cgroups_path;
    const char* pod;
  } ok[] = {
      {"/kubepods/burstable/pod1/abc", "/kubepods/burstable/pod1"},
      {"/kubepods/pod1/abc/", "/kubepods/pod1"},
      {"kubepods-burstable-pod1.slice:cri-containerd:abc",
       "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice"},
      {"kubepods-pod1.slice:crio:abc", "/kubepods.slice/kubepods-pod1.slice"},
  };
  for (const auto& c : ok) {
    auto pod = PodCgroupOf(c.cgroups_path);
    ASSERT_TRUE(pod) << c.cgroups_path << ": " << pod.error();
    EXPECT_EQ(*pod, c.pod) << c.cgroups_path;
  }
  for (const char* bad : {"", "/abc", "relative/abc", "/kubepods/../x", "-.slice:p:abc",
                          "bad-.slice:p:abc", "a:b"}) {
    EXPECT_FALSE(PodCgroupOf(bad)) << bad;
  }
  EXPECT_THAT(PodCgroupOf("").error().Message(), HasSubstr("sets no linux.cgroupsPath"));
  EXPECT_THAT(PodCgroupOf("/kubepods/pod1/../pod2/c1").error().Message(),
              HasSubstr("leaves the cgroup root"));
}

TEST(PodCgroupTest, FromThePodsCgroupParent) {
  struct Case {
    const char* name;
    PodCgroupLocation where;
    const char* pod;    // nullptr: an error
    const char* error;  // its substring
  } cases[] = {
      {"cgroupfs parent", {"", "/kubepods/burstable/pod1"}, "/kubepods/burstable/pod1", ""},
      {"systemd slice parent", {"", "kubepods-burstable-pod1.slice"},
       "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice", ""},
      {"a container's cgroupsPath wins", {"/kubepods/pod2/c1", "/kubepods/pod1"}, "/kubepods/pod2",
       ""},
      {"relative parent", {"", "kubepods/pod1"}, nullptr,
       "the pod's cgroup parent \"kubepods/pod1\" is neither an absolute cgroup path nor a "
       "systemd slice"},
      {"the root", {"", "/"}, nullptr, "is the cgroup root, not a pod cgroup"},
      {"dot-dot", {"", "/kubepods/../x"}, nullptr, "leaves the cgroup root"},
      {"neither", {"", ""}, nullptr, "sets no linux.cgroupsPath"},
  };
  for (const auto& c : cases) {
    auto pod = PodCgroupAt(c.where);
    if (c.pod == nullptr) {
      ASSERT_FALSE(pod) << c.name;
      EXPECT_THAT(pod.error().Message(), HasSubstr(c.error)) << c.name;
    } else {
      ASSERT_TRUE(pod) << c.name << ": " << pod.error();
      EXPECT_EQ(*pod, c.pod) << c.name;
    }
  }
}

TEST(PodCgroupTest, LowersNeverRaisesAndNeedsThePodCgroup) {
  podlimits::testing::TempDir tmp("runcwrap-cgroup");
  const std::filesystem::path root = tmp.path();
  auto file = [&](const char* name, const char* value) {
    tmp.Write(std::string("kubepods/pod1/") + name, value);
  };
  file("pids.max", "4096\n");
  file("cgroup.max.descendants", "max\n");
  file("cgroup.max.depth", "10\n");
  PodCgroupLimits limits;
  limits.pids_max = 100;
  limits.max_descendants = 250;
  limits.max_depth = 50;
  auto state = ApplyPodCgroupLimits(root, "/kubepods/pod1", limits);
  ASSERT_TRUE(state) << state.error();
  EXPECT_EQ(state->pids_max, 100);
  EXPECT_EQ(state->max_descendants, 250);
  EXPECT_EQ(state->max_depth, 10);  // the kubelet's lower value stays
  EXPECT_EQ(podlimits::testing::ReadText(root / "kubepods/pod1/pids.max"), "100");

  limits.pids_max = 5000;  // never above what is there
  state = ApplyPodCgroupLimits(root, "/kubepods/pod1", limits);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->pids_max, 100);

  auto absent = ApplyPodCgroupLimits(root, "/kubepods/pod2", limits);
  ASSERT_FALSE(absent);
  EXPECT_THAT(absent.error().Message(), HasSubstr("the pod cgroup must exist before its sandbox"));
}

// --- the plan -------------------------------------------------------------------------------------

NodeFacts Node(std::optional<cgroups::CgroupMode> mode, bool nsdelegate) {
  NodeFacts n;
  n.cgroup_mode = mode;
  n.nsdelegate = nsdelegate;
  if (mode == cgroups::CgroupMode::kV2 || mode == cgroups::CgroupMode::kHybrid) {
    n.unified_root = mode == cgroups::CgroupMode::kV2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
  }
  n.rlimits.cap_sys_resource = false;
  n.rlimits.hard_limits = {{"nofile", 20000}, {"core", kubelet::kRlimInfinity},
                           {"memlock", 8u << 20}};
  n.rlimits.nr_open = 1048576;
  n.rlimits.rlimit_holder = kubelet::RlimitHolder::kRuncWrapper;
  return n;
}

Result<CreatePlan> Plan(const std::string& annotations, const NodeFacts& node,
                        const std::string& cgroups_path = "/kubepods/pod1/c1") {
  auto a = Annotations("{" + annotations + "}");
  auto req = ReadBundleRequest(&a);
  if (!req) return std::unexpected(req.error());
  auto spec = ParseJsonValue(R"({"linux":{"cgroupsPath":")" + cgroups_path + R"("}})");
  return PlanCreate(*req, spec, node, WrapperConfig{});
}

TEST(CreatePlanTest, UlimitsWithinTheCeilings) {
  auto plan = Plan(std::string(kContainerd) +
                       R"(,"ulimits.noderesource.dev/container.app":)"
                       R"("[{type: nofile, soft: -1, hard: -1}, {type: core, soft: -1, hard: -1}, )"
                       R"({type: memlock, soft: -5, hard: 4096}]")",
                   Node(cgroups::CgroupMode::kHybrid, false));
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_THAT(plan->edits.rlimits,
              ElementsAre(kubelet::GrantedUlimit{"nofile", 20000, 20000},
                          kubelet::GrantedUlimit{"core", kubelet::kRlimInfinity,
                                                 kubelet::kRlimInfinity},
                          kubelet::GrantedUlimit{"memlock", 0, 4096}));
  EXPECT_THAT(plan->warnings,
              ElementsAre("securityContext.ulimits[2].soft: negative values other than -1 are "
                          "treated as 0 by the node (got -5)",
                          "UlimitClamped: container \"app\": ulimit nofile -1 (unlimited) granted "
                          "as 20000, this node's ceiling: this node cannot raise a hard rlimit "
                          "above its own: the container runtime that runs podlimits-runc lacks "
                          "CAP_SYS_RESOURCE"));
  EXPECT_FALSE(plan->pod_cgroup);  // no pid limit, no writable container: the pod cgroup is untouched

  auto above = Plan(std::string(kContainerd) +
                        R"(,"ulimits.noderesource.dev/container.app":"[{type: nofile, soft: 1, hard: 30000}]")",
                    Node(cgroups::CgroupMode::kV2, true));
  ASSERT_FALSE(above);
  EXPECT_THAT(above.error().Message(),
              HasSubstr("container \"app\" of pod default/web: spec.containers[0].securityContext."
                        "ulimits[0].hard: container \"app\" asks nofile 30000, above this node's "
                        "ceiling 20000"));
}

TEST(CreatePlanTest, DefaultUlimitsFillWhatTheContainerLeavesOut) {
  WrapperConfig config;
  config.source = "/etc/podlimits/runc.yaml";
  config.default_ulimits = {{"nofile", 4096, 8192}, {"core", -1, -1}};
  auto plan_with = [&](const std::string& annotations, const NodeFacts& node) {
    auto a = Annotations("{" + annotations + "}");
    auto req = ReadBundleRequest(&a);
    EXPECT_TRUE(req) << req.error();
    return PlanCreate(*req, PodCgroupLocation{"/kubepods/pod1/c1", {}}, node, config);
  };
  const NodeFacts node = Node(cgroups::CgroupMode::kV2, true);

  auto none = plan_with(kContainerd, node);
  ASSERT_TRUE(none) << none.error();
  EXPECT_THAT(none->edits.rlimits,
              ElementsAre(kubelet::GrantedUlimit{"nofile", 4096, 8192},
                          kubelet::GrantedUlimit{"core", kubelet::kRlimInfinity,
                                                 kubelet::kRlimInfinity}));

  auto own = plan_with(std::string(kContainerd) +
                           R"(,"ulimits.noderesource.dev/container.app":"[{type: nofile, soft: 100, hard: 200}]")",
                       node);
  ASSERT_TRUE(own) << own.error();
  EXPECT_THAT(own->edits.rlimits,
              ElementsAre(kubelet::GrantedUlimit{"nofile", 100, 200},
                          kubelet::GrantedUlimit{"core", kubelet::kRlimInfinity,
                                                 kubelet::kRlimInfinity}));

  auto sandbox = plan_with(kSandbox, node);
  ASSERT_TRUE(sandbox) << sandbox.error();
  EXPECT_TRUE(sandbox->edits.rlimits.empty());

  config.default_ulimits = {{"nofile", 30000, 30000}};  // the node's own hard limit is 20000
  auto above = plan_with(kContainerd, node);
  ASSERT_FALSE(above);
  EXPECT_THAT(above.error().Message(),
              HasSubstr("container \"app\" of pod default/web: defaultUlimits of "
                        "/etc/podlimits/runc.yaml: "));
  EXPECT_THAT(above.error().Message(), HasSubstr("asks nofile 30000, above this node's ceiling 20000"));
}

TEST(CreatePlanTest, PidLimitNeedsCgroupV2) {
  const std::string pid = std::string(kSandbox) + R"(,"podlimits.dev/pod-pid-limit":"2048")";
  for (auto mode : {cgroups::CgroupMode::kV1, cgroups::CgroupMode::kHybrid}) {
    auto refused = Plan(pid, Node(mode, false));
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().Message(),
              "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod web "
              "specifies spec.resources.limits.pid");
  }
  auto plan = Plan(pid, Node(cgroups::CgroupMode::kV2, false));
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->pod_cgroup, "/kubepods/pod1");
  EXPECT_EQ(plan->pod_limits.pids_max, 2048);
  EXPECT_FALSE(plan->pod_limits.max_descendants);

  auto unreadable = Plan(pid, Node(std::nullopt, false));
  ASSERT_FALSE(unreadable);
  EXPECT_THAT(unreadable.error().Message(),
              HasSubstr("pod default/web: this node's cgroup layout could not be read"));

  auto nowhere = Plan(pid, Node(cgroups::CgroupMode::kV2, false), "/c1");
  ASSERT_FALSE(nowhere);
  EXPECT_THAT(nowhere.error().Message(), HasSubstr("pod default/web: linux.cgroupsPath \"/c1\" "
                                                   "has no pod cgroup above the container"));
}

TEST(CreatePlanTest, WritableNeedsV2AndNsdelegate) {
  const std::string writable =
      std::string(kContainerd) + R"(,"podlimits.dev/writable-cgroups.container.app":"true")";
  auto v1 = Plan(writable, Node(cgroups::CgroupMode::kHybrid, false));
  ASSERT_FALSE(v1);
  EXPECT_EQ(v1.error().Message(), "container \"app\" of pod default/web: "
                                  "CgroupOptions.MountMode=Writable requires cgroup v2");
  auto no_ns = Plan(writable, Node(cgroups::CgroupMode::kV2, false));
  ASSERT_FALSE(no_ns);
  EXPECT_THAT(no_ns.error().Message(),
              HasSubstr("requires the cgroup2 filesystem to be mounted with nsdelegate"));
  auto plan = Plan(writable, Node(cgroups::CgroupMode::kV2, true));
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_TRUE(plan->edits.writable_cgroup);
  EXPECT_EQ(plan->pod_limits.max_descendants, 250);
  EXPECT_EQ(plan->pod_limits.max_depth, 50);

  auto sandbox = Plan(std::string(kSandbox) +
                          R"(,"podlimits.dev/writable-cgroups.container.app":"true")",
                      Node(cgroups::CgroupMode::kV2, true));
  ASSERT_TRUE(sandbox) << sandbox.error();
  EXPECT_FALSE(sandbox->edits.writable_cgroup);  // the pause container's own mount stays ro
  EXPECT_EQ(sandbox->pod_limits.max_descendants, 250);
}

// --- the log --------------------------------------------------------------------------------------

TEST(RuntimeLogTest, JsonAsTheShimReadsItAndLogrusText) {
  RuntimeLog json(std::nullopt, "json");
  EXPECT_EQ(json.Line("error", "a \"b\"", "2026-11-26T00:00:00Z"),
            R"({"level":"error","msg":"a \"b\"","time":"2026-11-26T00:00:00Z"})");
  RuntimeLog text(std::nullopt, "text");
  EXPECT_EQ(text.Line("info", "a b", "2026-11-26T00:00:00Z"),
            R"(time="2026-11-26T00:00:00Z" level=info msg="a b")");
}

// --- the node's feature labels ----------------------------------------------------------------

TEST(NodeFeatureLabelsTest, WhatEachNodeDeclares) {
  auto layout = [](cgroups::CgroupMode mode, bool nsdelegate, std::vector<std::string> ctrls) {
    cgroups::CgroupLayout l;
    l.mode = mode;
    if (mode != cgroups::CgroupMode::kV1) {
      l.unified = cgroups::UnifiedMount{"/sys/fs/cgroup", "/", {}, nsdelegate};
      l.unified_controllers = std::move(ctrls);
    }
    return l;
  };
  const std::string u = "feature.podlimits.dev/ContainerUlimits";
  const std::string p = "feature.podlimits.dev/PerPodPIDLimit";
  const std::string c = "feature.podlimits.dev/SupportsCgroupOptions";
  using Labels = std::map<std::string, std::optional<std::string>>;
  auto hybrid = layout(cgroups::CgroupMode::kHybrid, false, {});
  EXPECT_EQ(NodeFeatureLabels(&hybrid), (Labels{{u, "true"}, {p, std::nullopt}, {c, std::nullopt}}));
  auto v2 = layout(cgroups::CgroupMode::kV2, false, {"cpu", "pids"});
  EXPECT_EQ(NodeFeatureLabels(&v2), (Labels{{u, "true"}, {p, "true"}, {c, std::nullopt}}));
  auto v2ns = layout(cgroups::CgroupMode::kV2, true, {"pids"});
  EXPECT_EQ(NodeFeatureLabels(&v2ns), (Labels{{u, "true"}, {p, "true"}, {c, "true"}}));
  auto no_pids = layout(cgroups::CgroupMode::kV2, true, {"cpu"});
  EXPECT_EQ(NodeFeatureLabels(&no_pids), (Labels{{u, "true"}, {p, std::nullopt}, {c, "true"}}));
  EXPECT_EQ(NodeFeatureLabels(nullptr), (Labels{{u, "true"}, {p, std::nullopt}, {c, std::nullopt}}));
  EXPECT_EQ(LabelsMergePatch(NodeFeatureLabels(&v2)),
            R"({"metadata":{"labels":{"feature.podlimits.dev/ContainerUlimits":"true",)"
            R"("feature.podlimits.dev/PerPodPIDLimit":"true",)"
            R"("feature.podlimits.dev/SupportsCgroupOptions":null}}})");
}

}  // namespace
}  // namespace podlimits::runcwrap
