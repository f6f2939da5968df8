// A pod's /etc/resolv.conf, /etc/hosts and hostname as the kubelet and containerd make them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kubelet/network/pod_dns.h"
#include "kubelet/network/pod_etc_files.h"
#include "kubelet/network/pod_hostname.h"
#include "temp_dir.h"
#include "test_support.h"

namespace podlimits::kubelet {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

api::Pod PodWith(std::string_view spec_extra, std::string_view name = "web") {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + std::string(name) +
                  "\n  namespace: shop\nspec:\n";
  y += spec_extra;
  y += "  containers: [{name: app, image: busybox}]\n";
  return podlimits::testing::DefaultedPod(y);
}

constexpr std::string_view kHostResolv =
    "# generated\n"
    "nameserver 192.0.2.53\n"
    "search old.example\n"
    "nameserver 192.0.2.54\n"
    "  search corp.example. lab.example\n"
    "options edns0 ndots:2\n";

TEST(ResolvConf, ParsedAsTheKubeletParsesIt) {
  DnsConfig c = ParseResolvConf(kHostResolv);
  EXPECT_THAT(c.servers, ElementsAre("192.0.2.53", "192.0.2.54"));
  EXPECT_THAT(c.searches, ElementsAre("corp.example", "lab.example"));  // the last line wins
  EXPECT_THAT(c.options, ElementsAre("edns0", "ndots:2"));
  std::vector<std::string> errors;
  ParseResolvConf("nameserver\n", &errors);
  EXPECT_THAT(errors, ElementsAre("nameserver list is empty "));
}

struct DnsCase {
  std::string name;
  std::string spec;
  DnsSettings settings;
  DnsConfig want;
  std::vector<std::string> event_reasons = {};
};

TEST(PodDns, EveryPolicyAsGetPodDNS) {
  DnsSettings cluster{{"10.96.0.10"}, "cluster.local", "/etc/resolv.conf"};
  DnsSettings no_cluster_dns{{}, "cluster.local", "/etc/resolv.conf"};
  DnsSettings no_resolver{{}, "", ""};
  const DnsConfig host{{"192.0.2.53", "192.0.2.54"}, {"corp.example", "lab.example"},
                       {"edns0", "ndots:2"}};
  std::vector<DnsCase> cases = {
      {"ClusterFirst with cluster DNS", "", cluster,
       {{"10.96.0.10"},
        {"shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example",
         "lab.example"},
        {"ndots:5"}}},
      {"ClusterFirst without cluster DNS falls back to the host", "", no_cluster_dns, host,
       {"MissingClusterDNS"}},
      {"ClusterFirst on the host network is Default", "  hostNetwork: true\n", cluster, host},
      {"ClusterFirstWithHostNet", "  hostNetwork: true\n  dnsPolicy: ClusterFirstWithHostNet\n",
       cluster,
       {{"10.96.0.10"},
        {"shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example",
         "lab.example"},
        {"ndots:5"}}},
      {"Default", "  dnsPolicy: Default\n", cluster, host},
      {"Default without a resolver file", "  dnsPolicy: Default\n", no_resolver,
       {{"127.0.0.1"}, {"."}, {}}},
      {"None takes only the pod's config",
       "  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1], searches: [a.example]}\n",
       cluster, {{"1.1.1.1"}, {"a.example"}, {}}},
      {"dnsConfig appends without duplicates; options merge by name",
       "  dnsPolicy: Default\n  dnsConfig: {nameservers: [192.0.2.54, 1.1.1.1], searches: "
       "[lab.example, x.example], options: [{name: ndots, value: \"1\"}, {name: rotate}]}\n",
       cluster,
       {{"192.0.2.53", "192.0.2.54", "1.1.1.1"},
        {"corp.example", "lab.example", "x.example"},
        {"edns0", "ndots:1", "rotate"}}},
      {"more than three nameservers are cut",
       "  dnsPolicy: Default\n  dnsConfig: {nameservers: [1.1.1.1, 8.8.8.8]}\n", cluster,
       {{"192.0.2.53", "192.0.2.54", "1.1.1.1"}, host.searches, host.options},
       {"DNSConfigForming"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod = PodWith(c.spec);
    auto dns = MakePodDns(c.settings, pod, kHostResolv, "web_shop(uid-1)");
    ASSERT_TRUE(dns) << dns.error();
    EXPECT_EQ(dns->config.servers, c.want.servers);
    EXPECT_EQ(dns->config.searches, c.want.searches);
    EXPECT_EQ(dns->config.options, c.want.options);
    std::vector<std::string> reasons;
    for (const auto& e : dns->events) reasons.push_back(e.reason);
    EXPECT_EQ(reasons, c.event_reasons);
  }
}

TEST(PodDns, MessagesAreTheKubelets) {
  api::Pod pod = PodWith("");
  auto dns = MakePodDns({}, pod, "", "web_shop(uid-1)");
  ASSERT_TRUE(dns);
  ASSERT_EQ(dns->events.size(), 1u);
  EXPECT_EQ(dns->events[0].type, EventType::kWarning);
  EXPECT_EQ(dns->events[0].message,
            "pod: \"web_shop(uid-1)\". kubelet does not have ClusterDNS IP configured and cannot "
            "create Pod using \"ClusterFirst\" policy. Falling back to \"Default\" policy.");

  api::Pod many = PodWith("  dnsPolicy: Default\n  dnsConfig: {nameservers: [1.1.1.1, 8.8.8.8]}\n");
  dns = MakePodDns({{}, "", "/etc/resolv.conf"}, many, kHostResolv, "x");
  ASSERT_TRUE(dns);
  ASSERT_EQ(dns->events.size(), 1u);
  EXPECT_EQ(dns->events[0].message,
            "Nameserver limits were exceeded, some nameservers have been omitted, the applied "
            "nameserver line is: 192.0.2.53 192.0.2.54 1.1.1.1");

  // The host's search line may be longer than the API allows a pod's: it is cut from the end.
  std::string long_host = "search";
  for (int i = 0; i < 40; ++i) long_host += " d" + std::to_string(i) + ".example";
  dns = MakePodDns({{}, "", "/etc/resolv.conf"}, PodWith("  dnsPolicy: Default\n"), long_host,
                   "x");
  ASSERT_TRUE(dns);
  EXPECT_EQ(dns->config.searches.size(), 32u);
  ASSERT_EQ(dns->events.size(), 1u);
  EXPECT_THAT(dns->events[0].message,
              ::testing::StartsWith("Search Line limits were exceeded, some search paths have "
                                    "been omitted, the applied search line is: d0.example d1."));

  auto bad = MakePodDns({{}, "", "/etc/resolv.conf"}, PodWith("  dnsPolicy: Default\n"),
                        "nameserver\n", "x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().Message(), "nameserver list is empty ");
}

TEST(PodDns, ResolvConfInContainerdsFormat) {
  EXPECT_EQ(ResolvConfContent({{"10.96.0.10", "10.96.0.11"},
                               {"shop.svc.cluster.local", "svc.cluster.local"},
                               {"ndots:5"}}),
            "search shop.svc.cluster.local svc.cluster.local\n"
            "nameserver 10.96.0.10\n"
            "nameserver 10.96.0.11\n"
            "options ndots:5\n");
  EXPECT_EQ(ResolvConfContent({}), "");
}

TEST(PodHostnames, NamesAsTheKubeletGivesThem) {
  auto plain = MakePodHostnames(PodWith(""), "cluster.local");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->hostname, "web");
  EXPECT_EQ(plain->domain, "");
  EXPECT_EQ(plain->kernel, "web");

  auto long_name = MakePodHostnames(PodWith("", std::string(62, 'a') + "-b.c"), "");
  ASSERT_TRUE(long_name);
  EXPECT_EQ(long_name->hostname, std::string(62, 'a'));

  auto sub = MakePodHostnames(PodWith("  hostname: db-0\n  subdomain: db\n"), "cluster.local");
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->hostname, "db-0");
  EXPECT_EQ(sub->domain, "db.shop.svc.cluster.local");
  EXPECT_EQ(sub->kernel, "db-0");

  auto fqdn = MakePodHostnames(
      PodWith("  hostname: db-0\n  subdomain: db\n  setHostnameAsFQDN: true\n"), "cluster.local");
  ASSERT_TRUE(fqdn);
  EXPECT_EQ(fqdn->kernel, "db-0.db.shop.svc.cluster.local");

  auto too_long = MakePodHostnames(
      PodWith("  hostname: " + std::string(40, 'h') + "\n  subdomain: db\n  setHostnameAsFQDN: true\n"),
      "cluster.local");
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.error().Message(),
            "failed to construct FQDN from pod hostname and cluster domain, FQDN " +
                std::string(40, 'h') +
                ".db.shop.svc.cluster.local is too long (64 characters is the max, 66 characters "
                "requested)");
}

TEST(EtcHosts, ManagedFileAsTheKubeletWritesIt) {
  api::Pod pod = PodWith(
      "  hostname: db-0\n  subdomain: db\n  hostAliases: [{ip: 10.1.2.3, hostnames: [foo.local, "
      "bar]}, {ip: \"::2\", hostnames: [six]}]\n");
  auto names = MakePodHostnames(pod, "cluster.local");
  ASSERT_TRUE(names);
  EXPECT_EQ(ManagedHostsFile({"10.244.0.5"}, *names, pod.spec.host_aliases),
            "# Kubernetes-managed hosts file.\n"
            "127.0.0.1\tlocalhost\n"
            "::1\tlocalhost ip6-localhost ip6-loopback\n"
            "fe00::0\tip6-localnet\n"
            "fe00::0\tip6-mcastprefix\n"
            "fe00::1\tip6-allnodes\n"
            "fe00::2\tip6-allrouters\n"
            "10.244.0.5\tdb-0.db.shop.svc.cluster.local\tdb-0\n"
            "\n"
            "# Entries added by HostAliases.\n"
            "10.1.2.3\tfoo.local\tbar\n"
            "::2\tsix\n");
  // No pod IP (no pod network yet): no line naming the pod.
  EXPECT_EQ(ManagedHostsFile({}, *names, {}),
            "# Kubernetes-managed hosts file.\n"
            "127.0.0.1\tlocalhost\n"
            "::1\tlocalhost ip6-localhost ip6-loopback\n"
            "fe00::0\tip6-localnet\n"
            "fe00::0\tip6-mcastprefix\n"
            "fe00::1\tip6-allnodes\n"
            "fe00::2\tip6-allrouters\n");
  EXPECT_EQ(NodeHostsFile("127.0.0.1 localhost\n", pod.spec.host_aliases),
            "# Kubernetes-managed hosts file (host network).\n"
            "127.0.0.1 localhost\n"
            "\n"
            "# Entries added by HostAliases.\n"
            "10.1.2.3\tfoo.local\tbar\n"
            "::2\tsix\n");
}

TEST(PodEtcFiles, FilesFromTheNodeAndMounts) {
  podlimits::testing::TempDir dir("podlimits-etc");
  dir.Write("hosts", "127.0.0.1 localhost node-a\n");
  dir.Write("resolv.conf", std::string(kHostResolv));
  dir.Write("empty-resolv.conf", "# nothing\n");
  NodeEtcPaths node{dir / "hosts", dir / "empty-resolv.conf"};

  DnsSettings settings{{}, "", (dir / "resolv.conf").string()};
  auto own = MakePodNameResolution(PodWith("  dnsPolicy: Default\n"), settings, {}, "x", node);
  ASSERT_TRUE(own) << own.error();
  EXPECT_EQ(own->files.hostname, "web\n");
  EXPECT_EQ(own->files.resolv_conf,
            "search corp.example lab.example\nnameserver 192.0.2.53\nnameserver 192.0.2.54\n"
            "options edns0 ndots:2\n");
  EXPECT_THAT(own->files.hosts, ::testing::StartsWith("# Kubernetes-managed hosts file.\n"));
  EXPECT_THAT(own->events, IsEmpty());

  // Nothing to say (an empty resolver): containerd copies the node's /etc/resolv.conf.
  DnsSettings empty{{}, "", (dir / "empty-resolv.conf").string()};
  auto host_net = MakePodNameResolution(PodWith("  hostNetwork: true\n"), empty, {}, "x", node);
  ASSERT_TRUE(host_net) << host_net.error();
  EXPECT_EQ(host_net->files.resolv_conf, "# nothing\n");
  EXPECT_EQ(host_net->files.hosts,
            "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost node-a\n");

  DnsSettings missing{{}, "", (dir / "absent").string()};
  auto failed = MakePodNameResolution(PodWith(""), missing, {}, "x", node);
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().Message(), ::testing::HasSubstr("absent"));

  ASSERT_TRUE(WritePodEtcFiles(dir.path(), own->files));
  EXPECT_EQ(podlimits::testing::ReadText(dir / "hostname"), "web\n");

  api::Pod ro = PodWith("");
  ro.spec.containers[0].security_context.emplace().read_only_root_filesystem = true;
  auto mounts = PodEtcFileMounts("/pods/1", ro.spec.containers[0], {});
  ASSERT_EQ(mounts.size(), 3u);
  EXPECT_EQ(mounts[0].destination, "/etc/hosts");
  EXPECT_EQ(mounts[0].source, "/pods/1/etc-hosts");
  EXPECT_THAT(mounts[0].options, ElementsAre("rbind", "rprivate", "rw"));
  EXPECT_EQ(mounts[1].destination, "/etc/hostname");
  EXPECT_THAT(mounts[1].options, ElementsAre("rbind", "rprivate", "ro"));
  EXPECT_EQ(mounts[2].destination, "/etc/resolv.conf");
  EXPECT_THAT(mounts[2].options, ElementsAre("rbind", "rprivate", "ro"));

  // The container's own mount of a path wins.
  auto own_mounts = PodEtcFileMounts("/pods/1", ro.spec.containers[0],
                                     {{"/etc/resolv.conf", "bind", "/v", {}}});
  ASSERT_EQ(own_mounts.size(), 2u);
  EXPECT_EQ(own_mounts[1].destination, "/etc/hostname");
}

}  // namespace
}  // namespace podlimits::kubelet
