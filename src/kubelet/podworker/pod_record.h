// What a run is about to create for a pod, written to <pod_dir>/pod.json before it creates any
// of it: enough for a later run to clean up after this one if it dies without tearing down
// (stale_pods.h), whatever that later run's own pod or configuration is. An ephemeral container
// added to the running pod is written in (with its image) before the runtime creates it.
//
//   {"uid", "name", "namespace",
//    "runtime": {"name": "crun", "binary": "/usr/bin/crun", "root": "<state>/runtime/crun"},
//    "cgroup": {"cgroupRoot": "/", "qosClass": "BestEffort", "cpuRequestMilli": 0},
//    "containers": [{"name": "app", "id": "<64 hex>"}],
//    "images": ["<image root>/<id>"]}
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "cgroups/qos.h"

namespace podlimits::kubelet {

struct PodRecord {
  std::string uid;
  std::string name;
  std::string namespace_;
  std::string runtime;  // "crun" or "runc"
  std::filesystem::path runtime_binary;
  std::filesystem::path runtime_root;  // the runtime's --root
  std::filesystem::path cgroup_root;
  cgroups::QosClass qos = cgroups::QosClass::kBestEffort;
  // The pod's cpu request, for the burstable cgroup's cpu.weight (the node's Burstable total).
  std::int64_t cpu_request_milli = 0;
  struct Container {
    std::string name;
    std::string id;
    bool operator==(const Container&) const = default;
  };
  std::vector<Container> containers;
  std::vector<std::filesystem::path> images;  // image directories the pod leases

  bool operator==(const PodRecord&) const = default;
};

std::string EncodePodRecord(const PodRecord& record);
// Errors name `source` and the field.
Result<PodRecord> DecodePodRecord(std::string_view text, std::string_view source);

inline constexpr std::string_view kPodRecordFile = "pod.json";

// Written atomically (a reader sees the whole record or none).
Result<void> WritePodRecord(const std::filesystem::path& pod_dir, const PodRecord& record);
Result<PodRecord> ReadPodRecord(const std::filesystem::path& pod_dir);

}  // namespace podlimits::kubelet
