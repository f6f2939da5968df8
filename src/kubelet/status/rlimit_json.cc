#include "kubelet/status/rlimit_json.h"

#include <limits>
#include <string>

namespace podlimits::kubelet {

codec::Node RlimitJson(std::uint64_t value) {
  if (value == std::numeric_limits<std::uint64_t>::max()) return codec::Node::String("unlimited");
  // Above what a JSON integer of the tree holds (no finite rlimit is, but the kernel's type
  // allows it): its digits, exact, rather than a wrapped negative number.
  if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return codec::Node::String(std::to_string(value));
  }
  return codec::Node::Int(static_cast<std::int64_t>(value));
}

}  // namespace podlimits::kubelet
