// The QoS class the pod cgroup is placed by. The computation is the API's (api/qos.h: upstream's
// GetPodQOS, which the apiserver also stores in status.qosClass); the node half uses the same
// function so the two can never disagree.
#pragma once

#include "api/qos.h"

namespace podlimits::cgroups {

using api::ComputePodQos;
using api::Name;
using api::QosClass;

}  // namespace podlimits::cgroups
