#include "kubelet/status/node_info.h"

#include <gtest/gtest.h>

namespace podlimits::kubelet {
namespace {

NodeCapabilities HybridNoCap() {
  NodeCapabilities caps;
  caps.cgroup_mode = cgroups::CgroupMode::kHybrid;
  caps.pids_controller = true;
  caps.runtime = {"runc", "/usr/sbin/runc", "1.1.5+ds1", true, true, "", ""};
  caps.hard_limits = {{"core", kRlimInfinity}, {"memlock", 8388608}, {"nice", 0},
                      {"nofile", 20000},       {"rtprio", 0},        {"stack", kRlimInfinity}};
  caps.nr_open = 1048576;
  return caps;
}

NodeConfig Config() {
  auto c = ParseNodeConfig(
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
      "podPidsLimit: 4096\nkubeReserved: {pid: \"1k\"}\nsystemReserved: {pid: \"768\"}\n"
      "evictionHard: {pid.available: \"10%\"}\n",
      "/etc/podlimits/node.yaml");
  EXPECT_TRUE(c) << c.error();
  return *c;
}

TEST(NodeInfo, CollectsEverything) {
  NodeInfo info = CollectNodeInfo(Config(), HybridNoCap(), PidCapacity{32768, 192730}, 130, "n1");
  EXPECT_EQ(info.capacity, 32768);
  EXPECT_EQ(info.allocatable, 31000);
  EXPECT_EQ(info.kubepods_pids_max, 31000);
  EXPECT_EQ(info.pod_pids_limit, 4096);
  EXPECT_EQ(info.kube_reserved_pids, "1k");
  EXPECT_EQ(info.cgroup_mode, "hybrid");
  EXPECT_EQ(info.features.Names(), std::vector<std::string>{"ContainerUlimits"});
  ASSERT_EQ(info.ceilings.size(), 6u);
  EXPECT_EQ(info.ceilings[3].name, "nofile");
  EXPECT_EQ(info.ceilings[3].ceiling.value, 20000u);
}

TEST(NodeInfo, Text) {
  NodeInfo info = CollectNodeInfo(Config(), HybridNoCap(), PidCapacity{32768, 192730}, 130, "n1");
  EXPECT_EQ(
      RenderNodeInfoText(info),
      "Name:               n1\n"
      "Config:             /etc/podlimits/node.yaml\n"
      "Pids:\n"
      "  Capacity:               32768 (min of kernel.pid_max 32768, kernel.threads-max 192730)\n"
      "  Reserved:               kube 1k, system 768\n"
      "  Allocatable:            31000\n"
      "  kubepods pids.max:      31000 (enforceNodeAllocatable: [pods])\n"
      "  podPidsLimit:           4096\n"
      "  pid.available:          32638 (130 tasks); hard eviction below 10% (3276), no "
      "PIDPressure\n"
      "Cgroups:\n"
      "  Mode:                   hybrid\n"
      "  nsdelegate:             no\n"
      "  pids controller:        yes\n"
      "  cpu, memory:            not enforced: refused unless unenforcedResources: Warn\n"
      "  Root:                   /\n"
      "  Driver:                 cgroupfs\n"
      "Runtime:            runc 1.1.5+ds1 (/usr/sbin/runc)\n"
      "AppArmor:           not enabled on the host: pods that set a profile are refused\n"
      "Declared features:  ContainerUlimits\n"
      "  ContainerUlimits:       yes\n"
      "  PerPodPIDLimit:         no: cgroup v2 is required; this node's cgroup mode is hybrid\n"
      "  SupportsCgroupOptions:  no: cgroup v2 is required; this node's cgroup mode is hybrid\n"
      "Rlimit ceilings:    CAP_SYS_RESOURCE no, fs.nr_open 1048576 (this node cannot raise a hard "
      "rlimit above its own: the kubelet lacks CAP_SYS_RESOURCE)\n"
      "  core:                   unlimited\n"
      "  memlock:                8388608 (podlimits' own hard limit)\n"
      "  nice:                   0 (podlimits' own hard limit)\n"
      "  nofile:                 20000 (podlimits' own hard limit)\n"
      "  rtprio:                 0 (podlimits' own hard limit)\n"
      "  stack:                  unlimited\n"
      "Default rlimits:    what containerd's unit gives a container that sets no ulimit\n"
      "  nofile:                 20000\n"
      "  nproc:                  unlimited\n"
      "  core:                   unlimited\n");
}

TEST(NodeInfo, TextForAnUnknownAndCapableNode) {
  NodeCapabilities caps;
  caps.cgroup_error = "read \"/proc/self/mountinfo\": No such file or directory";
  caps.runtime.error = "no OCI runtime found: looked for \"crun\", \"runc\" in PATH";
  caps.cap_sys_resource = true;
  NodeInfo info = CollectNodeInfo(DefaultNodeConfig(), caps, PidCapacity{}, std::nullopt, "vm");
  std::string text = RenderNodeInfoText(info);
  EXPECT_NE(text.find("Config:             (built-in defaults)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Capacity:               unknown (min of kernel.pid_max unknown, "
                      "kernel.threads-max unknown)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  kubepods pids.max:      max (enforceNodeAllocatable: [pods])\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  podPidsLimit:           -1 (no pod-level pids.max)\n"), std::string::npos);
  EXPECT_NE(text.find("  pid.available:          no eviction threshold\n"), std::string::npos);
  EXPECT_NE(text.find("  Mode:                   unknown (read \"/proc/self/mountinfo\": No such "
                      "file or directory)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Runtime:            none: no OCI runtime found: looked for \"crun\", "
                      "\"runc\" in PATH\n"),
            std::string::npos);
  EXPECT_NE(text.find("Declared features:  <none>\n"), std::string::npos);
  EXPECT_NE(text.find("Rlimit ceilings:    CAP_SYS_RESOURCE yes, fs.nr_open unknown\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  nofile:                 1048576 (fs.nr_open)\n"), std::string::npos);
  EXPECT_NE(text.find("  memlock:                unlimited\n"), std::string::npos);
}

TEST(NodeInfo, Json) {
  NodeInfo info = CollectNodeInfo(Config(), HybridNoCap(), PidCapacity{32768, 192730}, 130, "n1");
  EXPECT_EQ(RenderNodeInfoJson(info), R"({
    "apiVersion": "podlimits.dev/v1alpha1",
    "kind": "NodeInfo",
    "name": "n1",
    "configSource": "/etc/podlimits/node.yaml",
    "pids": {
        "kernelPidMax": 32768,
        "kernelThreadsMax": 192730,
        "capacity": 32768,
        "kubeReserved": "1k",
        "systemReserved": "768",
        "allocatable": 31000,
        "kubepodsPidsMax": 31000,
        "enforceNodeAllocatable": [
            "pods"
        ],
        "podPidsLimit": 4096,
        "tasks": 130,
        "evictionHardPidAvailable": "10%"
    },
    "cgroups": {
        "mode": "hybrid",
        "nsdelegate": false,
        "pidsController": true,
        "cpuMemoryEnforced": false,
        "root": "/",
        "driver": "cgroupfs"
    },
    "runtime": {
        "name": "runc",
        "path": "/usr/sbin/runc",
        "version": "1.1.5+ds1"
    },
    "apparmor": {
        "enabled": false,
        "parser": false
    },
    "declaredFeatures": [
        "ContainerUlimits"
    ],
    "features": [
        {
            "name": "ContainerUlimits",
            "declared": true
        },
        {
            "name": "PerPodPIDLimit",
            "declared": false,
            "reason": "cgroup v2 is required; this node's cgroup mode is hybrid"
        },
        {
            "name": "SupportsCgroupOptions",
            "declared": false,
            "reason": "cgroup v2 is required; this node's cgroup mode is hybrid"
        }
    ],
    "rlimits": {
        "capSysResource": false,
        "nrOpen": 1048576,
        "ceilings": {
            "core": "unlimited",
            "memlock": 8388608,
            "nice": 0,
            "nofile": 20000,
            "rtprio": 0,
            "stack": "unlimited"
        },
        "defaults": {
            "nofile": {
                "soft": 20000,
                "hard": 20000
            },
            "nproc": {
                "soft": "unlimited",
                "hard": "unlimited"
            },
            "core": {
                "soft": "unlimited",
                "hard": "unlimited"
            }
        }
    }
}
)");
}

TEST(NodeInfo, PidPressureWhenBelowTheThreshold) {
  NodeInfo info = CollectNodeInfo(Config(), HybridNoCap(), PidCapacity{32768, 192730}, 30000, "n1");
  std::string text = RenderNodeInfoText(info);
  EXPECT_NE(text.find("  pid.available:          2768 (30000 tasks); hard eviction below 10% "
                      "(3276), PIDPressure\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace podlimits::kubelet
