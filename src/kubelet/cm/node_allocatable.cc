#include "kubelet/cm/node_allocatable.h"

#include <fmt/format.h>

#include "base/error.h"
#include "kubelet/config/reserved_resources.h"

namespace podlimits::kubelet {

Result<void> ValidateNodeAllocatable(std::optional<std::int64_t> pid_capacity,
                                     const NodeConfig& config) {
  if (!pid_capacity) return {};
  // GetNodeAllocatableReservation: a zero DecimalSI quantity plus system- then kube-reserved.
  api::Quantity reservation = api::Quantity::NewQuantity(0, api::QuantityFormat::kDecimalSI);
  reservation.Add(config.SystemReservedPids());
  reservation.Add(config.KubeReservedPids());
  if (reservation.IsZero()) return {};
  const api::Quantity capacity =
      api::Quantity::NewQuantity(*pid_capacity, api::QuantityFormat::kDecimalSI);
  api::Quantity left = capacity;
  left.Sub(reservation);
  if (left.Sign() >= 0) return {};
  return Failure(fmt::format(
      "invalid Node Allocatable configuration. Resource \"{}\" has a reservation of {} but "
      "capacity of {}. Expected capacity >= reservation.",
      kReservedPid, reservation.GoValueString(), capacity.GoValueString()));
}

}  // namespace podlimits::kubelet
