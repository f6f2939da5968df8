// The pod sandbox's holder process, started directly: a child of podlimits in new namespaces,
// that owns what a pod's containers share, as the pause container does under the kubelet and
// containerd (and podman's infra container, whose pause process is catatonit).
//
// It is cloned with the pod's namespaces (network with loopback up and UTS with the pod's
// hostname unless hostNetwork; IPC unless hostIPC; PID unless hostPID; plus mount and, once in
// its cgroup, cgroup namespaces of its own), placed in its cgroup below the pod cgroup before it
// runs anything (so it counts against the pod's pids.max, as the pause container does), chroots
// into an empty directory, becomes 65535:65535 (which leaves it no capabilities), sets
// no_new_privs and executes the holder binary (`catatonit -P`) from a descriptor opened
// beforehand. Every fd of podlimits is closed at that exec.
//
// Not through the OCI runtime: the first sandbox ran the holder as a second crun container and a
// one-container pod took 49.9 ms (bench/run_pod.sh, median of 20); started directly, 33.4 ms
// (median of 41, the same afternoon). The holder needs nothing a runtime adds.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"

namespace podlimits::cri {

struct HolderRequest {
  std::string hostname;  // the pod's kernel hostname (kubelet/network/pod_hostname.h); unused with host_network
  bool host_network = false;
  bool host_ipc = false;
  bool host_pid = false;
  // The cgroup.procs files the holder is written to before it runs, one per managed hierarchy.
  std::vector<std::filesystem::path> cgroup_procs;
  // /proc/sys files and the values to write there, in the holder's namespaces, before it runs
  // (the pod's sysctls: "net/ipv4/ip_local_port_range", "1024 65000").
  std::vector<std::pair<std::string, std::string>> sysctls;
  std::filesystem::path root;    // an empty directory: the holder's root
  std::filesystem::path binary;  // a static executable that pauses given `-P`
};

// Starts the holder; returns its pid, a child of this process owned through the ChildReaper
// (the caller reaps it). On failure nothing of it remains (it is killed and reaped).
Result<pid_t> StartNamespaceHolder(const HolderRequest& request);

// The namespace file of a running holder that a container joins: "/proc/<pid>/ns/<type>" (the
// spec's "network" is the file "net"). Valid while the holder's pid is not reaped.
std::string HolderNamespacePath(pid_t holder_pid, std::string_view type);

}  // namespace podlimits::cri
