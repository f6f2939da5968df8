#include "kubelet/config/node_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace podlimits::kubelet {
namespace {

constexpr std::string_view kKubelet =
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";
constexpr std::string_view kNode = "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\n";

std::string Kubelet(std::string_view body) {
  return std::string(kKubelet) + std::string(body);
}
std::string Node(std::string_view body) {
  return std::string(kNode) + std::string(body);
}

TEST(NodeConfig, EvictionSettingsJoined) {
  auto c = ParseNodeConfig(Kubelet("evictionHard: {pid.available: \"1000\"}\n"
                                   "evictionSoft: {pid.available: \"10%\"}\n"
                                   "evictionSoftGracePeriod: {pid.available: 1m30s}\n"
                                   "evictionMinimumReclaim: {pid.available: \"500\"}\n"
                                   "evictionPressureTransitionPeriod: 30s\n"
                                   "evictionMaxPodGracePeriod: 20\n"),
                           "node.yaml");
  ASSERT_TRUE(c) << c.error();
  ASSERT_EQ(c->eviction_hard.size(), 1u);
  ASSERT_EQ(c->eviction_soft.size(), 1u);
  EXPECT_TRUE(c->eviction_hard[0].Hard());
  EXPECT_EQ(c->eviction_soft[0].grace_period, std::chrono::seconds(90));
  ASSERT_TRUE(c->eviction_hard[0].min_reclaim);
  EXPECT_EQ(c->eviction_hard[0].min_reclaim->quantity->Value(), 500);
  EXPECT_EQ(c->eviction_pressure_transition_period, std::chrono::seconds(30));
  EXPECT_EQ(c->eviction_max_pod_grace_period, 20);
}

TEST(NodeConfig, Defaults) {
  NodeConfig c = DefaultNodeConfig();
  EXPECT_EQ(c.source, "");
  EXPECT_EQ(c.pod_pids_limit, -1);
  EXPECT_TRUE(c.kube_reserved.empty());
  EXPECT_TRUE(c.system_reserved.empty());
  EXPECT_EQ(c.enforce_node_allocatable, std::vector<std::string>{"pods"});
  EXPECT_TRUE(c.EnforcesPodsAllocatable());
  EXPECT_TRUE(c.eviction_hard.empty());
  EXPECT_FALSE(c.PidAvailableHard());
  EXPECT_TRUE(c.feature_gates.per_pod_pid_limit && c.feature_gates.container_ulimits &&
              c.feature_gates.cgroup_options && c.feature_gates.pod_level_resources);
  EXPECT_EQ(c.cgroup_root, "/");
  EXPECT_EQ(c.cgroup_driver, "cgroupfs");
  EXPECT_FALSE(c.runtime.name);  // crun, falling back to runc
  EXPECT_EQ(c.runtime.path, "");
  EXPECT_EQ(c.state_directory, "/run/podlimits");
  EXPECT_EQ(c.writable_cgroups.max_descendants, 250);
  EXPECT_EQ(c.writable_cgroups.max_depth, 50);
  EXPECT_EQ(c.managed_controllers, std::vector<std::string>{"pids"});
  EXPECT_TRUE(c.KubeReservedPids().IsZero());
}

TEST(NodeConfig, EmptyFileIsDefaults) {
  for (std::string_view text : {"", "---\n", "# nothing\n"}) {
    auto c = ParseNodeConfig(text, "node.yaml");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->source, "node.yaml");
    EXPECT_EQ(c->pod_pids_limit, -1);
  }
}

TEST(NodeConfig, ReadsEveryField) {
  std::string text = Kubelet(
                         "podPidsLimit: 4096\n"
                         "kubeReserved: {pid: \"1k\", cpu: 100m}\n"
                         "systemReserved: {pid: \"500\"}\n"
                         "enforceNodeAllocatable: [pods]\n"
                         "evictionHard: {pid.available: \"5%\", memory.available: 100Mi}\n"
                         "featureGates: {CgroupOptions: false}\n"
                         "cgroupRoot: /podlimits\n"
                         "cgroupDriver: cgroupfs\n"
                         "maxPods: 50\n") +
                     "---\n" +
                     Node(
                         "runtime: {name: runc, path: /usr/sbin/runc}\n"
                         "stateDirectory: /var/lib/podlimits\n"
                         "writableCgroups: {maxDescendants: 10, maxDepth: 3}\n"
                         "managedControllers: [pids, cpu]\n");
  auto c = ParseNodeConfig(text, "node.yaml");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->pod_pids_limit, 4096);
  EXPECT_EQ(c->KubeReservedPids().Value(), 1000);
  EXPECT_EQ(c->SystemReservedPids().Value(), 500);
  EXPECT_EQ(c->kube_reserved.size(), 2u);
  ASSERT_TRUE(c->PidAvailableHard());
  EXPECT_EQ(c->PidAvailableHard()->text, "5%");
  EXPECT_EQ(c->eviction_hard.size(), 2u);
  EXPECT_EQ(c->eviction_pressure_transition_period, std::chrono::minutes(5)) << "the default";
  EXPECT_EQ(c->max_pods, 50);
  EXPECT_FALSE(c->feature_gates.cgroup_options);
  EXPECT_TRUE(c->feature_gates.per_pod_pid_limit);
  EXPECT_EQ(c->cgroup_root, "/podlimits");
  ASSERT_TRUE(c->runtime.name);
  EXPECT_EQ(*c->runtime.name, OciRuntime::kRunc);
  EXPECT_EQ(c->runtime.path, "/usr/sbin/runc");
  EXPECT_EQ(c->state_directory, "/var/lib/podlimits");
  EXPECT_EQ(c->writable_cgroups.max_descendants, 10);
  EXPECT_EQ(c->writable_cgroups.max_depth, 3);
  EXPECT_EQ(c->managed_controllers, (std::vector<std::string>{"pids", "cpu"}));
}

TEST(NodeConfig, ContainerLogs) {
  auto cfg = ParseNodeConfig(
      Kubelet("containerLogMaxSize: 1Mi\ncontainerLogMaxFiles: 3\npodLogsDir: /srv/logs\n"),
      "n.yaml");
  ASSERT_TRUE(cfg) << cfg.error();
  EXPECT_EQ(cfg->container_log_max_size, 1024 * 1024);
  EXPECT_EQ(cfg->container_log_max_files, 3);
  EXPECT_EQ(cfg->pod_logs_dir, "/srv/logs");
  auto defaults = ParseNodeConfig(Kubelet(""), "n.yaml");
  ASSERT_TRUE(defaults) << defaults.error();
  EXPECT_EQ(defaults->container_log_max_size, 10 * 1024 * 1024);
  EXPECT_EQ(defaults->container_log_max_files, 5);
  EXPECT_EQ(defaults->pod_logs_dir, "");
}

TEST(NodeConfig, JsonAndDocumentOrder) {
  std::string json =
      "{\"apiVersion\": \"podlimits.dev/v1alpha1\", \"kind\": \"NodeConfiguration\", "
      "\"runtime\": {\"name\": \"crun\"}}\n"
      "{\"apiVersion\": \"kubelet.config.k8s.io/v1beta1\", \"kind\": \"KubeletConfiguration\", "
      "\"podPidsLimit\": 100, \"enforceNodeAllocatable\": []}";
  auto c = ParseNodeConfig(json, "node.json");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->pod_pids_limit, 100);
  EXPECT_EQ(*c->runtime.name, OciRuntime::kCrun);
  // An explicit empty list means no enforcement, as for the kubelet (defaulting only fills nil).
  EXPECT_TRUE(c->enforce_node_allocatable.empty());
  EXPECT_FALSE(c->EnforcesPodsAllocatable());
}

TEST(NodeConfig, RuntimeNameFromPath) {
  struct Case {
    const char* name;
    const char* runtime;
    OciRuntime want;
  };
  const Case cases[] = {
      {"crun binary", "{path: /opt/crun-1.27/bin/crun}", OciRuntime::kCrun},
      {"runc binary", "{path: /usr/local/sbin/runc.amd64}", OciRuntime::kRunc},
      {"name wins over path", "{name: crun, path: /opt/bin/oci}", OciRuntime::kCrun},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto cfg = ParseNodeConfig(Node(std::string("runtime: ") + c.runtime + "\n"), "n.yaml");
    ASSERT_TRUE(cfg) << cfg.error();
    ASSERT_TRUE(cfg->runtime.name);
    EXPECT_EQ(*cfg->runtime.name, c.want);
  }
}

TEST(NodeConfig, Errors) {
  struct Case {
    const char* name;
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      // Strict decoding, with the field path.
      {"unknown kubelet field", Kubelet("podPidsLimit: 10\npodPidLimit: 10\n"),
       "node.yaml:1: KubeletConfiguration in version \"kubelet.config.k8s.io/v1beta1\" cannot be "
       "handled as a KubeletConfiguration: strict decoding error: unknown field \"podPidLimit\""},
      {"unknown nested kubelet field",
       Kubelet("evictionHard: {pid.available: \"1\"}\nlogging: "
               "{formatt: json}\n"),
       "node.yaml:1: KubeletConfiguration in version \"kubelet.config.k8s.io/v1beta1\" cannot be "
       "handled as a KubeletConfiguration: strict decoding error: unknown field "
       "\"logging.formatt\""},
      {"kubelet type error", Kubelet("podPidsLimit: lots\n"),
       "node.yaml:1: KubeletConfiguration in version \"kubelet.config.k8s.io/v1beta1\" cannot be "
       "handled as a KubeletConfiguration: json: cannot unmarshal string into Go struct field "
       "KubeletConfiguration.podPidsLimit of type int64 (line 3)"},
      {"unknown node field", Node("runtime: {nmae: crun}\nstate: /x\n"),
       "node.yaml:1: NodeConfiguration in version \"podlimits.dev/v1alpha1\" cannot be handled as "
       "a NodeConfiguration: strict decoding error: unknown field \"runtime.nmae\", unknown field "
       "\"state\""},
      {"node type error", Node("writableCgroups: {maxDepth: deep}\n"),
       "node.yaml:1: NodeConfiguration in version \"podlimits.dev/v1alpha1\" cannot be handled as "
       "a NodeConfiguration: json: cannot unmarshal string into Go struct field "
       "WritableCgroups.writableCgroups.maxDepth of type int32 (line 3)"},
      {"node int32 overflow", Node("writableCgroups: {maxDescendants: 3000000000}\n"),
       "node.yaml:1: NodeConfiguration in version \"podlimits.dev/v1alpha1\" cannot be handled as "
       "a NodeConfiguration: json: cannot unmarshal number 3000000000 into Go struct field "
       "WritableCgroups.writableCgroups.maxDescendants of type int32 (line 3)"},
      // The stream.
      {"unknown kind", "apiVersion: v1\nkind: Pod\n",
       "node.yaml:1: unsupported kind \"Pod\" in version \"v1\": a node config file holds a "
       "KubeletConfiguration (kubelet.config.k8s.io/v1beta1) and/or a NodeConfiguration "
       "(podlimits.dev/v1alpha1)"},
      {"wrong kubelet version",
       "apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\n",
       "node.yaml:1: unsupported kind \"KubeletConfiguration\" in version "
       "\"kubelet.config.k8s.io/v1\": a node config file holds a KubeletConfiguration "
       "(kubelet.config.k8s.io/v1beta1) and/or a NodeConfiguration (podlimits.dev/v1alpha1)"},
      {"two kubelet documents", Kubelet("") + "---\n" + Kubelet(""),
       "node.yaml:4: more than one KubeletConfiguration"},
      {"not an object", "- a\n- b\n",
       "node.yaml:1: a node config document must be an object, got array"},
      {"yaml syntax", "a: [\n", "node.yaml: yaml: line 2: did not find expected node content"},
      // KubeletConfiguration values, with the kubelet's messages.
      {"feature gate", Kubelet("featureGates: {PerPodPIDLimits: true}\n"),
       "node.yaml: featureGates: unrecognized feature gate: PerPodPIDLimits"},
      {"feature gate dependency", Kubelet("featureGates: {PodLevelResources: false}\n"),
       "node.yaml: featureGates: feature gate PerPodPIDLimit depends on PodLevelResources: "
       "PerPodPIDLimit=true requires PodLevelResources=true"},
      {"reserved resource name", Kubelet("kubeReserved: {pids: \"100\"}\n"),
       "node.yaml: kubeReserved: cannot reserve \"pids\" resource"},
      {"reserved quantity", Kubelet("systemReserved: {pid: 1x}\n"),
       "node.yaml: systemReserved: failed to parse quantity \"1x\" for \"pid\" resource: "
       "quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
      {"reserved negative", Kubelet("kubeReserved: {pid: \"-5\"}\n"),
       "node.yaml: kubeReserved: resource quantity for \"pid\" cannot be negative: -5"},
      {"eviction signal", Kubelet("evictionHard: {pids.available: \"10\"}\n"),
       "node.yaml: evictionHard: unsupported eviction signal pids.available"},
      {"eviction percentage", Kubelet("evictionHard: {pid.available: \"150%\"}\n"),
       "node.yaml: evictionHard: eviction percentage threshold pid.available must be <= 100%: "
       "150%"},
      {"eviction soft without grace", Kubelet("evictionSoft: {pid.available: \"100\"}\n"),
       "node.yaml: evictionSoft: grace period must be specified for the soft eviction threshold "
       "pid.available"},
      {"max pods", Kubelet("maxPods: -1\n"),
       "node.yaml: invalid configuration: maxPods (--max-pods) -1 must not be a negative number"},
      {"eviction grace duration", Kubelet("evictionSoftGracePeriod: {pid.available: \"90\"}\n"),
       "node.yaml: evictionSoftGracePeriod: time: missing unit in duration \"90\""},
      {"eviction grace negative", Kubelet("evictionSoftGracePeriod: {pid.available: -1s}\n"),
       "node.yaml: evictionSoftGracePeriod: invalid eviction grace period specified: -1s, must be "
       "a positive value"},
      {"eviction minimum reclaim", Kubelet("evictionMinimumReclaim: {pid.available: \"-1\"}\n"),
       "node.yaml: evictionMinimumReclaim: negative eviction minimum reclaim specified for "
       "pid.available"},
      {"eviction transition period", Kubelet("evictionPressureTransitionPeriod: 5 minutes\n"),
       "node.yaml: evictionPressureTransitionPeriod: time: unknown unit \" minutes\" in duration "
       "\"5 minutes\""},
      {"enforce bogus", Kubelet("enforceNodeAllocatable: [pod]\n"),
       "node.yaml: invalid configuration: option \"pod\" specified for enforceNodeAllocatable "
       "(--enforce-node-allocatable). Valid options are \"pods\", \"system-reserved\", "
       "\"kube-reserved\", or \"none\""},
      {"enforce none with others", Kubelet("enforceNodeAllocatable: [none, pods]\n"),
       "node.yaml: invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may "
       "not contain additional enforcements when \"none\" is specified"},
      {"enforce system-reserved without cgroup",
       Kubelet("enforceNodeAllocatable: [pods, system-reserved]\n"),
       "node.yaml: invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be "
       "specified when \"system-reserved\" contained in enforceNodeAllocatable "
       "(--enforce-node-allocatable)"},
      {"enforce kube-reserved, valid for a kubelet",
       Kubelet("enforceNodeAllocatable: [pods, kube-reserved]\nkubeReservedCgroup: /kube\n"),
       "node.yaml: enforceNodeAllocatable[1]: Invalid value: \"kube-reserved\": podlimits "
       "enforces node allocatable on the kubepods cgroup only; supported values: \"pods\", "
       "\"none\""},
      {"cgroupsPerQOS false", Kubelet("cgroupsPerQOS: false\nenforceNodeAllocatable: []\n"),
       "node.yaml: cgroupsPerQOS: Invalid value: false: not supported: podlimits places every "
       "pod under <cgroupRoot>/kubepods and its QoS cgroups"},
      {"cgroupsPerQOS false with enforcement", Kubelet("cgroupsPerQOS: false\n"),
       "node.yaml: [invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) "
       "is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true, "
       "cgroupsPerQOS: Invalid value: false: not supported: podlimits places every pod under "
       "<cgroupRoot>/kubepods and its QoS cgroups]"},
      {"systemd driver", Kubelet("cgroupDriver: systemd\n"),
       "node.yaml: cgroupDriver: Unsupported value: \"systemd\": the systemd cgroup driver is not "
       "supported: podlimits creates the pod cgroups itself through cgroupfs; use \"cgroupfs\""},
      {"other driver", Kubelet("cgroupDriver: cgroupv2\n"),
       "node.yaml: cgroupDriver: Unsupported value: \"cgroupv2\": supported values: "
       "\"cgroupfs\""},
      {"one log file", Kubelet("containerLogMaxFiles: 1\n"),
       "node.yaml: invalid configuration: containerLogMaxFiles must be greater than 1"},
      {"log size", Kubelet("containerLogMaxSize: big\n"),
       "node.yaml: containerLogMaxSize: Invalid value: \"big\": must be a positive quantity of "
       "bytes, e.g. 10Mi"},
      {"relative pod logs dir", Kubelet("podLogsDir: logs\n"),
       "node.yaml: invalid configuration: pod logs path \"logs\" must be absolute path"},
      {"unclean pod logs dir", Kubelet("podLogsDir: /var//log/\n"),
       "node.yaml: invalid configuration: pod logs path \"/var//log/\" must be normalized"},
      {"relative cgroup root", Kubelet("cgroupRoot: podlimits\n"),
       "node.yaml: cgroupRoot: Invalid value: \"podlimits\": must be an absolute cgroup path "
       "(starting with \"/\")"},
      {"several problems at once", Kubelet("cgroupDriver: systemd\nkubeReserved: {gpu: \"1\"}\n"),
       "node.yaml: [kubeReserved: cannot reserve \"gpu\" resource, cgroupDriver: Unsupported "
       "value: \"systemd\": the systemd cgroup driver is not supported: podlimits creates the "
       "pod cgroups itself through cgroupfs; use \"cgroupfs\"]"},
      // NodeConfiguration values.
      {"runtime name", Node("runtime: {name: docker}\n"),
       "node.yaml: runtime.name: Unsupported value: \"docker\": supported values: \"crun\", "
       "\"runc\""},
      {"runtime path relative", Node("runtime: {path: bin/crun}\n"),
       "node.yaml: runtime.path: Invalid value: \"bin/crun\": must be an absolute path"},
      {"runtime path of unknown kind", Node("runtime: {path: /opt/bin/oci}\n"),
       "node.yaml: runtime.name: Required value: cannot tell whether runtime.path "
       "\"/opt/bin/oci\" is crun or runc; set runtime.name"},
      {"state directory", Node("stateDirectory: run/podlimits\n"),
       "node.yaml: stateDirectory: Invalid value: \"run/podlimits\": must be an absolute path"},
      {"bounds", Node("writableCgroups: {maxDescendants: 0, maxDepth: -1}\n"),
       "node.yaml: [writableCgroups.maxDescendants: Invalid value: 0: must be greater than or "
       "equal to 1, writableCgroups.maxDepth: Invalid value: -1: must be greater than or equal "
       "to 1]"},
      {"controller unknown", Node("managedControllers: [pids, net]\n"),
       "node.yaml: managedControllers[1]: Unsupported value: \"net\": supported values: "
       "\"blkio\", \"cpu\", \"cpuacct\", \"cpuset\", \"devices\", \"freezer\", \"hugetlb\", "
       "\"io\", \"memory\", \"misc\", \"pids\""},
      {"controller duplicate", Node("managedControllers: [pids, pids]\n"),
       "node.yaml: managedControllers[1]: Duplicate value: \"pids\""},
      {"controllers without pids", Node("managedControllers: [cpu]\n"),
       "node.yaml: managedControllers: Invalid value: [\"cpu\"]: must include \"pids\": the "
       "node's pid limits are enforced through the pids controller"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto cfg = ParseNodeConfig(c.text, "node.yaml");
    ASSERT_FALSE(cfg);
    EXPECT_EQ(cfg.error().Message(), c.error);
  }
}

TEST(NodeConfig, LoadFromFile) {
  auto dir =
      std::filesystem::temp_directory_path() / ("node_config_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "node.yaml";
  std::ofstream(file) << Kubelet("podPidsLimit: 2048\n");
  auto c = LoadNodeConfig(file);
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->pod_pids_limit, 2048);
  EXPECT_EQ(c->source, file.string());

  auto missing = LoadNodeConfig(dir / "absent.yaml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().Message(), "unable to read node config \"" +
                                           (dir / "absent.yaml").string() +
                                           "\": No such file or directory");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

TEST(NodeConfig, PodNetwork) {
  auto defaults = ParseNodeConfig("", "n.yaml");
  ASSERT_TRUE(defaults) << defaults.error();
  EXPECT_EQ(defaults->pod_network.mode, PodNetworkMode::kNone);
  EXPECT_EQ(defaults->pod_network.conf_dir, "/etc/cni/net.d");
  EXPECT_EQ(defaults->pod_network.bin_dirs, (std::vector<std::string>{"/usr/lib/cni", "/opt/cni/bin"}));
  EXPECT_EQ(defaults->pod_cidr, "10.244.0.0/16");
  auto cni = ParseNodeConfig(Kubelet("podCIDR: 10.50.0.0/20\n") + "---\n" +
                                 Node("podNetwork:\n  plugin: cni\n  confDir: /x/net.d\n"
                                      "  binDirs: [/x/bin]\n"),
                             "n.yaml");
  ASSERT_TRUE(cni) << cni.error();
  EXPECT_EQ(cni->pod_network.mode, PodNetworkMode::kCni);
  EXPECT_EQ(cni->pod_network.conf_dir, "/x/net.d");
  EXPECT_EQ(cni->pod_network.bin_dirs, (std::vector<std::string>{"/x/bin"}));
  EXPECT_EQ(cni->pod_cidr, "10.50.0.0/20");
}

TEST(NodeConfig, PodNetworkRefusals) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Node("podNetwork: {plugin: flannel}\n"),
       "podNetwork.plugin: Unsupported value: \"flannel\": supported values: \"cni\", \"none\""},
      {Node("podNetwork: {confDir: net.d}\n"),
       "podNetwork.confDir: Invalid value: \"net.d\": must be an absolute path"},
      {Node("podNetwork: {binDirs: [bin]}\n"),
       "podNetwork.binDirs[0]: Invalid value: \"bin\": must be an absolute path"},
      {Node("podNetwork: {binDirs: []}\n"), "podNetwork.binDirs: Required value"},
      {Node("podNetwork: {plugn: cni}\n"), "unknown field \"podNetwork.plugn\""},
      {Kubelet("podCIDR: 10.0.0.0\n"), "podCIDR: Invalid value: \"10.0.0.0\": must be an IPv4 CIDR"},
      {Kubelet("podCIDR: 10.0.0.0/31\n"), "podCIDR: Invalid value"},
      {Kubelet("podCIDR: fd00::/64\n"), "podCIDR: Invalid value"},
  };
  for (const auto& c : cases) {
    auto config = ParseNodeConfig(c.text, "n.yaml");
    ASSERT_FALSE(config) << c.text;
    EXPECT_NE(config.error().Message().find(c.message), std::string::npos)
        << c.text << "\n" << config.error().Message();
  }
}

}  // namespace
}  // namespace podlimits::kubelet
