// NRI's protobuf messages (package nri.pkg.api.v1alpha1, api.proto of github.com/containerd/nri
// 0.8, as Debian's golang-github-containerd-nri-dev ships it), declared by hand: only the fields
// the plugin reads or writes, with api.proto's field numbers. Fields the plugin does not know are
// skipped, as any protobuf reader does, so a newer runtime's additions pass.
//
//   Runtime service (the plugin calls):  RegisterPlugin(RegisterPluginRequest) -> Empty
//   Plugin service (the runtime calls):  Configure, Synchronize, Shutdown, CreateContainer,
//                                        UpdateContainer, StopContainer, StateChange
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace podlimits::nri {

inline constexpr std::string_view kRuntimeService = "nri.pkg.api.v1alpha1.Runtime";
inline constexpr std::string_view kPluginService = "nri.pkg.api.v1alpha1.Plugin";

// enum Event; a subscription sets bit (event - 1) of ConfigureResponse.events.
enum class Event : int {
  kUnknown = 0,
  kRunPodSandbox = 1,
  kStopPodSandbox = 2,
  kRemovePodSandbox = 3,
  kCreateContainer = 4,
  kPostCreateContainer = 5,
  kStartContainer = 6,
  kPostStartContainer = 7,
  kUpdateContainer = 8,
  kPostUpdateContainer = 9,
  kStopContainer = 10,
  kRemoveContainer = 11,
};
constexpr std::int32_t EventBit(Event e) { return std::int32_t{1} << (static_cast<int>(e) - 1); }

using StringMap = std::map<std::string, std::string, std::less<>>;

struct PodSandbox {
  std::string id;                // 1
  std::string name;              // 2
  std::string uid;               // 3
  std::string pod_namespace;     // 4
  StringMap labels;              // 5
  StringMap annotations;         // 6
  std::string runtime_handler;   // 7
  std::string cgroup_parent;     // 8 linux: LinuxPodSandbox.cgroup_parent (3)
  std::string cgroups_path;      //          LinuxPodSandbox.cgroups_path (4)
};

struct LinuxNamespace {
  std::string type;  // 1
  std::string path;  // 2
};

struct PosixRlimit {
  std::string type;        // 1 "RLIMIT_NOFILE"
  std::uint64_t hard = 0;  // 2
  std::uint64_t soft = 0;  // 3

  bool operator==(const PosixRlimit&) const = default;
};

struct Mount {
  std::string destination;           // 1
  std::string type;                  // 2
  std::string source;                // 3
  std::vector<std::string> options;  // 4

  bool operator==(const Mount&) const = default;
};

struct Container {
  std::string id;                          // 1
  std::string pod_sandbox_id;              // 2
  std::string name;                        // 3
  StringMap labels;                        // 5
  StringMap annotations;                   // 6
  std::vector<Mount> mounts;               // 9
  std::vector<LinuxNamespace> namespaces;  // 11 linux: LinuxContainer.namespaces (1)
  std::string cgroups_path;                //          LinuxContainer.cgroups_path (5)
  std::uint32_t pid = 0;                   // 12
  std::vector<PosixRlimit> rlimits;        // 13
};

struct ConfigureRequest {
  std::string config;           // 1
  std::string runtime_name;     // 2
  std::string runtime_version;  // 3
  std::int64_t registration_timeout_ms = 0;  // 4
  std::int64_t request_timeout_ms = 0;       // 5
};

struct SynchronizeRequest {
  std::vector<PodSandbox> pods;         // 1
  std::vector<Container> containers;    // 2
  bool more = false;                    // 3
};

// CreateContainerRequest, UpdateContainerRequest, StopContainerRequest and StateChangeEvent all
// carry a pod and a container (field numbers differ only for StateChangeEvent).
struct PodAndContainer {
  Event event = Event::kUnknown;  // StateChangeEvent only
  PodSandbox pod;
  Container container;
};

Result<ConfigureRequest> DecodeConfigureRequest(std::string_view bytes);
Result<SynchronizeRequest> DecodeSynchronizeRequest(std::string_view bytes);
// CreateContainerRequest / UpdateContainerRequest / StopContainerRequest: pod 1, container 2.
Result<PodAndContainer> DecodeContainerRequest(std::string_view bytes);
// StateChangeEvent: event 1, pod 2, container 3.
Result<PodAndContainer> DecodeStateChangeEvent(std::string_view bytes);

// What a plugin may ask for the container being created (ContainerAdjustment's fields it uses).
struct ContainerAdjustment {
  std::vector<Mount> mounts;         // 3
  std::vector<PosixRlimit> rlimits;  // 7

  bool Empty() const { return mounts.empty() && rlimits.empty(); }
};

std::string EncodeRegisterPluginRequest(std::string_view name, std::string_view index);
std::string EncodeConfigureResponse(std::int32_t events);
std::string EncodeSynchronizeResponse(bool more);
std::string EncodeCreateContainerResponse(const ContainerAdjustment& adjust);

// For tests and the fuzzer, which play the runtime.
std::string EncodePodSandbox(const PodSandbox& pod);
std::string EncodeContainer(const Container& c);
std::string EncodeContainerRequest(const PodSandbox& pod, const Container& c);
std::string EncodeStateChangeEvent(Event event, const PodSandbox& pod, const Container* c);
Result<ContainerAdjustment> DecodeCreateContainerResponse(std::string_view bytes);

}  // namespace podlimits::nri
