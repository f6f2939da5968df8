// What rlimits this node can grant a container, and what a container's ulimits become here.
//
// A process without CAP_SYS_RESOURCE cannot raise a hard rlimit above its own (kernel
// do_prlimit), and the OCI runtime that sets a container's rlimits is podlimits' child, with
// podlimits' limits and capabilities. RLIMIT_NOFILE can never exceed fs.nr_open, not even with
// the capability. So each ulimit has a ceiling:
//
//   nofile   min(nr_open, own hard limit)   (nr_open alone with CAP_SYS_RESOURCE)
//   others   own hard limit                 (unlimited with CAP_SYS_RESOURCE)
//
// A value above the ceiling is rejected by node admission with a message naming the container,
// the ulimit, the value, the ceiling and why — rather than letting the runtime fail with a bare
// EPERM. `-1` asks for "unlimited"; it is granted as the ceiling (RLIM_INFINITY where the
// ceiling is unlimited), matching what the runtime does for nofile (clamped to nr_open). When
// that grant is a finite value only because this node lacks CAP_SYS_RESOURCE, a Warning event
// (UlimitClamped) says so. Other negative values become 0, as the KEP's runtimes do.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/objects.h"
#include "field/field.h"
#include "kubelet/cm/node_capabilities.h"
#include "kubelet/events/events.h"

namespace podlimits::kubelet {

inline constexpr std::string_view kWhyNoCapSysResource =
    "this node cannot raise a hard rlimit above its own: the kubelet lacks CAP_SYS_RESOURCE";
// The same under podlimits-runc, where the limits are those of the CRI runtime that ran it.
inline constexpr std::string_view kWhyNoCapSysResourceUnderRuntime =
    "this node cannot raise a hard rlimit above its own: the container runtime that runs "
    "podlimits-runc lacks CAP_SYS_RESOURCE";
// The same under `podlimits nri`, which judges the ceilings by its own limits and capabilities.
inline constexpr std::string_view kWhyNoCapSysResourceInNriPlugin =
    "this node cannot raise a hard rlimit above its own: the NRI plugin (podlimits nri) lacks "
    "CAP_SYS_RESOURCE";
inline constexpr std::string_view kWhyNrOpen =
    "the kernel refuses an RLIMIT_NOFILE above fs.nr_open (/proc/sys/fs/nr_open)";

// The kernel's default fs.nr_open, assumed when /proc/sys/fs/nr_open cannot be read.
inline constexpr std::int64_t kDefaultNrOpen = 1048576;

struct UlimitCeiling {
  RlimValue value = kRlimInfinity;
  std::string_view why;  // empty when unlimited
};

UlimitCeiling CeilingFor(std::string_view ulimit, const NodeCapabilities& caps);

// One ulimit as it will be applied (kernel values: kRlimInfinity is unlimited).
struct GrantedUlimit {
  std::string name;
  RlimValue soft = 0;
  RlimValue hard = 0;

  bool operator==(const GrantedUlimit&) const = default;
};

struct UlimitGrant {
  std::vector<GrantedUlimit> granted;  // in the container's order
  std::vector<Event> warnings;         // UlimitClamped
  // Set when the container asks more than this node can grant; the message is complete.
  std::optional<std::string> rejection;
};

// Grants `c`'s securityContext.ulimits on this node (empty when it sets none).
UlimitGrant GrantUlimits(const api::Container& c, const NodeCapabilities& caps);

}  // namespace podlimits::kubelet
