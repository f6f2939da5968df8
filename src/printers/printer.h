// The parts of a server-side printer (table.h): its columns and how a row's cells are made.
// Internal to src/printers; table.cc holds the core kinds', workload_printers.cc the workloads'.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "codec/node.h"

namespace podlimits::printers {

// metav1.ObjectMeta's swagger docs, which upstream uses as the NAME and AGE columns'
// descriptions of every kind's Table.
inline constexpr std::string_view kNameDoc =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
inline constexpr std::string_view kCreationDoc =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

struct Column {
  std::string_view name, type, format, description;
  int priority = 0;  // 1: shown by `-o wide` only
};

struct Printer {
  std::vector<Column> columns;
  std::function<std::vector<codec::Node>(const codec::Node&, std::chrono::sys_seconds)> cells;
};

// deployments, replicasets, jobs (pkg/printers/internalversion's printDeployment,
// printReplicaSet, printJob); nullopt for any other resource.
std::optional<Printer> WorkloadPrinter(std::string_view resource);

}  // namespace podlimits::printers
