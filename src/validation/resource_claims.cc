// validateResourceClaimNames: resources.claims entries must name a pod.spec.resourceClaims entry,
// once (per request).
#include <fmt/format.h>

#include "validation/object_meta.h"
#include "validation/pod.h"

namespace podlimits::validation {

field::ErrorList ValidateResourceClaimNames(const std::vector<api::ResourceClaim>& claims,
                                            const std::set<std::string>& pod_claim_names,
                                            const field::Path& path) {
  field::ErrorList errs;
  std::set<std::string> names;  // "name" or "name/request"
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const api::ResourceClaim& claim = claims[i];
    field::Path item = path.Index(i);
    if (claim.name.empty()) {
      errs.push_back(field::Required(item, ""));
      continue;
    }
    if (names.contains(claim.name)) {
      // Every request of that claim is already referenced.
      errs.push_back(field::Duplicate(item, claim.name));
    } else {
      std::string key = claim.name;
      if (!claim.request.empty()) {
        for (auto& msg : IsDNS1123Label(claim.request)) {
          errs.push_back(field::Invalid(item.Child("request"), claim.request, msg));
        }
        key += "/" + claim.request;
      }
      if (names.contains(key)) {
        errs.push_back(field::Duplicate(item, key));
      } else if (claim.request.empty()) {
        // The whole claim after one of its requests overlaps too.
        for (const std::string& seen : names) {
          std::size_t slash = seen.find('/');
          if (slash != std::string::npos && seen.compare(0, slash, claim.name) == 0 &&
              slash == claim.name.size()) {
            errs.push_back(field::Duplicate(item, claim.name));
          }
        }
      }
      names.insert(std::move(key));
    }
    if (!pod_claim_names.contains(claim.name)) {
      field::Error e = field::NotFound(item, claim.name);
      e.detail = "must be one of the names in pod.spec.resourceClaims";
      if (pod_claim_names.empty()) {
        e.detail += " which is empty";
      } else {
        std::string list;
        for (const std::string& n : pod_claim_names) list += (list.empty() ? "" : ", ") + n;
        e.detail += ": " + list;
      }
      errs.push_back(std::move(e));
    }
  }
  return errs;
}

}  // namespace podlimits::validation
