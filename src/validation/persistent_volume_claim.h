// The parts of upstream's ValidatePersistentVolumeClaim that LimitRange enforcement relies on:
// metadata, access modes, and a positive storage request.
#pragma once

#include "api/objects.h"
#include "field/field.h"

namespace podlimits::validation {

field::ErrorList ValidatePersistentVolumeClaim(const api::PersistentVolumeClaim& pvc);

}  // namespace podlimits::validation
