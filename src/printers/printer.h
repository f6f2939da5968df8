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
