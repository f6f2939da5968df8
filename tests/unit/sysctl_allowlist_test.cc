#include "kubelet/sysctl/sysctl_allowlist.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace podlimits::kubelet {
namespace {

api::Pod PodWith(std::string_view host_flags, std::string_view sysctls) {
  return podlimits::testing::DefaultedPod(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n" + std::string(host_flags) +
      "  securityContext:\n    sysctls: " + std::string(sysctls) +
      "\n  containers: [{name: app, image: i}]\n");
}

struct Case {
  std::string name, host, sysctls;
  std::vector<std::string> allowed;
  std::string want;  // "" admitted, else the message after "forbidden sysctl: "
};

TEST(SysctlAllowlist, TheKubeletsRules) {
  const Case cases[] = {
      {"safe", "", "[{name: net.ipv4.ip_local_port_range, value: '1 2'}, {name: "
                   "kernel.shm_rmid_forced, value: '1'}]", {}, ""},
      {"unsafe, not allowed", "", "[{name: net.core.somaxconn, value: '1024'}]", {},
       "\"net.core.somaxconn\" not allowlisted"},
      {"unsafe, allowed by name", "", "[{name: net.core.somaxconn, value: '1024'}]",
       {"net.core.somaxconn"}, ""},
      {"unsafe, allowed by prefix", "", "[{name: kernel.msgmax, value: '8192'}]", {"kernel.msg*"},
       ""},
      {"slash form is normalised", "", "[{name: net/core/somaxconn, value: '1024'}]",
       {"net.core.somaxconn"}, ""},
      {"net sysctl with hostNetwork", "  hostNetwork: true\n",
       "[{name: net.ipv4.tcp_syncookies, value: '1'}]", {},
       "\"net.ipv4.tcp_syncookies\" not allowed with host net enabled"},
      {"ipc sysctl with hostIPC", "  hostIPC: true\n",
       "[{name: kernel.shm_rmid_forced, value: '1'}]", {},
       "\"kernel.shm_rmid_forced\" not allowed with host ipc enabled"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = ForbiddenSysctl(PodWith(c.host, c.sysctls), c.allowed);
    EXPECT_EQ(got.value_or(""), c.want);
  }
}

TEST(SysctlAllowlist, OnlyNamespacedSysctlsMayBeAllowed) {
  EXPECT_TRUE(ValidateAllowedUnsafeSysctls({"net.*", "kernel.shm*", "kernel.sem", "fs.mqueue.*"})
                  .empty());
  EXPECT_EQ(ValidateAllowedUnsafeSysctls({"kernel.*", "vm.swappiness"}),
            (std::vector<std::string>{
                "allowedUnsafeSysctls: the sysctls \"kernel.*\" are not known to be namespaced",
                "allowedUnsafeSysctls: the sysctls \"vm.swappiness\" are not known to be "
                "namespaced"}));
}

TEST(SysctlAllowlist, NormalisesSlashNames) {
  EXPECT_EQ(NormalizeSysctlName("net/ipv4/conf/eth0.1/forwarding"),
            "net.ipv4.conf.eth0/1.forwarding");
  EXPECT_EQ(NormalizeSysctlName("net.ipv4.ip_forward"), "net.ipv4.ip_forward");
}

}  // namespace
}  // namespace podlimits::kubelet
