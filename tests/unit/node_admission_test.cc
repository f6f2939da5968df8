#include "kubelet/lifecycle/node_admission.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace podlimits::kubelet {
namespace {

// A decoded, defaulted pod named "web" with `spec` below `spec:` (indented two spaces).
inline api::Pod PodWithSpec(std::string_view spec) {
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n";
  yaml += spec;
  return podlimits::testing::DefaultedPod(yaml);
}

using cgroups::CgroupMode;

constexpr std::string_view kNoCap =
    "this node cannot raise a hard rlimit above its own: the kubelet lacks CAP_SYS_RESOURCE";

// A node like this project's machines: hybrid cgroups, crun, root without CAP_SYS_RESOURCE and
// the hard limits measured there (environment.md §5).
NodeCapabilities HybridNoCap() {
  NodeCapabilities caps;
  caps.cgroup_mode = CgroupMode::kHybrid;
  caps.pids_controller = true;
  caps.runtime = {"crun", "/usr/bin/crun", "1.8.1", true, true, "", ""};
  caps.cap_sys_resource = false;
  caps.hard_limits = {{"core", kRlimInfinity}, {"memlock", 8388608}, {"nice", 0},
                      {"nofile", 20000},       {"rtprio", 0},        {"stack", kRlimInfinity}};
  caps.nr_open = 1048576;
  return caps;
}

// A pure cgroup v2 VM guest where root has every capability.
NodeCapabilities V2Root() {
  NodeCapabilities caps = HybridNoCap();
  caps.cgroup_mode = CgroupMode::kV2;
  caps.nsdelegate = true;
  caps.cap_sys_resource = true;
  return caps;
}

NodeCapabilities With(NodeCapabilities caps, const std::function<void(NodeCapabilities&)>& f) {
  f(caps);
  return caps;
}

validation::FeatureGates AllOn() {
  return {};
}

api::Pod Pod(std::string_view containers, std::string_view extra = "") {
  std::string spec = "  containers:\n" + std::string(containers) + std::string(extra);
  return PodWithSpec(spec);
}

constexpr std::string_view kPlain = "  - {name: app, image: busybox}\n";
constexpr std::string_view kPidLimit = "  resources: {limits: {pid: \"2048\"}}\n";
constexpr std::string_view kWritable =
    "  - {name: app, image: busybox, securityContext: {cgroupOptions: {mountMode: Writable}}}\n";
constexpr std::string_view kReadOnly =
    "  - {name: app, image: busybox, securityContext: {cgroupOptions: {mountMode: ReadOnly}}}\n";

std::string Ulimits(std::string_view list, std::string_view name = "app") {
  return "  - {name: " + std::string(name) + ", image: busybox, securityContext: {ulimits: [" +
         std::string(list) + "]}}\n";
}

struct Case {
  const char* name;
  api::Pod pod;
  NodeCapabilities caps;
  validation::FeatureGates gates = AllOn();
  std::string reason = "";   // "" : admitted
  std::string message = "";  // rejection message, or the single warning of an admitted pod
};

void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  AdmitResult r = AdmitPod(c.pod, DeclareFeatures(c.gates, c.caps), c.caps);
  if (!c.reason.empty()) {
    EXPECT_FALSE(r.admitted);
    EXPECT_EQ(r.reason, c.reason);
    EXPECT_EQ(r.message, c.message);
    EXPECT_EQ(r.RejectionEvent(), (Event{EventType::kWarning, c.reason, c.message}));
    return;
  }
  EXPECT_TRUE(r.admitted) << r.reason << ": " << r.message;
  if (c.message.empty()) {
    EXPECT_TRUE(r.events.empty());
  } else {
    ASSERT_EQ(r.events.size(), 1u);
    EXPECT_EQ(r.events[0].type, EventType::kWarning);
    EXPECT_EQ(r.events[0].reason, "UlimitClamped");
    EXPECT_EQ(r.events[0].message, c.message);
  }
}

TEST(NodeAdmission, DeclaredFeatures) {
  validation::FeatureGates pid_off;
  pid_off.per_pod_pid_limit = false;
  validation::FeatureGates cgroup_options_off;
  cgroup_options_off.cgroup_options = false;
  validation::FeatureGates ulimits_off;
  ulimits_off.container_ulimits = false;
  const std::string declared = "FailedNodeDeclaredFeaturesCheck";
  const Case cases[] = {
      {"plain pod, hybrid", Pod(kPlain), HybridNoCap()},
      {"plain pod, no runtime", Pod(kPlain), With(HybridNoCap(), [](auto& c) { c.runtime = {}; })},
      // KEP-6063: a pod PID limit needs cgroup v2.
      {"pid limit on cgroup v2", Pod(kPlain, kPidLimit), V2Root()},
      {"pid limit on hybrid", Pod(kPlain, kPidLimit), HybridNoCap(), AllOn(), declared,
       "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod web "
       "specifies spec.resources.limits.pid"},
      {"pid limit on v1", Pod(kPlain, kPidLimit),
       With(HybridNoCap(), [](auto& c) { c.cgroup_mode = CgroupMode::kV1; }), AllOn(), declared,
       "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod web "
       "specifies spec.resources.limits.pid"},
      {"pid limit with the node's gate off", Pod(kPlain, kPidLimit), V2Root(), pid_off, declared,
       "pod web specifies spec.resources.limits.pid, but this node does not declare "
       "PerPodPIDLimit: the PerPodPIDLimit feature gate is disabled"},
      // KEP-5474: Writable needs v2, nsdelegate and runtime support.
      {"writable on v2 with nsdelegate", Pod(kWritable), V2Root()},
      {"read-only needs nothing", Pod(kReadOnly), HybridNoCap()},
      {"writable on hybrid", Pod(kWritable), HybridNoCap(), AllOn(), declared,
       "CgroupOptions.MountMode=Writable requires cgroup v2"},
      {"writable without nsdelegate", Pod(kWritable),
       With(V2Root(), [](auto& c) { c.nsdelegate = false; }), AllOn(), declared,
       "CgroupOptions.MountMode=Writable requires the cgroup2 filesystem to be mounted with "
       "nsdelegate"},
      {"writable without runtime support", Pod(kWritable),
       With(V2Root(), [](auto& c) { c.runtime.supports_writable_cgroups = false; }), AllOn(),
       declared,
       "container \"app\" requires CgroupOptions but the container runtime does not support it"},
      {"writable with no runtime at all", Pod(kWritable),
       With(V2Root(), [](auto& c) { c.runtime = {}; }), AllOn(), declared,
       "container \"app\" requires CgroupOptions but the container runtime does not support it"},
      {"writable with the node's gate off", Pod(kWritable), V2Root(), cgroup_options_off, declared,
       "container \"app\" requires CgroupOptions but this node does not declare "
       "SupportsCgroupOptions: the CgroupOptions feature gate is disabled"},
      {"writable init container",
       Pod(kPlain,
           "  initContainers:\n  - {name: setup, image: busybox, securityContext: "
           "{cgroupOptions: {mountMode: Writable}}}\n"),
       With(V2Root(), [](auto& c) { c.runtime.supports_writable_cgroups = false; }), AllOn(),
       declared,
       "container \"setup\" requires CgroupOptions but the container runtime does not support "
       "it"},
      {"the pid limit is checked first", Pod(kWritable, kPidLimit), HybridNoCap(), AllOn(),
       declared,
       "per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod web "
       "specifies spec.resources.limits.pid"},
      // KEP-5758: ulimits need a runtime that applies them.
      {"ulimits without a runtime", Pod(Ulimits("{name: core, soft: 0, hard: 0}")),
       With(HybridNoCap(),
            [](auto& c) {
              c.runtime = {};
              c.runtime.error = "no OCI runtime found: looked for \"crun\", \"runc\" in PATH";
            }),
       AllOn(), declared,
       "container \"app\" sets securityContext.ulimits, but this node does not declare "
       "ContainerUlimits: no OCI runtime found: looked for \"crun\", \"runc\" in PATH"},
      {"ulimits with the node's gate off", Pod(Ulimits("{name: core, soft: 0, hard: 0}")),
       HybridNoCap(), ulimits_off, declared,
       "container \"app\" sets securityContext.ulimits, but this node does not declare "
       "ContainerUlimits: the ContainerUlimits feature gate is disabled"},
      {"an empty ulimits list needs nothing", Pod(Ulimits("")),
       With(HybridNoCap(), [](auto& c) { c.runtime = {}; })},
  };
  for (const auto& c : cases) Check(c);
}

TEST(NodeAdmission, RlimitCeilings) {
  const std::string ceiling = "UlimitExceedsNodeCeiling";
  const std::string path = "spec.containers[0].securityContext.ulimits";
  const Case cases[] = {
      {"within every ceiling",
       Pod(Ulimits("{name: nofile, soft: 1024, hard: 20000}, {name: memlock, soft: 65536, hard: "
                   "8388608}, {name: core, soft: 0, hard: 1000000000}, {name: stack, soft: "
                   "8388608, hard: -1}, {name: nice, soft: 0, hard: 0}, {name: rtprio, soft: 0, "
                   "hard: 0}")),
       HybridNoCap()},
      {"nofile above the process's hard limit",
       Pod(Ulimits("{name: nofile, soft: 1024, hard: "
                   "30000}")),
       HybridNoCap(), AllOn(), ceiling,
       path + "[0].hard: container \"app\" asks nofile 30000, above this node's ceiling 20000: " +
           std::string(kNoCap)},
      {"memlock",
       Pod(Ulimits("{name: core, soft: 0, hard: 0}, {name: memlock, soft: 16777216, "
                   "hard: 16777216}")),
       HybridNoCap(), AllOn(), ceiling,
       path +
           "[1].hard: container \"app\" asks memlock 16777216, above this node's ceiling "
           "8388608: " +
           std::string(kNoCap)},
      {"nice", Pod(Ulimits("{name: nice, soft: 0, hard: 10}")), HybridNoCap(), AllOn(), ceiling,
       path + "[0].hard: container \"app\" asks nice 10, above this node's ceiling 0: " +
           std::string(kNoCap)},
      {"rtprio", Pod(Ulimits("{name: rtprio, soft: 1, hard: 1}")), HybridNoCap(), AllOn(), ceiling,
       path + "[0].hard: container \"app\" asks rtprio 1, above this node's ceiling 0: " +
           std::string(kNoCap)},
      {"soft above the ceiling under an unlimited hard",
       Pod(Ulimits("{name: nofile, soft: 30000, hard: -1}")), HybridNoCap(), AllOn(), ceiling,
       path + "[0].soft: container \"app\" asks nofile 30000, above this node's ceiling 20000: " +
           std::string(kNoCap)},
      {"nofile above nr_open, even with CAP_SYS_RESOURCE",
       Pod(Ulimits("{name: nofile, soft: 1024, hard: 100000}")),
       With(V2Root(), [](auto& c) { c.nr_open = 65536; }), AllOn(), ceiling,
       path + "[0].hard: container \"app\" asks nofile 100000, above this node's ceiling 65536: "
              "the kernel refuses an RLIMIT_NOFILE above fs.nr_open (/proc/sys/fs/nr_open)"},
      {"nofile above nr_open names nr_open, not the capability",
       Pod(Ulimits("{name: nofile, soft: 1024, hard: 100000}")),
       With(HybridNoCap(), [](auto& c) { c.nr_open = 65536; }), AllOn(), ceiling,
       path + "[0].hard: container \"app\" asks nofile 100000, above this node's ceiling 65536: "
              "the kernel refuses an RLIMIT_NOFILE above fs.nr_open (/proc/sys/fs/nr_open)"},
      {"with CAP_SYS_RESOURCE anything but nofile goes",
       Pod(Ulimits("{name: memlock, soft: -1, hard: -1}, {name: nice, soft: 40, hard: 40}, "
                   "{name: nofile, soft: 1048576, hard: 1048576}")),
       V2Root()},
      {"init container path and name",
       Pod(kPlain, "  initContainers:\n" + Ulimits("{name: rtprio, soft: 0, hard: 5}", "setup")),
       HybridNoCap(), AllOn(), ceiling,
       "spec.initContainers[0].securityContext.ulimits[0].hard: container \"setup\" asks rtprio "
       "5, above this node's ceiling 0: " +
           std::string(kNoCap)},
      // -1 is granted as the ceiling; a Warning says when that is finite for want of the
      // capability.
      {"nofile -1 without the capability", Pod(Ulimits("{name: nofile, soft: -1, hard: -1}")),
       HybridNoCap(), AllOn(), "",
       "container \"app\": ulimit nofile -1 (unlimited) granted as 20000, this node's ceiling: " +
           std::string(kNoCap)},
      {"memlock -1 without the capability", Pod(Ulimits("{name: memlock, soft: 65536, hard: -1}")),
       HybridNoCap(), AllOn(), "",
       "container \"app\": ulimit memlock -1 (unlimited) granted as 8388608, this node's "
       "ceiling: " +
           std::string(kNoCap)},
      {"nofile -1 at nr_open is the KEP's meaning: no warning",
       Pod(Ulimits("{name: nofile, soft: -1, hard: -1}")), V2Root()},
      {"core -1 where the ceiling is unlimited", Pod(Ulimits("{name: core, soft: -1, hard: -1}")),
       HybridNoCap()},
  };
  for (const auto& c : cases) Check(c);
}

// Seed 000's nofile trap: -1 is granted as fs.nr_open whatever it is, and a node where that is
// above 1048576 says so; at 1048576 nothing is said.
TEST(NodeAdmission, NofileUnlimitedAboveTheUsualCeilingWarns) {
  const api::Pod pod = Pod(
      "  - name: app\n    image: i\n    securityContext:\n"
      "      ulimits: [{name: nofile, soft: -1, hard: -1}]\n");
  NodeCapabilities big = V2Root();
  big.nr_open = 1073741816;
  AdmitResult r = AdmitPod(pod, DeclareFeatures(AllOn(), big), big);
  ASSERT_TRUE(r.admitted) << r.message;
  ASSERT_EQ(r.ulimits["app"].size(), 3u);  // nofile, then the defaults for nproc and core
  EXPECT_EQ(r.ulimits["app"][0].hard, 1073741816u);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].reason, "UlimitNofileLarge");
  EXPECT_EQ(r.events[0].message,
            "container \"app\": ulimit nofile -1 is 1073741816 descriptors on this node "
            "(fs.nr_open), more than 1048576: programs that close or scan every descriptor up "
            "to the limit will be slow");

  NodeCapabilities usual = V2Root();
  AdmitResult quiet = AdmitPod(pod, DeclareFeatures(AllOn(), usual), usual);
  ASSERT_TRUE(quiet.admitted);
  EXPECT_TRUE(quiet.events.empty());
}

TEST(NodeAdmission, GrantedValues) {
  api::Pod pod =
      Pod(Ulimits("{name: nofile, soft: -1, hard: -1}, {name: core, soft: -1, hard: -1}, {name: "
                  "stack, soft: -5, hard: 8388608}, {name: memlock, soft: 4096, hard: -1}") +
          Ulimits("{name: nofile, soft: 100, hard: 200}", "sidecar"));
  NodeCapabilities caps = HybridNoCap();
  AdmitResult r = AdmitPod(pod, DeclareFeatures(AllOn(), caps), caps);
  ASSERT_TRUE(r.admitted) << r.message;
  // The container's own first, then containerd's defaults for what it leaves out (nproc; core
  // and nofile are set).
  EXPECT_EQ(r.ulimits.at("app"), (std::vector<GrantedUlimit>{{"nofile", 20000, 20000},
                                                             {"core", kRlimInfinity, kRlimInfinity},
                                                             {"stack", 0, 8388608},
                                                             {"memlock", 4096, 8388608},
                                                             {"nproc", kRlimInfinity, kRlimInfinity}}));
  EXPECT_EQ(r.ulimits.at("sidecar"),
            (std::vector<GrantedUlimit>{{"nofile", 100, 200},
                                        {"nproc", kRlimInfinity, kRlimInfinity},
                                        {"core", kRlimInfinity, kRlimInfinity}}));
  ASSERT_EQ(r.events.size(), 2u);  // nofile and memlock fell short of unlimited
  EXPECT_EQ(r.events[0].message.substr(0, 30), "container \"app\": ulimit nofile");
  EXPECT_EQ(r.events[1].message.substr(0, 31), "container \"app\": ulimit memlock");

  NodeCapabilities root = V2Root();
  AdmitResult with_cap = AdmitPod(pod, DeclareFeatures(AllOn(), root), root);
  ASSERT_TRUE(with_cap.admitted);
  EXPECT_TRUE(with_cap.events.empty());
  EXPECT_EQ(with_cap.ulimits.at("app")[0], (GrantedUlimit{"nofile", 1048576, 1048576}));
  EXPECT_EQ(with_cap.ulimits.at("app")[3], (GrantedUlimit{"memlock", 4096, kRlimInfinity}));
}

TEST(NodeAdmission, Ceilings) {
  struct Row {
    const char* name;
    const char* ulimit;
    NodeCapabilities caps;
    RlimValue value;
    std::string_view why;
  };
  const Row rows[] = {
      {"nofile without the capability", "nofile", HybridNoCap(), 20000, kWhyNoCapSysResource},
      {"nofile with it", "nofile", V2Root(), 1048576, kWhyNrOpen},
      {"nofile, nr_open unreadable: the kernel default", "nofile",
       With(V2Root(), [](auto& c) { c.nr_open.reset(); }), 1048576, kWhyNrOpen},
      {"nofile hard limit at nr_open", "nofile",
       With(HybridNoCap(), [](auto& c) { c.hard_limits["nofile"] = 1048576; }), 1048576,
       kWhyNrOpen},
      {"memlock without", "memlock", HybridNoCap(), 8388608, kWhyNoCapSysResource},
      {"memlock with", "memlock", V2Root(), kRlimInfinity, ""},
      {"stack unlimited here", "stack", HybridNoCap(), kRlimInfinity, ""},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    UlimitCeiling c = CeilingFor(r.ulimit, r.caps);
    EXPECT_EQ(c.value, r.value);
    EXPECT_EQ(c.why, r.why);
  }
}

}  // namespace
}  // namespace podlimits::kubelet
