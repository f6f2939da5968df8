#include "kubelet/config/reserved_resources.h"

#include <fmt/format.h>

#include "base/error.h"
#include "field/field.h"

namespace podlimits::kubelet {

Result<api::ResourceList> ParseReservedResources(
    const std::map<std::string, std::string>& entries) {
  api::ResourceList out;
  for (const auto& [name, value] : entries) {
    if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && name != kReservedPid) {
      return Failure(fmt::format("cannot reserve {} resource", field::GoQuote(name)));
    }
    auto q = resource::Quantity::Parse(value);
    if (!q) {
      return Failure(fmt::format("failed to parse quantity {} for {} resource: {}",
                                 field::GoQuote(value), field::GoQuote(name),
                                 resource::Message(q.error())));
    }
    if (q->Sign() < 0) {
      return Failure(fmt::format("resource quantity for {} cannot be negative: {}",
                                 field::GoQuote(name), value));
    }
    out.insert_or_assign(name, *q);
  }
  return out;
}

}  // namespace podlimits::kubelet
