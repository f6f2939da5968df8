// The node configuration checks `run` and `node-info` make before anything is created: pid
// reservations against the node's pid capacity, as the kubelet's validateNodeAllocatable, and
// managedControllers against the node's cgroup mode.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kubelet/cm/managed_controllers.h"
#include "kubelet/cm/node_allocatable.h"
#include "kubelet/config/node_config.h"

namespace podlimits::kubelet {
namespace {

NodeConfig Config(std::string_view body) {
  const std::string text =
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + std::string(body);
  auto c = ParseNodeConfig(text, "node.yaml");
  EXPECT_TRUE(c) << c.error();
  return c ? *c : NodeConfig{};
}

TEST(NodeAllocatable, ReservationsAboveCapacityAreRejected) {
  struct Case {
    std::string name;
    std::string kubelet;
    std::optional<std::int64_t> capacity;
    std::string error;  // "" when valid
  };
  const std::vector<Case> cases = {
      {"no reservations", "", 100, ""},
      {"capacity unknown", "systemReserved: {pid: \"40000\"}\n", std::nullopt, ""},
      {"equal to capacity", "systemReserved: {pid: \"1000\"}\nkubeReserved: {pid: \"768\"}\n", 1768,
       ""},
      // The quantities as Go's %v prints a resource.Quantity value.
      {"system reserved above capacity", "systemReserved: {pid: \"40000\"}\n", 32768,
       "invalid Node Allocatable configuration. Resource \"pid\" has a reservation of {{40000 0} "
       "{<nil>}  DecimalSI} but capacity of {{32768 0} {<nil>}  DecimalSI}. Expected capacity >= "
       "reservation."},
      // Go's Add of a zero quantity takes the other's amount and scale as they are.
      {"a suffixed reservation", "kubeReserved: {pid: \"40k\"}\n", 32768,
       "invalid Node Allocatable configuration. Resource \"pid\" has a reservation of {{40 3} "
       "{<nil>}  DecimalSI} but capacity of {{32768 0} {<nil>}  DecimalSI}. Expected capacity >= "
       "reservation."},
      {"the sum above capacity", "systemReserved: {pid: \"600\"}\nkubeReserved: {pid: \"500\"}\n",
       1000,
       "invalid Node Allocatable configuration. Resource \"pid\" has a reservation of {{1100 0} "
       "{<nil>}  DecimalSI} but capacity of {{1000 0} {<nil>}  DecimalSI}. Expected capacity >= "
       "reservation."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto ok = ValidateNodeAllocatable(c.capacity, Config(c.kubelet));
    if (c.error.empty()) {
      EXPECT_TRUE(ok) << ok.error();
    } else {
      ASSERT_FALSE(ok);
      EXPECT_EQ(ok.error().Message(), c.error);
    }
  }
}

TEST(ManagedControllers, OnlyPidsOnV1AndHybrid) {
  struct Case {
    std::string name;
    std::vector<std::string> controllers;
    cgroups::CgroupMode mode;
    std::string error;  // "" when valid
  };
  const std::vector<Case> cases = {
      {"pids on hybrid", {"pids"}, cgroups::CgroupMode::kHybrid, ""},
      {"anything on v2", {"pids", "memory"}, cgroups::CgroupMode::kV2, ""},
      {"memory on hybrid",
       {"memory"},
       cgroups::CgroupMode::kHybrid,
       "node.yaml: managedControllers[0]: Unsupported value: \"memory\": supported values: "
       "\"pids\" (on a cgroup hybrid node podlimits manages only the pids hierarchy: it never "
       "creates or joins a cgroup in any other)"},
      {"two on v1",
       {"pids", "devices", "cpu"},
       cgroups::CgroupMode::kV1,
       "node.yaml: [managedControllers[1]: Unsupported value: \"devices\": supported values: "
       "\"pids\", managedControllers[2]: Unsupported value: \"cpu\": supported values: \"pids\"] "
       "(on a cgroup v1 node podlimits manages only the pids hierarchy: it never creates or joins "
       "a cgroup in any other)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeConfig config;
    config.source = "node.yaml";
    config.managed_controllers = c.controllers;
    auto ok = ValidateManagedControllers(config, c.mode);
    if (c.error.empty()) {
      EXPECT_TRUE(ok) << ok.error();
    } else {
      ASSERT_FALSE(ok);
      EXPECT_EQ(ok.error().Message(), c.error);
    }
  }
}

}  // namespace
}  // namespace podlimits::kubelet
