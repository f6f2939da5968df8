#include "validation/persistent_volume_claim.h"

#include <algorithm>
#include <array>

#include "validation/object_meta.h"

namespace podlimits::validation {
namespace {

constexpr std::array<std::string_view, 4> kAccessModes = {"ReadOnlyMany", "ReadWriteMany",
                                                          "ReadWriteOnce", "ReadWriteOncePod"};

}  // namespace

field::ErrorList ValidatePersistentVolumeClaim(const api::PersistentVolumeClaim& pvc) {
  field::ErrorList errs =
      ValidateObjectMeta(pvc.metadata, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  field::Path spec("spec");
  if (pvc.access_modes.empty()) {
    errs.push_back(
        field::Required(spec.Child("accessModes"), "at least 1 access mode is required"));
  }
  for (const auto& mode : pvc.access_modes) {
    if (std::find(kAccessModes.begin(), kAccessModes.end(), mode) == kAccessModes.end()) {
      errs.push_back(field::NotSupported(spec.Child("accessModes"), mode,
                                         {kAccessModes.begin(), kAccessModes.end()}));
    }
  }
  auto storage = pvc.requests.find("storage");
  if (storage == pvc.requests.end()) {
    errs.push_back(field::Required(spec.Child("resources").Key("storage"), ""));
  } else if (storage->second.Sign() <= 0) {
    errs.push_back(field::Invalid(spec.Child("resources").Child("requests").Key("storage"),
                                  storage->second.String(), "must be greater than zero"));
  }
  return errs;
}

}  // namespace podlimits::validation
