// The changes podlimits-runc makes to a bundle's config.json, on the parsed tree. Everything
// else in the spec is left exactly as the CRI runtime wrote it (member order included).
//
//   rlimits          process.rlimits: each granted ulimit replaces the entry of its type or is
//                    appended (the values are kernel values: unlimited is 2^64-1, as runc and
//                    crun read RLIM_INFINITY)
//   writable cgroup  a cgroup namespace in linux.namespaces and the /sys/fs/cgroup mount
//                    read-write (added when the spec has none), KEP-5474's Writable mode
#pragma once

#include <vector>

#include "base/error.h"
#include "codec/node.h"
#include "kubelet/cm/rlimit_ceiling.h"

namespace podlimits::runcwrap {

struct SpecEdits {
  std::vector<kubelet::GrantedUlimit> rlimits;
  bool writable_cgroup = false;
};

// Applies `edits` to `spec` (config.json as a tree). Returns whether anything changed; an error
// when the spec's shape cannot take them (process.rlimits not a list, ...).
Result<bool> EditSpec(codec::Node& spec, const SpecEdits& edits);

// The RLIMIT_* name of a ulimit ("nofile" -> "RLIMIT_NOFILE").
std::string RlimitType(std::string_view ulimit);

}  // namespace podlimits::runcwrap
