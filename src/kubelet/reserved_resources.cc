#include "kubelet/reserved_resources.h"

#include <fmt/format.h>

#include "api/field.h"

namespace podlimits::kubelet {

std::expected<api::ResourceList, std::string> ParseReservedResources(
    const std::map<std::string, std::string>& entries) {
  api::ResourceList out;
  for (const auto& [name, value] : entries) {
    if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && name != kReservedPid) {
      return std::unexpected(fmt::format("cannot reserve {} resource", field::GoQuote(name)));
    }
    auto q = api::Quantity::Parse(value);
    if (!q) {
      return std::unexpected(fmt::format("failed to parse quantity {} for {} resource: {}",
                                         field::GoQuote(value), field::GoQuote(name),
                                         api::Message(q.error())));
    }
    if (q->Sign() < 0) {
      return std::unexpected(fmt::format("resource quantity for {} cannot be negative: {}",
                                         field::GoQuote(name), value));
    }
    out.insert_or_assign(name, *q);
  }
  return out;
}

}  // namespace podlimits::kubelet
