// `podlimits run` end to end on this machine, as root: the real binary, a real OCI runtime, the
// busybox image, the hierarchy that has the pids controller (v1's pids hierarchy on a v1 or
// hybrid host, the unified tree on a v2 host). Every test checks that nothing is left behind: no
// cgroup in that hierarchy, nothing ever in a v1 memory hierarchy, no mount, no state directory.
// What a test expects of the host (its cgroup mode, nsdelegate, root's capabilities and hard
// rlimits, fs.nr_open) is read from the host, never assumed.
//
// PODLIMITS_BIN names another podlimits binary and PODLIMITS_TEST_OCI_LAYOUT a prebuilt busybox
// OCI layout (the VM suite runs these tests so, without bash).
#include <gtest/gtest.h>

#include "cri/apparmor.h"
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <sys/resource.h>

#include "cgroups/detect.h"
#include "cri/kernel_limits.h"
#include "run_test_support.h"

namespace podlimits::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kMemoryRoot = "/sys/fs/cgroup/memory";

const fs::path kBinary = PodlimitsBinary();

// What the tests expect of this host, read from it.
struct Host {
  bool v2 = false;          // a pure cgroup v2 host
  bool nsdelegate = false;  // its cgroup2 mount has nsdelegate
  fs::path pids_root;       // the hierarchy root with the pids controller; empty if none
  bool cap_sys_resource = false;
  rlim_t memlock_hard = RLIM_INFINITY, nofile_hard = RLIM_INFINITY;
  rlim_t nr_open = 1048576;

  static const Host& Get() {
    static const Host host = [] {
      Host h;
      auto layout = cgroups::DetectLayout();
      if (layout) {
        h.v2 = layout->mode == cgroups::CgroupMode::kV2;
        if (h.v2 && layout->unified && layout->UnifiedHas("pids")) {
          h.pids_root = layout->unified->mount_point;
          h.nsdelegate = layout->unified->nsdelegate;
        } else if (const auto* v1 = layout->V1For("pids")) {
          h.pids_root = v1->mount_point;
        }
      }
      std::ifstream status("/proc/self/status");
      std::stringstream text;
      text << status.rdbuf();
      h.cap_sys_resource = cri::HasCapSysResource(text.str());
      rlimit rl{};
      if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) h.memlock_hard = rl.rlim_max;
      if (getrlimit(RLIMIT_NOFILE, &rl) == 0) h.nofile_hard = rl.rlim_max;
      if (auto n = cri::ReadNrOpen()) h.nr_open = static_cast<rlim_t>(*n);
      return h;
    }();
    return host;
  }
};

// As /proc/<pid>/limits prints a value.
std::string LimitText(rlim_t v) { return v == RLIM_INFINITY ? "unlimited" : std::to_string(v); }

std::string ReadText(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The mounts of this mount namespace without the per-mount ids, which change with every mount.
std::string MountsSummary() {
  std::string out;
  std::istringstream in(ReadText("/proc/self/mountinfo"));
  for (std::string line; std::getline(in, line);) {
    if (line.find("podlimits") != std::string::npos) out += line + "\n";
  }
  return out;
}

class RunPodTest : public ::testing::Test {
 protected:
  static const fs::path& PidsRoot() { return Host::Get().pids_root; }

  static void SetUpTestSuite() {
    if (geteuid() != 0 || Host::Get().pids_root.empty()) return;
    const char* layout = std::getenv("PODLIMITS_TEST_OCI_LAYOUT");
    if ((layout == nullptr || !*layout) && !fs::exists("/bin/busybox")) return;
    scratch_ = new fs::path(fs::temp_directory_path() /
                            ("podlimits-run-test-" + std::to_string(getpid())));
    fs::create_directories(*scratch_);
    ASSERT_EQ(LoadBusyboxImage(*scratch_, *scratch_ / "images"), "");
  }
  static void TearDownTestSuite() {
    if (!scratch_) return;
    std::error_code ec;
    fs::remove_all(*scratch_, ec);
    delete scratch_;
    scratch_ = nullptr;
  }

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (cgroups, mounts, an OCI runtime)";
    if (!scratch_) GTEST_SKIP() << "busybox-static or a hierarchy with the pids controller is missing";
    pids_before_ = DirectoriesBelow(PidsRoot());
    memory_before_ = DirectoriesBelow(kMemoryRoot);
    mounts_before_ = MountsSummary();
  }

  void TearDown() override {
    if (IsSkipped()) return;
    // Nothing left: the pids tree as it was (other sessions' cgroups aside, ours are named by
    // kubepods), nothing new under memory, no mount, no pod state.
    for (const auto& d : DirectoriesBelow(PidsRoot())) {
      if (!pids_before_.count(d)) ADD_FAILURE() << "cgroup left behind: " << PidsRoot() / d;
    }
    for (const auto& d : DirectoriesBelow(kMemoryRoot)) {
      if (d.find("kubepods") != std::string::npos) ADD_FAILURE() << "memory cgroup created: " << d;
    }
    EXPECT_EQ(MountsSummary(), mounts_before_);
    std::error_code ec;
    fs::path pods = *scratch_ / "state/pods";
    if (fs::exists(pods)) {
      EXPECT_TRUE(fs::is_empty(pods, ec)) << "pod state left in " << pods;
    }
  }

  // Writes `yaml` and a node config (KubeletConfiguration text + the scratch state directory)
  // and runs the pod.
  CommandResult Run(const std::string& yaml, const std::string& kubelet = "",
                    const std::string& runtime = "crun", std::vector<std::string> extra = {},
                    RunOptions options = {}) {
    fs::path pod = *scratch_ / "pod.yaml";
    std::ofstream(pod) << yaml;
    fs::path node = *scratch_ / "node.yaml";
    std::ofstream(node) << "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                        << kubelet
                        << "---\napiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\n"
                        << "runtime: {name: " << runtime
                        << "}\nstateDirectory: " << (*scratch_ / "state").string() << "\n"
                        << node_configuration_extra_;
    std::vector<std::string> argv = {
        kBinary.string(), "run",         "-f",           pod.string(),
        "--node-config",  node.string(), "--image-root", (*scratch_ / "images").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, options);
  }

  static fs::path* scratch_;
  std::string node_configuration_extra_;  // more NodeConfiguration fields, for one test
  std::set<std::string> pids_before_, memory_before_;
  std::string mounts_before_;
};

fs::path* RunPodTest::scratch_ = nullptr;

std::string Pod(const std::string& containers, const std::string& extra_spec = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n  restartPolicy: Never\n"
         "  terminationGracePeriodSeconds: 2\n" +
         extra_spec + "  containers:\n" + containers;
}

const char* kUlimitContainer = R"(  - name: app
    image: busybox:latest
    command: [cat, /proc/self/limits]
    securityContext:
      ulimits:
      - {name: nofile, soft: 256, hard: 512}
      - {name: core, soft: 0, hard: -1}
      - {name: memlock, soft: 4096, hard: -1}
      - {name: stack, soft: 1048576, hard: 8388608}
)";

// The soft and hard columns of a /proc/<pid>/limits row, as printed.
std::string Row(const std::string& out, const std::string& name) {
  for (const auto& line : LinesWith(out, name)) {
    std::istringstream in(line.substr(line.find(name) + name.size()));
    std::string soft, hard;
    in >> soft >> hard;
    return soft + " " + hard;
  }
  return "<no row " + name + ">";
}

void CheckUlimits(const CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Row(r.out, "Max open files"), "256 512") << r.out;
  EXPECT_EQ(Row(r.out, "Max core file size"), "0 unlimited") << r.out;
  // -1 for memlock: unlimited where root has CAP_SYS_RESOURCE; else root's own hard limit,
  // this node's ceiling, with a Warning.
  const Host& host = Host::Get();
  const bool clamped = !host.cap_sys_resource && host.memlock_hard != RLIM_INFINITY;
  const rlim_t memlock_hard = clamped ? host.memlock_hard : RLIM_INFINITY;
  EXPECT_EQ(Row(r.out, "Max locked memory"), "4096 " + LimitText(memlock_hard)) << r.out;
  EXPECT_EQ(Row(r.out, "Max stack size"), "1048576 8388608") << r.out;
  EXPECT_EQ(LinesWith(r.err, "UlimitClamped").empty(), !clamped) << r.err;
  EXPECT_FALSE(LinesWith(r.out, "[app] ").empty()) << "output is prefixed: " << r.out;
}

TEST_F(RunPodTest, UlimitsVisibleInProcLimitsWithCrun) {
  CheckUlimits(Run(Pod(kUlimitContainer)));
}

// runc 1.1 on cgroup v1 needs the devices hierarchy, which podlimits does not manage there (and
// may not touch on these machines): a clear error before anything is created. On v2 it runs.
TEST_F(RunPodTest, RuncRunsOnV2AndIsRefusedUpFrontWithoutTheDevicesHierarchy) {
  auto r = Run(Pod(kUlimitContainer), "", "runc");
  if (Host::Get().v2) {
    CheckUlimits(r);
    return;
  }
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("runc on a cgroup hybrid node needs the devices hierarchy for its device "
                       "rules, and podlimits manages only the pids hierarchy there: use crun"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Created container"), std::string::npos) << r.err;
}

TEST_F(RunPodTest, JsonStatusReportsRlimitsAndCgroup) {
  auto r = Run(Pod(kUlimitContainer), "podPidsLimit: 100\n", "crun", {"-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // stdout is only the status; the container's lines went to stderr.
  EXPECT_EQ(r.out.front(), '{') << r.out;
  EXPECT_NE(r.err.find("[app] Max open files"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"kind\": \"PodRunStatus\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"phase\": \"Succeeded\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"pidsMax\": 100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"qosClass\": \"BestEffort\""), std::string::npos) << r.out;
  std::regex nofile(R"re("nofile": \{\s*"soft": 256,\s*"hard": 512\s*\})re");
  EXPECT_TRUE(std::regex_search(r.out, nofile)) << r.out;
  std::regex path(R"re("path": "/kubepods/besteffort/pod[0-9a-f-]{36}")re");
  EXPECT_TRUE(std::regex_search(r.out, path)) << r.out;
}

// One descriptor above this node's nofile ceiling: fs.nr_open where root may raise its hard
// limits, else root's own hard limit. Where that ceiling is the API's own maximum (1048576),
// the API refuses the value before the node sees it.
TEST_F(RunPodTest, UlimitAboveCeilingRejectedBeforeAnythingIsCreated) {
  const Host& host = Host::Get();
  const bool own = !host.cap_sys_resource && host.nofile_hard < host.nr_open;
  const rlim_t ceiling = own ? host.nofile_hard : host.nr_open;
  const std::string above = std::to_string(ceiling + 1);
  auto r = Run(Pod("  - name: app\n    image: busybox:latest\n    securityContext:\n"
                   "      ulimits: [{name: nofile, soft: " + above + ", hard: " + above + "}]\n"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  if (ceiling >= 1048576) {
    EXPECT_NE(r.err.find("ulimits[0].hard: Invalid value: " + above +
                         ": must be less than or equal to 1048576 (or -1 for unlimited)"),
              std::string::npos)
        << r.err;
    return;
  }
  EXPECT_NE(r.err.find("UlimitExceedsNodeCeiling"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("above this node's ceiling " + std::to_string(ceiling)), std::string::npos)
      << "names the ceiling: " << r.err;
  EXPECT_NE(r.err.find(own ? "CAP_SYS_RESOURCE" : "nr_open"), std::string::npos)
      << "says why: " << r.err;
  EXPECT_EQ(r.err.find("Operation not permitted"), std::string::npos) << r.err;
}

// A field the node would not apply refuses the pod before anything exists: the fixture's
// TearDown checks that no cgroup, mount or pod state was left.
TEST_F(RunPodTest, UnsupportedFieldRefusedBeforeAnythingIsCreated) {
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [sh, -c, 'echo hi > /data/written']
    volumeMounts: [{name: data, mountPath: /data}]
)",
                   "  volumes:\n  - name: data\n    nfs: {server: nfs.example, path: /x}\n"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("error: pod \"t\" rejected by the node: spec.volumes[0].nfs: not "
                       "supported by this node"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("UnsupportedPodField"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Created container"), std::string::npos) << r.out;
}

// runAsNonRoot is the kubelet's check: busybox runs as root, so the container is never created.
TEST_F(RunPodTest, RunAsNonRootWithARootImageIsACreateContainerConfigError) {
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [id]
    securityContext: {runAsNonRoot: true}
)"),
               "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Error: container has runAsNonRoot and image will run as root (pod: "
                       "\"t_default("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("\"reason\": \"CreateContainerConfigError\""), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("Created container"), std::string::npos) << r.err;
}

// RuntimeDefault is Debian's containers-common profile; the pod's profile is inherited, a
// container's own wins, and the filter is read back into the status.
TEST_F(RunPodTest, SeccompRuntimeDefaultIsInstalledAndReadBack) {
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [sh, -c, 'grep "^Seccomp:" /proc/1/status']
  - name: open
    image: busybox:latest
    command: [sh, -c, 'grep "^Seccomp:" /proc/1/status']
    securityContext: {seccompProfile: {type: Unconfined}}
)",
                   "  securityContext: {seccompProfile: {type: RuntimeDefault}}\n"),
               "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[app] Seccomp:\t2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[open] Seccomp:\t0"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"seccomp\": \"filter\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"seccomp\": \"disabled\""), std::string::npos) << r.out;
}

// A Localhost profile from the node's profile root is what the container runs under: mkdir
// fails with the errno the profile names.
TEST_F(RunPodTest, SeccompLocalhostProfileFiltersTheContainer) {
  const fs::path root = *scratch_ / "seccomp";
  fs::create_directories(root);
  std::ofstream(root / "deny-mkdir.json")
      << R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]})";
  node_configuration_extra_ = "seccomp: {profileRoot: " + root.string() + "}\n";
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [sh, -c, 'mkdir /tmp/x; echo "mkdir=$?"; touch /tmp/y && echo touched']
    securityContext: {seccompProfile: {type: Localhost, localhostProfile: deny-mkdir.json}}
)"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Permission denied"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] mkdir=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] touched"), std::string::npos) << r.out;

  // A profile that is not there fails the container as the kubelet's CreateContainerError,
  // before anything of it exists (TearDown checks nothing is left).
  auto missing = Run(Pod(R"(  - name: app
    image: busybox:latest
    securityContext: {seccompProfile: {type: Localhost, localhostProfile: nope.json}}
)"),
                     "", "crun", {"-o", "json"});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("Error: failed to generate seccomp spec opts: cannot load seccomp "
                             "profile \"" +
                             (root / "nope.json").string() + "\""),
            std::string::npos)
      << missing.err;
  EXPECT_NE(missing.out.find("\"reason\": \"CreateContainerError\""), std::string::npos)
      << missing.out;
}

// emptyDir on disk and in memory (tmpfs of sizeLimit), hostPath with DirectoryOrCreate,
// subPathExpr, readOnly: what the container writes to the host path stays after the pod.
TEST_F(RunPodTest, VolumesAreMountedAsDeclared) {
  const fs::path host = *scratch_ / "host-data";
  fs::remove_all(host);
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    env: [{name: SUB, value: logs}]
    volumeMounts:
    - {name: scratch, mountPath: /scratch}
    - {name: mem, mountPath: /mem}
    - {name: host, mountPath: /host}
    - {name: host, mountPath: /sub, subPathExpr: $(SUB)}
    - {name: host, mountPath: /ro, readOnly: true}
    command:
    - sh
    - -c
    - |
      echo kept > /host/kept; echo in-sub > /sub/file
      touch /ro/x 2>/dev/null || echo ro-refused
      echo scratch=$(stat -c %a /scratch)
      echo mem=$(grep " /mem " /proc/mounts | cut -d" " -f3)
      dd if=/dev/zero of=/mem/fill bs=1024 count=4096 2>/dev/null || echo mem-full=$(du -k /mem/fill | cut -f1)
)",
                   "  volumes:\n  - {name: scratch, emptyDir: {}}\n"
                   "  - {name: mem, emptyDir: {medium: Memory, sizeLimit: 1Mi}}\n"
                   "  - name: host\n    hostPath: {path: " + host.string() +
                       ", type: DirectoryOrCreate}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[app] ro-refused"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] scratch=777"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] mem=tmpfs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] mem-full=1024"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(host / "kept"));
  EXPECT_TRUE(fs::exists(host / "logs/file"));
  fs::remove_all(host);
}

// A hostPath type check that fails is the pod's FailedMount, with the kubelet's message; a
// subPath through a symlink is refused and cannot reach outside its volume.
TEST_F(RunPodTest, VolumeFailuresAreThePods) {
  auto r = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [\"true\"]}\n",
                   "  volumes:\n  - {name: h, hostPath: {path: /etc/hostname, type: Directory}}\n"),
               "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("FailedMount  MountVolume.SetUp failed for volume \"h\" : hostPath type "
                       "check failed: /etc/hostname is not a directory"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("\"reason\": \"FailedMount\""), std::string::npos) << r.out;

  const fs::path host = *scratch_ / "host-link";
  fs::remove_all(host);
  fs::create_directories(host);
  fs::create_symlink("/etc", host / "escape");
  auto sub = Run(Pod(R"(  - name: app
    image: busybox:latest
    volumeMounts: [{name: h, mountPath: /x, subPath: escape}]
    command: [ls, /x]
)",
                     "  volumes:\n  - name: h\n    hostPath: {path: " + host.string() + "}\n"));
  EXPECT_EQ(sub.exit_code, 1) << sub.err;
  EXPECT_NE(sub.err.find("a subPath may not pass through a symlink"), std::string::npos)
      << sub.err;
  EXPECT_EQ(sub.out.find("passwd"), std::string::npos) << sub.out;
  fs::remove_all(host);
}

// ConfigMaps and Secrets of the input stream reach the pod through env, envFrom and
// configMap/secret/downwardAPI/projected volumes: read-only, secrets on tmpfs, the kubelet's
// ..data layout (so a subPath of a key works through its symlink), fsGroup applied; a missing
// object is the container's CreateContainerConfigError with the kubelet's words.
TEST_F(RunPodTest, ConfigMapsAndSecretsReachThePod) {
  const std::string objects =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n"
      "data: {greeting: hello, app.conf: port=8080}\n---\n"
      "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: s3cret}\n"
      "---\n";
  auto r = Run(objects + Pod(R"(  - name: app
    image: busybox:latest
    env:
    - {name: PW, valueFrom: {secretKeyRef: {name: creds, key: password}}}
    envFrom: [{prefix: CFG_, configMapRef: {name: app}}]
    volumeMounts:
    - {name: config, mountPath: /config}
    - {name: secret, mountPath: /secret}
    - {name: info, mountPath: /info}
    - {name: all, mountPath: /all}
    - {name: config, mountPath: /app.conf, subPath: app.conf}
    command:
    - sh
    - -c
    - |
      echo env=$CFG_greeting/$PW
      echo config=$(cat /config/greeting) data=$(readlink /config/..data | cut -c1-7)
      echo secret=$(cat /secret/password) fs=$(grep " /secret " /proc/mounts | cut -d" " -f3)
      echo mode=$(stat -c '%a %g' /secret/..data/password)
      echo info=$(cat /info/name) all=$(cat /all/g)/$(cat /all/p)
      echo sub=$(cat /app.conf)
      touch /config/x 2>/dev/null || echo config-ro
)",
                                 "  securityContext: {fsGroup: 3000}\n"
                                 "  volumes:\n  - {name: config, configMap: {name: app}}\n"
                                 "  - {name: secret, secret: {secretName: creds, defaultMode: 0400}}\n"
                                 "  - name: info\n    downwardAPI: {items: [{path: name, fieldRef: "
                                 "{fieldPath: metadata.name}}]}\n"
                                 "  - name: all\n    projected:\n      sources:\n"
                                 "      - configMap: {name: app, items: [{key: greeting, path: g}]}\n"
                                 "      - secret: {name: creds, items: [{key: password, path: p}]}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {"[app] env=hello/s3cret", "[app] config=hello data=..20",
                           "[app] secret=s3cret fs=tmpfs", "[app] mode=440 3000",
                           "[app] info=t all=hello/s3cret", "[app] sub=port=8080",
                           "[app] config-ro"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }

  auto missing = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: ["true"]
    env: [{name: X, valueFrom: {configMapKeyRef: {name: absent, key: k}}}]
)"));
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("Failed  Error: configmap \"absent\" not found"), std::string::npos)
      << missing.err;
}

// Probes and hooks against a real container: tcpSocket and httpGet inside the pod's network
// namespace (by port number and by name), exec through the runtime (on a v1 host crun's exec
// gets its cgroup view), the kubelet's events; a failing liveness probe kills the container
// after its preStop hook.
TEST_F(RunPodTest, ProbesAndHooksRunAgainstTheContainer) {
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [sh, -c, "mkdir -p /www && echo ok > /www/index.html && httpd -p 8080 -h /www && sleep 3 && cat /tmp/hook"]
    ports: [{name: web, containerPort: 8080}]
    startupProbe: {tcpSocket: {port: web}, periodSeconds: 1, failureThreshold: 5}
    readinessProbe: {httpGet: {path: /missing, port: 8080}, periodSeconds: 1}
    livenessProbe: {httpGet: {path: /, port: web}, periodSeconds: 1}
    lifecycle:
      postStart: {exec: {command: [sh, -c, "echo from-poststart > /tmp/hook"]}}
)"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[app] from-poststart"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Unhealthy  Readiness probe failed: HTTP probe failed with statuscode: 404"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Liveness probe failed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("FailedPostStartHook"), std::string::npos) << r.err;

  auto killed = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [sh, -c, "trap 'echo got-term; exit 7' TERM; while true; do sleep 0.1; done"]
    livenessProbe: {exec: {command: [sh, -c, "echo sick; exit 1"]}, failureThreshold: 1}
    lifecycle:
      preStop: {exec: {command: [sh, -c, "echo from-prestop > /proc/1/fd/1"]}}
)"));
  EXPECT_EQ(killed.exit_code, 1) << killed.err;
  EXPECT_NE(killed.err.find("Unhealthy  Liveness probe failed: sick"), std::string::npos)
      << killed.err;
  EXPECT_NE(killed.err.find("Killing  Container app failed liveness probe\n"), std::string::npos)
      << killed.err;
  const auto prestop = killed.out.find("[app] from-prestop");
  const auto term = killed.out.find("[app] got-term");
  ASSERT_NE(prestop, std::string::npos) << killed.out;
  ASSERT_NE(term, std::string::npos) << killed.out;
  EXPECT_LT(prestop, term);
}

// The termination message: what the container wrote to its terminationMessagePath, or with
// FallbackToLogsOnError the end of its output when it failed without writing one.
TEST_F(RunPodTest, TerminationMessagesReachTheStatus) {
  auto r = Run(Pod(R"(  - name: file
    image: busybox:latest
    command: [sh, -c, "echo -n 'disk full' > /dev/termination-log; exit 3"]
  - name: logs
    image: busybox:latest
    terminationMessagePolicy: FallbackToLogsOnError
    command: [sh, -c, "echo first; echo last words; exit 4"]
  - name: custom
    image: busybox:latest
    terminationMessagePath: /tmp/why
    command: [sh, -c, "echo -n done > /tmp/why"]
)"),
               "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("\"message\": \"disk full\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"message\": \"first\\nlast words\\n\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"message\": \"done\""), std::string::npos) << r.out;
}

// The pod's sysctls are set in its sandbox's namespaces, not the node's; one outside the safe
// set needs allowedUnsafeSysctls, else the kubelet's SysctlForbidden refuses the pod.
TEST_F(RunPodTest, SysctlsAreSetInThePodsNamespaces) {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  std::string host_range((std::istreambuf_iterator<char>(in)), {});
  auto r = Run(Pod(R"yaml(  - name: app
    image: busybox:latest
    command: [sh, -c, 'echo "range=$(cat /proc/sys/net/ipv4/ip_local_port_range)"; echo "somaxconn=$(cat /proc/sys/net/core/somaxconn)"']
)yaml",
                   "  securityContext:\n    sysctls:\n"
                   "    - {name: net.ipv4.ip_local_port_range, value: \"2000 3000\"}\n"
                   "    - {name: net.core.somaxconn, value: \"77\"}\n"),
               "allowedUnsafeSysctls: [net.core.somaxconn]\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[app] range=2000\t3000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] somaxconn=77"), std::string::npos) << r.out;
  std::ifstream again("/proc/sys/net/ipv4/ip_local_port_range");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), {}), host_range);

  auto refused = Run(Pod("  - {name: app, image: \"busybox:latest\"}\n",
                         "  securityContext:\n    sysctls: [{name: net.core.somaxconn, value: "
                         "\"77\"}]\n"));
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("SysctlForbidden  forbidden sysctl: \"net.core.somaxconn\" not "
                             "allowlisted"),
            std::string::npos)
      << refused.err;
}

// The kubelet's /etc/hosts, containerd's /etc/hostname and /etc/resolv.conf, as the node config's
// clusterDNS and clusterDomain and the pod's DNS fields make them.
TEST_F(RunPodTest, NameResolutionFilesAreThePods) {
  auto r = Run(Pod(R"yaml(  - name: app
    image: busybox:latest
    securityContext: {readOnlyRootFilesystem: true}
    command: [sh, -c, 'echo "uts=$(hostname) env=$HOSTNAME"; cat /etc/hostname /etc/hosts /etc/resolv.conf; echo >> /etc/hosts && echo hosts-rw; echo > /etc/resolv.conf || echo resolv-ro']
)yaml",
                   "  hostname: db-0\n  subdomain: db\n  setHostnameAsFQDN: true\n"
                   "  hostAliases: [{ip: 10.1.2.3, hostnames: [foo.local, bar]}]\n"
                   "  dnsConfig: {nameservers: [192.0.2.1], options: [{name: ndots, value: "
                   "\"2\"}]}\n"),
               "clusterDNS: [10.96.0.10]\nclusterDomain: cluster.local\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want : {
           "[app] uts=db-0.db.default.svc.cluster.local env=db-0.db.default.svc.cluster.local\n",
           "[app] db-0.db.default.svc.cluster.local\n[app] # Kubernetes-managed hosts file.\n",
           "[app] fe00::2\tip6-allrouters\n[app] \n[app] # Entries added by HostAliases.\n"
           "[app] 10.1.2.3\tfoo.local\tbar\n",
           "[app] search default.svc.cluster.local svc.cluster.local cluster.local\n"
           "[app] nameserver 10.96.0.10\n[app] nameserver 192.0.2.1\n[app] options ndots:2\n",
           "[app] hosts-rw\n",
           "[app] resolv-ro\n",
       }) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  EXPECT_EQ(r.err.find("MissingClusterDNS"), std::string::npos) << r.err;

  // Without clusterDNS the kubelet warns and uses the node's resolver.
  auto fallback = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [cat, "
                          "/etc/resolv.conf]}\n"));
  ASSERT_EQ(fallback.exit_code, 0) << fallback.err;
  EXPECT_NE(fallback.err.find("Warning  MissingClusterDNS  pod: \"t_default("), std::string::npos)
      << fallback.err;

  // An FQDN the kernel cannot hold: refused before anything is created.
  auto too_long = Run(Pod("  - {name: app, image: \"busybox:latest\"}\n",
                          "  hostname: " + std::string(50, 'h') +
                              "\n  subdomain: db\n  setHostnameAsFQDN: true\n"),
                      "clusterDomain: cluster.local\n");
  EXPECT_EQ(too_long.exit_code, 1) << too_long.err;
  EXPECT_NE(too_long.err.find("FailedCreatePodSandBox  Failed to create pod sandbox: failed to "
                              "construct FQDN from pod hostname and cluster domain, FQDN "),
            std::string::npos)
      << too_long.err;
  EXPECT_EQ(too_long.out.find("Created container"), std::string::npos) << too_long.out;
}

// AppArmor as far as this kernel has it: applied (the VM's Debian kernel) or refused with the
// kubelet's admission message (this project's hosts).
TEST_F(RunPodTest, AppArmorAppliedWhereTheKernelHasIt) {
  const cri::AppArmorHost host = cri::ProbeAppArmor();
  const std::string show =
      "command: [sh, -c, 'cat /proc/self/attr/apparmor/current 2>/dev/null || echo none']\n";
  auto plain = Run(Pod("  - name: app\n    image: busybox:latest\n    " + show));
  auto asked = Run(Pod("  - name: app\n    image: busybox:latest\n    " + show,
                       "  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n"));
  auto unconfined = Run(Pod("  - name: app\n    image: busybox:latest\n    " + show +
                            "    securityContext: {appArmorProfile: {type: Unconfined}}\n"));
  auto localhost = Run(Pod("  - name: app\n    image: busybox:latest\n    " + show +
                           "    securityContext: {appArmorProfile: {type: Localhost, "
                           "localhostProfile: podlimits-test-missing}}\n"));
  EXPECT_EQ(unconfined.exit_code, 0) << unconfined.err;
  if (!host.kernel_enabled) {
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    for (const auto* r : {&asked, &localhost}) {
      EXPECT_EQ(r->exit_code, 1) << r->err;
      EXPECT_NE(r->err.find("Warning  AppArmor  Cannot enforce AppArmor: AppArmor is not enabled "
                            "on the host"),
                std::string::npos)
          << r->err;
      EXPECT_EQ(r->out.find("Created container"), std::string::npos) << r->out;
    }
    return;
  }
  EXPECT_EQ(localhost.exit_code, 1) << localhost.err;
  EXPECT_NE(localhost.err.find("Cannot enforce AppArmor: profile \"podlimits-test-missing\" is "
                               "not loaded"),
            std::string::npos)
      << localhost.err;
  EXPECT_NE(unconfined.out.find("[app] unconfined"), std::string::npos) << unconfined.out;
  if (!host.CanLoadProfiles()) {
    EXPECT_EQ(asked.exit_code, 1) << asked.err;
    EXPECT_NE(asked.err.find("apparmor_parser is not installed"), std::string::npos) << asked.err;
    return;
  }
  for (const auto* r : {&plain, &asked}) {
    EXPECT_EQ(r->exit_code, 0) << r->err;
    EXPECT_NE(r->out.find("[app] podlimits-default (enforce)"), std::string::npos) << r->out;
  }
}

// tty: the container's stdout and stderr are a terminal the runtime made (its master comes back
// through the console socket), one stream of output.
TEST_F(RunPodTest, TtyGivesTheContainerATerminal) {
  auto r = Run(Pod(R"yaml(  - name: app
    image: busybox:latest
    tty: true
    command: [sh, -c, 'if [ -t 1 ] && [ -t 2 ]; then echo both-are-terminals; fi; tty; echo to-stderr >&2']
)yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[app] both-are-terminals\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] /dev/pts/0\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[app] to-stderr\r\n"), std::string::npos) << r.out;
}

TEST_F(RunPodTest, NodePodPidsLimitEnforced) {
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command:
    - sh
    - -c
    - |
      cat /proc/self/cgroup | grep pids
      sh -c 'n=0; while true; do sleep 30 & n=$((n+1)); echo $n > /tmp/n; done' 2>&1
      read n < /tmp/n
      echo "forked $n"
)"),
               "podPidsLimit: 10\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("can't fork: Resource temporarily unavailable"), std::string::npos) << r.out;
  // pids.max 10 on the pod cgroup: the sandbox's holder (as upstream's pause container), the
  // container's init sh, the forking sh and 7 sleeps.
  EXPECT_NE(r.out.find("[app] forked 7"), std::string::npos) << r.out;
}

// KEP-6063: the pod PID limit needs cgroup v2; on v1 and hybrid hosts the node refuses the pod
// with the kubelet's words.
TEST_F(RunPodTest, PodPidLimitAppliedOnV2RejectedOnV1) {
  auto r = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [\"true\"]}\n",
                   "  resources: {limits: {pid: \"2048\"}}\n"),
               "", "crun", {"-o", "json"});
  if (Host::Get().v2) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"pidsMax\": 2048"), std::string::npos) << r.out;
    return;
  }
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("FailedNodeDeclaredFeaturesCheck"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("per-pod PID limit requires cgroupsv2, but this node is running "
                       "cgroupsv1; pod t specifies spec.resources.limits.pid"),
            std::string::npos)
      << r.err;
}

// KEP-5474: a writable cgroup mount needs cgroup v2 mounted with nsdelegate.
TEST_F(RunPodTest, WritableCgroupNeedsV2WithNsdelegate) {
  auto r = Run(Pod(R"(  - name: app
    image: busybox:latest
    command: [sh, -c, 'mkdir /sys/fs/cgroup/child && echo made']
    securityContext: {cgroupOptions: {mountMode: Writable}}
)"));
  const Host& host = Host::Get();
  if (host.v2 && host.nsdelegate) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("[app] made"), std::string::npos) << r.out;
    return;
  }
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(host.v2 ? "CgroupOptions.MountMode=Writable requires the cgroup2 "
                                 "filesystem to be mounted with nsdelegate"
                               : "CgroupOptions.MountMode=Writable requires cgroup v2"),
            std::string::npos)
      << r.err;
}

TEST_F(RunPodTest, InitContainersRunInOrderBeforeApps) {
  auto r = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [echo, app]}\n",
                   "  initContainers:\n"
                   "  - {name: first, image: \"busybox:latest\", command: [echo, one]}\n"
                   "  - {name: second, image: \"busybox:latest\", command: [echo, two]}\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto one = r.out.find("[first] one"), two = r.out.find("[second] two"),
       app = r.out.find("[app] app");
  ASSERT_NE(one, std::string::npos) << r.out;
  ASSERT_NE(two, std::string::npos) << r.out;
  ASSERT_NE(app, std::string::npos) << r.out;
  EXPECT_LT(one, two);
  EXPECT_LT(two, app);
}

TEST_F(RunPodTest, FailingInitContainerFailsThePodUnderNever) {
  auto r =
      Run(Pod("  - {name: app, image: \"busybox:latest\", command: [echo, app]}\n",
              "  initContainers:\n"
              "  - {name: broken, image: \"busybox:latest\", command: [sh, -c, \"exit 3\"]}\n"),
          "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("[app] app"), std::string::npos) << "the app never ran: " << r.err;
  EXPECT_NE(r.out.find("\"exitCode\": 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"phase\": \"Failed\""), std::string::npos) << r.out;
}

TEST_F(RunPodTest, FailedContainerFailsThePod) {
  auto r = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [sh, -c, \"exit 7\"]}\n"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Failed"), std::string::npos) << r.err;
}

TEST_F(RunPodTest, MissingImageFailsBeforeAnythingIsCreated) {
  auto r = Run(Pod("  - {name: app, image: \"nosuch:1.0\"}\n"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("ErrImageNeverPull"), std::string::npos) << r.err;
}

TEST_F(RunPodTest, SigintStopsThePodAndTearsDown) {
  RunOptions options;
  options.interrupt_on = "Started container app";
  auto r = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [sleep, \"1000\"]}\n"), "",
               "crun", {}, options);
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Stopping container app"), std::string::npos) << r.err;
}

TEST_F(RunPodTest, OnFailureRestartsWithBackOff) {
  RunOptions options;
  options.interrupt_on = "Back-off restarting failed container app";
  auto r =
      Run("apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n  restartPolicy: OnFailure\n"
          "  terminationGracePeriodSeconds: 2\n  containers:\n"
          "  - {name: app, image: \"busybox:latest\", command: [sh, -c, \"echo try; exit 1\"]}\n",
          "", "crun", {"-o", "json"}, options);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // The first restart is immediate, the second waits: two tries before the BackOff.
  EXPECT_EQ(LinesWith(r.err, "[app] try").size(), 2u) << r.err;
  // Two runs are one restart (the kubelet's restartCount); the back-off's is still pending.
  EXPECT_NE(r.out.find("\"restarts\": 1"), std::string::npos) << r.out;
}

// A container whose command does not exist failed, as one that exited did (the kubelet's
// StartError, exit code 128): restartPolicy retries it, and the pod's failure is exit code 1, not
// a node failure.
TEST_F(RunPodTest, StartErrorIsTheContainersFailure) {
  const std::string never =
      "  - {name: app, image: \"busybox:latest\", command: [/no/such/binary]}\n";
  auto r = Run(Pod(never), "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("\"reason\": \"StartError\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"exitCode\": 128"), std::string::npos) << r.out;
  EXPECT_EQ(LinesWith(r.err, "Failed").empty(), false) << r.err;

  RunOptions options;
  options.interrupt_on = "Back-off restarting failed container app";
  r =
      Run("apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n  restartPolicy: OnFailure\n"
          "  terminationGracePeriodSeconds: 2\n  containers:\n" +
              never,
          "", "crun", {"-o", "json"}, options);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(LinesWith(r.err, "Error: ").size(), 2u) << r.err;  // tried twice before backing off
  EXPECT_NE(r.out.find("\"restarts\": 1"), std::string::npos) << r.out;
}

// Every stop signal tears the pod down as Ctrl-C does: a closed terminal (SIGHUP) or a closed
// output pipe (SIGPIPE) included.
TEST_F(RunPodTest, StopSignalsTearDown) {
  for (int sig : {SIGTERM, SIGHUP, SIGPIPE}) {
    SCOPED_TRACE(strsignal(sig));
    RunOptions options;
    options.interrupt_on = "Started container app";
    options.signal = sig;
    auto r = Run(Pod("  - {name: app, image: \"busybox:latest\", command: [sleep, \"1000\"]}\n"),
                 "", "crun", {}, options);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("Stopping container app"), std::string::npos) << r.err;
  }
}

// A hostPID container's background process outlives its init process and keeps its cgroup busy:
// teardown kills it through the cgroup before the runtime's delete, which would otherwise spin.
TEST_F(RunPodTest, HostPidStraysAreKilledAtTeardown) {
  const auto start = std::chrono::steady_clock::now();
  auto r =
      Run(Pod("  - {name: app, image: \"busybox:latest\", command: [sh, -c, \"sleep 1000 & "
              "echo started\"]}\n",
              "  hostPID: true\n"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(LinesWith(r.out, "[app] started").empty()) << r.out;
  // Under a second here; crun's delete alone takes over five on the busy cgroup.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4)) << r.err;
  EXPECT_EQ(r.err.find("error: teardown"), std::string::npos) << r.err;
}

// With -o json every outcome prints the status object, an API rejection too.
TEST_F(RunPodTest, JsonStatusForAnAdmissionRejection) {
  auto r = Run(Pod("  - name: app\n    image: busybox:latest\n    securityContext:\n"
                   "      ulimits: [{name: nofile, soft: 600, hard: 500}]\n"),
               "", "crun", {"-o", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("\"kind\": \"PodRunStatus\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"phase\": \"Failed\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"reason\": \"Invalid\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("must be less than or equal to hard limit 500"), std::string::npos) << r.out;
}

const char* kUid = "0a1b2c3d-0000-4000-8000-00000000c0de";

// Whether a process runs in `cgroup` or below it (a container's cgroup is the pod cgroup's child).
bool HasProcesses(const fs::path& cgroup) {
  if (!ReadText(cgroup / "cgroup.procs").empty()) return true;
  for (const auto& d : DirectoriesBelow(cgroup)) {
    if (!ReadText(cgroup / d / "cgroup.procs").empty()) return true;
  }
  return false;
}

std::string SleepingPod(const std::string& uid) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: t, uid: " + uid +
         "}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 2\n  containers:\n"
         "  - {name: app, image: \"busybox:latest\", command: [sleep, \"1000\"]}\n";
}

// A second run of a pod whose run is live is refused and touches nothing of the first.
TEST_F(RunPodTest, SecondRunOfALivePodIsRefused) {
  const fs::path pod_cgroup = PidsRoot() / "kubepods/besteffort" / (std::string("pod") + kUid);
  CommandResult second;
  bool cgroup_kept = false, state_kept = false;
  RunOptions options;
  options.interrupt_on = "Started container app";
  options.before_signal = [&](pid_t) {
    second = Run(SleepingPod(kUid), "", "crun", {"-o", "json"});
    cgroup_kept = HasProcesses(pod_cgroup);
    state_kept = fs::exists(*scratch_ / "state/pods" / kUid / "pod.json");
  };
  auto first = Run(SleepingPod(kUid), "", "crun", {}, options);
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_NE(second.err.find(std::string("pod uid \"") + kUid + "\" is in use by podlimits pid"),
            std::string::npos)
      << second.err;
  EXPECT_NE(second.out.find("\"reason\": \"PodUIDInUse\""), std::string::npos) << second.out;
  EXPECT_TRUE(cgroup_kept) << "the live pod's cgroup lost its processes";
  EXPECT_TRUE(state_kept) << "the live pod's state directory went";
  // The first run ends as it would have, tearing down its own pod.
  EXPECT_NE(first.err.find("Stopping container app"), std::string::npos) << first.err;
  EXPECT_EQ(first.err.find("error: teardown"), std::string::npos) << first.err;
}

// A run killed with SIGKILL leaves its container, cgroup and state behind; the next run cleans
// them up: its own uid's first, then any other whose run is gone.
TEST_F(RunPodTest, LeftoversOfAKilledRunAreCleanedUp) {
  const std::string other = "0a1b2c3d-0000-4000-8000-0000000000ff";
  RunOptions options;
  options.interrupt_on = "Started container app";
  options.signal = SIGKILL;
  options.timeout = std::chrono::seconds(30);
  auto kill_run = [&](const std::string& uid) {
    auto r = Run(SleepingPod(uid), "", "crun", {}, options);
    const fs::path pod_cgroup = PidsRoot() / "kubepods/besteffort" / ("pod" + uid);
    EXPECT_TRUE(HasProcesses(pod_cgroup)) << "nothing left behind to clean up: " << r.err;
    return r;
  };
  kill_run(other);
  // Another pod's run cleans up after the dead one, and leaves its own behind in turn.
  auto r = kill_run(kUid);
  EXPECT_NE(r.err.find("OrphanedPodCleanedUp  Pod t_default(" + other +
                       ") was left behind by "
                       "podlimits pid"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(PidsRoot() / "kubepods/besteffort" / ("pod" + other)));
  // A run of the same uid cleans up its predecessor's leftovers first.
  r = Run("apiVersion: v1\nkind: Pod\nmetadata: {name: t, uid: " + std::string(kUid) +
          "}\nspec:\n  restartPolicy: Never\n  containers:\n"
          "  - {name: app, image: \"busybox:latest\", command: [\"true\"]}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LinesWith(r.err, "OrphanedPodCleanedUp  Pod t_default(" + std::string(kUid)).size(), 1u)
      << r.err;
  // TearDown checks that no cgroup, mount or pod state is left.
}

}  // namespace
}  // namespace podlimits::testing
