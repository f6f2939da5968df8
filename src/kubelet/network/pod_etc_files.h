// The files a node writes for a pod's name resolution and mounts over the image's:
//
//   /etc/hosts        <pod dir>/etc-hosts, the kubelet's managed hosts file (pod_hostname.h),
//                     mounted read-write as the kubelet mounts it
//   /etc/hostname     <pod dir>/hostname: the pod's kernel hostname (the node's with
//                     hostNetwork), as containerd writes it
//   /etc/resolv.conf  <pod dir>/resolv.conf: the pod's DNS config (pod_dns.h) in containerd's
//                     format, or the node's /etc/resolv.conf when the config is empty
//
// hostname and resolv.conf are read-only in a container with readOnlyRootFilesystem, as
// containerd mounts them. A container that mounts a volume at one of these paths keeps its own,
// as the kubelet and containerd skip a path the container already mounts.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "cri/spec.h"
#include "kubelet/events/events.h"
#include "kubelet/network/pod_dns.h"
#include "kubelet/network/pod_hostname.h"

namespace podlimits::kubelet {

struct PodEtcFiles {
  std::string hosts;
  std::string hostname;
  std::string resolv_conf;
};

// Where the node's own files are read from; tests point them elsewhere.
struct NodeEtcPaths {
  std::filesystem::path hosts = "/etc/hosts";
  std::filesystem::path resolv_conf = "/etc/resolv.conf";  // what containerd copies
};

struct PodNameResolution {
  PodHostnames names;
  PodEtcFiles files;
  std::vector<Event> events;  // MissingClusterDNS, DNSConfigForming
};

// Everything the pod's name resolution needs, before anything is created. `pod_ips` is empty
// while pods have no network of their own. Fails with the message the kubelet puts after
// "Failed to create pod sandbox: " (an unreadable resolv.conf, an FQDN over 64 characters).
Result<PodNameResolution> MakePodNameResolution(const api::Pod& pod, const DnsSettings& dns,
                                                const std::vector<std::string>& pod_ips,
                                                std::string_view pod_description,
                                                const NodeEtcPaths& node = {});

// Writes the three files into `pod_dir`.
Result<void> WritePodEtcFiles(const std::filesystem::path& pod_dir, const PodEtcFiles& files);

// The spec mounts of those files for `container`, skipping any path among `container_mounts`.
std::vector<cri::SpecMount> PodEtcFileMounts(const std::filesystem::path& pod_dir,
                                             const api::Container& container,
                                             const std::vector<cri::SpecMount>& container_mounts);

}  // namespace podlimits::kubelet
