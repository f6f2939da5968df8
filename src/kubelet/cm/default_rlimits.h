// The rlimits a container gets for what its ulimits do not set: those a containerd node gives.
//
// containerd's CRI plugin removes the rlimits of containerd's default spec (containerd/cri#516),
// so on a containerd node a container inherits the limits of the containerd daemon, which its
// systemd unit sets (containerd.service: LimitNOFILE=infinity, LimitNPROC=infinity,
// LimitCORE=infinity; systemd turns an infinite NOFILE into fs.nr_open). The other rlimits are
// the kernel's and systemd's defaults on every node alike. podlimits applies those three as a
// containerd node would, within this node's ceilings (rlimit_ceiling.h), instead of passing on
// whatever limits the shell that started podlimits had:
//
//   nofile  fs.nr_open (soft and hard)     nproc  unlimited     core  unlimited
//
// On a node whose kubelet lacks CAP_SYS_RESOURCE a ceiling may be lower; the default is then the
// ceiling (node-info shows the defaults as granted here).
#pragma once

#include <vector>

#include "kubelet/cm/node_capabilities.h"
#include "kubelet/cm/rlimit_ceiling.h"

namespace podlimits::kubelet {

// The defaults on this node, in the order nofile, nproc, core.
std::vector<GrantedUlimit> ContainerdDefaultRlimits(const NodeCapabilities& caps);

// `granted` (a container's own ulimits) followed by the defaults it does not set.
std::vector<GrantedUlimit> WithDefaultRlimits(std::vector<GrantedUlimit> granted,
                                              const NodeCapabilities& caps);

}  // namespace podlimits::kubelet
