#include "kubelet/cm/node_allocatable.h"

#include <fmt/format.h>

#include "base/error.h"
#include "kubelet/config/reserved_resources.h"

namespace podlimits::kubelet {

Result<void> ValidateNodeAllocatable(std::optional<std::int64_t> pid_capacity,
                                     const NodeConfig& config) {
  if (!pid_capacity) return {};
  // GetNodeAllocatableReservation: a zero DecimalSI quantity plus system- then kube-reserved.
  resource::Quantity reservation = resource::Quantity::NewQuantity(0, resource::QuantityFormat::kDecimalSI);
  reservation.Add(config.SystemReservedPids());
  reservation.Add(config.KubeReservedPids());
  if (reservation.IsZero()) return {};
  const resource::Quantity capacity =
      resource::Quantity::NewQuantity(*pid_capacity, resource::QuantityFormat::kDecimalSI);
  resource::Quantity left = capacity;
  left.Sub(reservation);
  if (left.Sign() >= 0) return {};
  return Failure(fmt::format(
      "invalid Node Allocatable configuration. Resource \"{}\" has a reservation of {} but "
      "capacity of {}. Expected capacity >= reservation.",
      kReservedPid, reservation.GoValueString(), capacity.GoValueString()));
}

}  // namespace podlimits::kubelet
