// The parts of upstream's ValidatePersistentVolumeClaim that LimitRange enforcement relies on:
// metadata, access modes, and a positive storage request.
#pragma once

#include "field/field.h"
#include "api/objects.h"

namespace podlimits::validation {

field::ErrorList ValidatePersistentVolumeClaim(const api::PersistentVolumeClaim& pvc);

}  // namespace podlimits::validation
