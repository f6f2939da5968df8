#include <gtest/gtest.h>

#include "kubelet/lifecycle/declared_features.h"

namespace podlimits::kubelet {
namespace {

using cgroups::CgroupMode;

NodeCapabilities Caps(std::optional<CgroupMode> mode, bool nsdelegate, bool runtime,
                      std::string name = "crun") {
  NodeCapabilities caps;
  caps.cgroup_mode = mode;
  caps.nsdelegate = nsdelegate;
  if (runtime) {
    caps.runtime.name = name;
    caps.runtime.path = "/usr/bin/" + name;
    caps.runtime.applies_rlimits = true;
    caps.runtime.supports_writable_cgroups = true;
    caps.runtime.unusable = RuntimeUnusable(caps.runtime, mode);
  } else {
    caps.runtime.error = "no OCI runtime found: looked for \"crun\", \"runc\" in PATH";
  }
  return caps;
}

validation::FeatureGates Gates(bool pid, bool ulimits, bool cgroup_options) {
  validation::FeatureGates g;
  g.per_pod_pid_limit = pid;
  g.container_ulimits = ulimits;
  g.cgroup_options = cgroup_options;
  return g;
}

TEST(NodeDeclaredFeatures, Matrix) {
  const std::string no_runtime = "no OCI runtime found: looked for \"crun\", \"runc\" in PATH";
  struct Case {
    const char* name;
    validation::FeatureGates gates;
    NodeCapabilities caps;
    std::vector<std::string> declared;
    std::string pid_reason, ulimits_reason, cgroup_options_reason;
  };
  const Case cases[] = {
      {"v2, nsdelegate, runtime: everything",
       Gates(true, true, true),
       Caps(CgroupMode::kV2, true, true),
       {"ContainerUlimits", "PerPodPIDLimit", "SupportsCgroupOptions"},
       "",
       "",
       ""},
      {"v2 without nsdelegate",
       Gates(true, true, true),
       Caps(CgroupMode::kV2, false, true),
       {"ContainerUlimits", "PerPodPIDLimit"},
       "",
       "",
       "the cgroup2 filesystem is not mounted with nsdelegate"},
      {"hybrid (this project's machines)",
       Gates(true, true, true),
       Caps(CgroupMode::kHybrid, false, true),
       {"ContainerUlimits"},
       "cgroup v2 is required; this node's cgroup mode is hybrid",
       "",
       "cgroup v2 is required; this node's cgroup mode is hybrid"},
      {"v1",
       Gates(true, true, true),
       Caps(CgroupMode::kV1, false, true),
       {"ContainerUlimits"},
       "cgroup v2 is required; this node's cgroup mode is v1",
       "",
       "cgroup v2 is required; this node's cgroup mode is v1"},
      {"cgroups unreadable",
       Gates(true, true, true),
       Caps(std::nullopt, false, true),
       {"ContainerUlimits"},
       "cgroup v2 is required; this node's cgroup mode is unknown",
       "",
       "cgroup v2 is required; this node's cgroup mode is unknown"},
      {"no runtime",
       Gates(true, true, true),
       Caps(CgroupMode::kV2, true, false),
       {"PerPodPIDLimit"},
       "",
       no_runtime,
       no_runtime},
      {"gates off",
       Gates(false, false, false),
       Caps(CgroupMode::kV2, true, true),
       {},
       "the PerPodPIDLimit feature gate is disabled",
       "the ContainerUlimits feature gate is disabled",
       "the CgroupOptions feature gate is disabled"},
      // `run` refuses runc on v1/hybrid (no devices hierarchy): nothing is declared for it.
      {"runc on hybrid",
       Gates(true, true, true),
       Caps(CgroupMode::kHybrid, false, true, "runc"),
       {},
       "cgroup v2 is required; this node's cgroup mode is hybrid",
       "runc on a cgroup hybrid node needs the devices hierarchy for its device rules, and "
       "podlimits manages only the pids hierarchy there: use crun (runtime.name in the "
       "NodeConfiguration)",
       "cgroup v2 is required; this node's cgroup mode is hybrid"},
      {"runc on v2",
       Gates(true, true, true),
       Caps(CgroupMode::kV2, true, true, "runc"),
       {"ContainerUlimits", "PerPodPIDLimit", "SupportsCgroupOptions"},
       "",
       "",
       ""},
      {"gate checked before the node",
       Gates(false, true, false),
       Caps(CgroupMode::kV1, false, true),
       {"ContainerUlimits"},
       "the PerPodPIDLimit feature gate is disabled",
       "",
       "the CgroupOptions feature gate is disabled"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    DeclaredFeatures d = DeclareFeatures(c.gates, c.caps);
    EXPECT_EQ(d.Names(), c.declared);
    EXPECT_EQ(d.per_pod_pid_limit.reason, c.pid_reason);
    EXPECT_EQ(d.container_ulimits.reason, c.ulimits_reason);
    EXPECT_EQ(d.supports_cgroup_options.reason, c.cgroup_options_reason);
  }
}

TEST(NodeDeclaredFeatures, RuntimeWithoutWritableSupport) {
  NodeCapabilities caps = Caps(CgroupMode::kV2, true, true);
  caps.runtime.supports_writable_cgroups = false;
  caps.runtime.applies_rlimits = false;
  DeclaredFeatures d = DeclareFeatures(Gates(true, true, true), caps);
  EXPECT_EQ(d.supports_cgroup_options.missing, Missing::kRuntime);
  EXPECT_EQ(d.supports_cgroup_options.reason,
            "the container runtime does not support CgroupOptions");
  EXPECT_EQ(d.container_ulimits.reason, "the OCI runtime crun does not apply rlimits");
}

TEST(NodeDeclaredFeatures, AllIsInNameOrder) {
  DeclaredFeatures d;
  std::vector<std::string_view> names;
  for (const auto* f : d.All()) names.push_back(f->name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"ContainerUlimits", "PerPodPIDLimit",
                                                  "SupportsCgroupOptions"}));
}

}  // namespace
}  // namespace podlimits::kubelet
