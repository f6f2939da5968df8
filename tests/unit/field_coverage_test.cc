#include "kubelet/lifecycle/field_coverage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "api/schema.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

// A decoded, defaulted pod named "web" with `spec` below `spec:` (indented two spaces).
codec::Node PodWithSpec(std::string_view spec, std::string_view metadata = "{name: web}") {
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: ";
  yaml += metadata;
  yaml += "\nspec:\n";
  yaml += spec;
  return podlimits::testing::DefaultedPodTree(yaml);
}

std::string Refusal(const codec::Node& pod, FieldCoverageOptions options = {}) {
  FieldCoverageResult r = CheckFieldCoverage(pod, options);
  return r.refused ? r.refused->message : "";
}

constexpr std::string_view kApp = "  containers:\n  - name: app\n    image: busybox\n";

TEST(FieldCoverage, APlainPodIsCoveredWithItsDefaults) {
  // Defaulting adds dnsPolicy, schedulerName, terminationMessagePath, imagePullPolicy, ...
  EXPECT_EQ(Refusal(PodWithSpec(std::string(kApp) +
                                "    command: [sh]\n    env:\n    - {name: A, value: b}\n"
                                "    - {name: NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}\n"
                                "    - name: LABEL\n      valueFrom: {fieldRef: {fieldPath: "
                                "\"metadata.labels['app']\"}}\n"
                                "  restartPolicy: Never\n  nodeSelector: {disk: ssd}\n"
                                "  tolerations: [{key: k, operator: Exists}]\n"
                                "  priorityClassName: high\n  hostPID: true\n"
                                "  securityContext: {seccompProfile: {type: RuntimeDefault}}\n")),
            "");
}

struct RefusalCase {
  std::string name;
  std::string spec;
  std::string want;
};

// gtest prints a parameter by its name rather than its bytes.
void PrintTo(const RefusalCase& c, std::ostream* os) { *os << c.name; }

class FieldCoverageRefusal : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(FieldCoverageRefusal, NamesTheField) {
  EXPECT_EQ(Refusal(PodWithSpec(GetParam().spec)), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, FieldCoverageRefusal,
    ::testing::Values(
        RefusalCase{"UnlistedVolumeSource",
                    std::string(kApp) +
                        "  volumes:\n  - {name: a, emptyDir: {}}\n  - {name: b, emptyDir: {}}\n"
                        "  - {name: c, nfs: {server: s, path: /x}}\n",
                    "spec.volumes[2].nfs: not supported by this node"},
        RefusalCase{"ConfigMapVolumeDefaultUser",
                    std::string(kApp) +
                        "  volumes:\n  - {name: a, configMap: {name: c, defaultUser: 1000}}\n",
                    "spec.volumes[0].configMap.defaultUser: not supported by this node: 1000 (the "
                    "files are owned by root (0); another owner is not applied)"},
        RefusalCase{"ProjectedServiceAccountToken",
                    std::string(kApp) +
                        "  volumes:\n  - name: t\n    projected:\n      sources:\n"
                        "      - configMap: {name: c}\n"
                        "      - serviceAccountToken: {path: token}\n",
                    "spec.volumes[0].projected.sources[1].serviceAccountToken: not supported by "
                    "this node: this node has no token issuer"},
        RefusalCase{"DiskEmptyDirSizeLimit",
                    std::string(kApp) + "  volumes:\n  - {name: a, emptyDir: {sizeLimit: 1Gi}}\n",
                    "spec.volumes[0].emptyDir.sizeLimit: not supported by this node: a disk "
                    "emptyDir's size is not enforced (the kubelet evicts for it; this node does "
                    "not)"},
        RefusalCase{"BidirectionalPropagation",
                    std::string(kApp) +
                        "    volumeMounts: [{name: a, mountPath: /a, mountPropagation: "
                        "HostToContainer}]\n  volumes:\n  - {name: a, emptyDir: {}}\n",
                    "spec.containers[0].volumeMounts[0].mountPropagation: not supported by this "
                    "node: \"HostToContainer\" (None (rprivate); mounts do not propagate between "
                    "this node and its pods)"},
        RefusalCase{"NfsIsRefusedAsUnlisted",
                    std::string(kApp) + "  volumes:\n  - {name: c, nfs: {server: s, path: /x}}\n",
                    "spec.volumes[0].nfs: not supported by this node"},
        RefusalCase{"SecretVolumeDefaultUser",
                    std::string(kApp) + "  volumes:\n  - {name: s, secret: {secretName: s, "
                                        "defaultUser: 0}}\n  - {name: t, secret: {secretName: t, "
                                        "defaultUser: 7}}\n",
                    "spec.volumes[1].secret.defaultUser: not supported by this node: 7 (the files "
                    "are owned by root (0); another owner is not applied)"},
        RefusalCase{"ValueFromPodIP",
                    std::string(kApp) +
                        "    env:\n    - name: IP\n      valueFrom: {fieldRef: {fieldPath: "
                        "status.podIP}}\n",
                    "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: not supported by "
                    "this node: \"status.podIP\" (the pod's field; also status.podIP and "
                    "status.podIPs when the pod has an address (podNetwork cni, or hostNetwork on "
                    "a node that knows its own), status.hostIP and status.hostIPs when the node "
                    "knows its address (serve); other values refused)"},
        RefusalCase{"TcpSocketHook",
                    std::string(kApp) + "    lifecycle: {preStop: {tcpSocket: {port: 80}}}\n",
                    "spec.containers[0].lifecycle.preStop.tcpSocket: not supported by this node: "
                    "not a lifecycle handler (kept in the API for compatibility; the kubelet "
                    "rejects it)"},
        RefusalCase{"InitContainerField",
                    std::string(kApp) + "  initContainers:\n  - name: init\n    image: busybox\n"
                                        "    securityContext: {seLinuxOptions: {level: s0}}\n",
                    "spec.initContainers[0].securityContext.seLinuxOptions: not supported by "
                    "this node: SELinux labels are not applied"},
        RefusalCase{"UserNamespace", std::string(kApp) + "  hostUsers: false\n",
                    "spec.hostUsers: not supported by this node: false (user namespaces are not "
                    "supported by this node)"},
        RefusalCase{"ProcMountValue",
                    std::string(kApp) + "    securityContext: {procMount: Unmasked}\n"
                                        "  hostUsers: false\n",
                    "spec.containers[0].securityContext.procMount: not supported by this node: "
                    "\"Unmasked\" (Default: the masked and read-only /proc paths)"},
        RefusalCase{"MemoryLimit",
                    std::string(kApp) + "    resources: {limits: {memory: 64Mi}}\n",
                    "spec.containers[0].resources.limits.memory: not supported by this node: "
                    "the memory cgroup controller is not managed by this node"},
        RefusalCase{"ExtendedResource",
                    std::string(kApp) +
                        "    resources: {limits: {example.com/gpu: 1}, requests: "
                        "{example.com/gpu: 1}}\n",
                    "spec.containers[0].resources.limits.example.com/gpu: not supported by this "
                    "node: no device plugin on this node offers it"},
        RefusalCase{"WindowsPod", std::string(kApp) + "  os: {name: windows}\n",
                    "spec.os.name: not supported by this node: \"windows\" (a Linux node)"}),
    [](const auto& info) { return info.param.name; });

TEST(FieldCoverage, ZeroValuesAskForNothing) {
  EXPECT_EQ(Refusal(PodWithSpec(std::string(kApp) +
                                "  shareProcessNamespace: false\n  hostUsers: true\n"
                                "  volumes: []\n  hostAliases: []\n  setHostnameAsFQDN: false\n")),
            "");
}

TEST(FieldCoverage, PodPidLimitIsApplied) {
  EXPECT_EQ(Refusal(PodWithSpec(std::string(kApp) + "  resources: {limits: {pid: 64}}\n")), "");
}

TEST(FieldCoverage, UnenforcedResourcesWarnWhenTheNodeSaysSo) {
  FieldCoverageOptions options;
  options.warn_on_unenforced_resources = true;
  FieldCoverageResult r = CheckFieldCoverage(
      PodWithSpec(std::string(kApp) + "    resources: {limits: {cpu: 1}, requests: {cpu: 1}}\n"),
      options);
  EXPECT_FALSE(r.refused);
  EXPECT_EQ(r.unenforced,
            (std::vector<std::string>{
                "spec.containers[0].resources.limits.cpu: not enforced by this node: the cpu "
                "cgroup controller is not managed by this node",
                "spec.containers[0].resources.requests.cpu: not enforced by this node: the cpu "
                "cgroup controller is not managed by this node"}));
}

// AppArmor profiles are applied where the node has AppArmor; whether it does is the AppArmor
// admission's to say (cri/apparmor.h), not field coverage's.
TEST(FieldCoverage, AppArmorProfilesPass) {
  EXPECT_EQ(Refusal(PodWithSpec(
                std::string(kApp) +
                "    securityContext: {appArmorProfile: {type: Localhost, localhostProfile: p}}\n"
                "  securityContext: {appArmorProfile: {type: RuntimeDefault}}\n",
                "{name: web, annotations: {container.apparmor.security.beta.kubernetes.io/app: "
                "runtime/default}}")),
            "");
}

// Every rule names a field the API has: a typo would silently refuse (or worse, never match)
// the field it meant.
TEST(FieldCoverage, EveryRuleNamesARealField) {
  const api::Schema& schema = api::Schema::Objects();
  for (const FieldRule& rule : PodFieldRules()) {
    const api::TypeDef* type = schema.Root("Pod");
    std::string_view rest = rule.path;
    bool map_below = false;
    while (!rest.empty() && !map_below) {
      std::size_t end = rest.find_first_of(".[");
      std::string_view name = rest.substr(0, end);
      rest = end == std::string_view::npos ? "" : rest.substr(end);
      if (rest.starts_with("[*]")) rest.remove_prefix(3);
      if (rest.starts_with('.')) rest.remove_prefix(1);
      ASSERT_NE(type, nullptr) << rule.path;
      const api::FieldDef* f = type->Field(name);
      ASSERT_NE(f, nullptr) << rule.path << ": no field " << name << " in " << type->id;
      const api::FieldSpec* spec = &f->spec;
      while (spec->kind == api::FieldSpec::Kind::kList) spec = spec->elem.get();
      map_below = spec->kind == api::FieldSpec::Kind::kMap;
      type = spec->kind == api::FieldSpec::Kind::kRef ? spec->ref : nullptr;
    }
  }
}

// docs/node.md carries the table exactly as the code renders it.
TEST(FieldCoverage, DocsCarryTheTable) {
  std::ifstream in(std::string(PODLIMITS_SOURCE_DIR) + "/docs/node.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find(RenderFieldCoverageTable()), std::string::npos)
      << "docs/node.md is out of date; its coverage table should read:\n"
      << RenderFieldCoverageTable();
}

}  // namespace
}  // namespace podlimits::kubelet

namespace podlimits::kubelet {
namespace {

TEST(FieldCoverage, StatusFieldsWhereTheNodeHasTheirValues) {
  const codec::Node pod = PodWithSpec(std::string(kApp) +
                                    "    env:\n    - name: IP\n      valueFrom: {fieldRef: "
                                    "{fieldPath: status.podIPs}}\n    - name: HOST\n      "
                                    "valueFrom: {fieldRef: {fieldPath: status.hostIP}}\n");
  FieldCoverageOptions options;
  options.status_field_paths = {"status.podIP", "status.podIPs"};
  EXPECT_THAT(Refusal(pod, options),
              ::testing::StartsWith("spec.containers[0].env[1].valueFrom.fieldRef.fieldPath: not "
                                    "supported by this node: \"status.hostIP\""));
  options.status_field_paths.push_back("status.hostIP");
  EXPECT_EQ(Refusal(pod, options), "");
}

TEST(FieldCoverage, HostPortsOnlyWhereTheNodeAppliesThem) {
  const codec::Node pod = PodWithSpec(std::string(kApp) +
                                    "    ports:\n    - containerPort: 80\n      hostPort: 8080\n"
                                    "      hostIP: 127.0.0.1\n");
  EXPECT_THAT(Refusal(pod), ::testing::StartsWith(
                                "spec.containers[0].ports[0].hostPort: not supported by this "
                                "node: applied with hostNetwork, or through portmap"));
  FieldCoverageOptions options;
  options.host_ports = true;
  EXPECT_EQ(Refusal(pod, options), "");
}

}  // namespace
}  // namespace podlimits::kubelet
