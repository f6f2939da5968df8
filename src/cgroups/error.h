// The cgroups module reports the project's one error type (base/error.h), e.g.
//   write "/sys/fs/cgroup/pids/kubepods/pod123/pids.max": Invalid argument
//   mkdir "/sys/fs/cgroup/unified/kubepods": Permission denied
#pragma once

#include "base/error.h"

namespace podlimits::cgroups {

using podlimits::Error;
using podlimits::Failure;
using podlimits::Result;
using podlimits::SystemError;

}  // namespace podlimits::cgroups
