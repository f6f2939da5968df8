// Linux capabilities for a container's OCI spec: names, the host's bounding set, and the set a
// container gets from its securityContext.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"

namespace podlimits::cri {

// "net_admin", "NET_ADMIN", "cap_net_admin" -> "CAP_NET_ADMIN" (case-insensitive, as containerd
// compares them); nullopt for a name that is not a capability this build knows.
std::optional<std::string> NormalizeCapability(std::string_view name);

// The names of the capabilities whose bits are set, in bit order; bits above the last known
// capability (CAP_CHECKPOINT_RESTORE = 40) are ignored.
std::vector<std::string> CapabilityNamesFromMask(std::uint64_t mask);

// The CapBnd mask of a /proc/<pid>/status text; nullopt when the line is missing or malformed.
std::optional<std::uint64_t> ParseCapBnd(std::string_view proc_status);

// The capabilities `container` runs with, in bit order: privileged gets every host capability;
// otherwise containerd's default set, plus `add`, minus `drop` ("ALL" adds or drops every
// capability), limited to `host_capabilities`. An added capability the host lacks is an error
// naming its field (spec.containers[0].securityContext.capabilities.add[1]).
Result<std::vector<std::string>> ContainerCapabilities(
    const api::Container& container, const std::vector<std::string>& host_capabilities);

}  // namespace podlimits::cri
