// Typed, read-only views of the objects podlimits interprets.
//
// The Node tree (node.h) holds an object exactly as written; these structs hold the fields the
// validation, admission and node code reason about, extracted from a tree that has already passed
// StrictDecode (so every scalar has the right type). They are rebuilt after a mutation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"
#include "field/field.h"
#include "resource/quantity.h"

namespace podlimits::api {

// Resource names to quantities. Sorted by name, as Go's JSON encoding sorts map keys, which also
// makes every message that walks a ResourceList deterministic.
using ResourceList = std::map<std::string, resource::Quantity>;

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

// An entry of resources.claims: a pod.spec.resourceClaims name, optionally one request of it.
struct ResourceClaim {
  std::string name;
  std::string request;
};

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  std::vector<ResourceClaim> claims;
  bool claims_set = false;  // `claims` was present (even empty)
};

struct Ulimit {
  std::string name;
  std::int64_t soft = 0;
  std::int64_t hard = 0;
};

struct CgroupOptions {
  std::optional<std::string> mount_mode;
};

struct SELinuxOptions {
  std::string user, role, type, level;
};

struct SeccompProfile {
  std::string type;
  std::optional<std::string> localhost_profile;
};

struct AppArmorProfile {
  std::string type;
  std::optional<std::string> localhost_profile;
};

struct WindowsSecurityContextOptions {
  std::optional<bool> host_process;
  bool set = false;
};

struct Capabilities {
  std::vector<std::string> add;
  std::vector<std::string> drop;
};

struct SecurityContext {
  std::optional<Capabilities> capabilities;
  std::optional<bool> privileged;
  std::optional<SELinuxOptions> se_linux_options;
  std::optional<WindowsSecurityContextOptions> windows_options;
  std::optional<std::int64_t> run_as_user;
  std::optional<std::int64_t> run_as_group;
  std::optional<bool> run_as_non_root;
  std::optional<bool> read_only_root_filesystem;
  std::optional<bool> allow_privilege_escalation;
  std::optional<std::string> proc_mount;
  std::optional<SeccompProfile> seccomp_profile;
  std::optional<AppArmorProfile> app_armor_profile;
  std::optional<std::vector<Ulimit>> ulimits;   // KEP-5758
  std::optional<CgroupOptions> cgroup_options;  // KEP-5474
};

struct Sysctl {
  std::string name, value;
};

struct PodSecurityContext {
  std::optional<SELinuxOptions> se_linux_options;
  std::optional<WindowsSecurityContextOptions> windows_options;
  std::optional<std::int64_t> run_as_user;
  std::optional<std::int64_t> run_as_group;
  std::optional<bool> run_as_non_root;
  std::vector<std::int64_t> supplemental_groups;
  bool supplemental_groups_set = false;  // present, even as []
  std::optional<std::string> supplemental_groups_policy;
  std::optional<std::int64_t> fs_group;
  std::optional<std::string> fs_group_change_policy;
  std::optional<std::string> se_linux_change_policy;
  std::vector<Sysctl> sysctls;
  std::optional<SeccompProfile> seccomp_profile;
  std::optional<AppArmorProfile> app_armor_profile;
};

struct ContainerPort {
  std::string name;
  std::optional<std::int32_t> host_port;
  std::int32_t container_port = 0;
  std::string protocol;
  std::string host_ip;
};

// valueFrom.resourceFieldRef and a downwardAPI item's resourceFieldRef.
struct ResourceFieldRef {
  std::string container_name;  // empty: the container itself (env) / required (volumes)
  std::string resource;        // "limits.cpu", "requests.memory", ...
  resource::Quantity divisor;            // zero when unset: 1
};

// valueFrom.configMapKeyRef / secretKeyRef.
struct KeySelector {
  std::string name;
  std::string key;
  bool optional = false;
};

struct EnvVar {
  std::string name;
  std::optional<std::string> value;       // absent for valueFrom
  std::optional<std::string> field_path;  // valueFrom.fieldRef.fieldPath
  std::optional<ResourceFieldRef> resource_field_ref;
  std::optional<KeySelector> config_map_key_ref;
  std::optional<KeySelector> secret_key_ref;
};

// An envFrom entry: every key of a ConfigMap or a Secret, with a prefix.
struct EnvFromSource {
  std::string prefix;
  bool secret = false;  // secretRef rather than configMapRef
  std::string name;
  bool optional = false;
};

struct VolumeMount {
  std::string name;
  std::string mount_path;
  bool read_only = false;
  std::string sub_path;
  std::string sub_path_expr;
};

// A probe's or lifecycle hook's action: exactly one of exec, httpGet, tcpSocket, grpc, sleep.
struct HandlerAction {
  std::string kind;                  // "exec", "httpGet", "tcpSocket", "grpc", "sleep"
  std::vector<std::string> command;  // exec
  std::string host;                  // httpGet, tcpSocket ("" : the pod)
  std::string port;                  // httpGet, tcpSocket, grpc: a number or a port name
  std::string path;                  // httpGet (defaulted to "/")
  std::string scheme;                // httpGet (defaulted to "HTTP")
  std::vector<std::pair<std::string, std::string>> http_headers;
  std::optional<std::string> grpc_service;
  std::int64_t sleep_seconds = 0;    // sleep
};

struct Probe {
  HandlerAction action;
  std::int32_t initial_delay_seconds = 0;
  std::int32_t timeout_seconds = 1;
  std::int32_t period_seconds = 10;
  std::int32_t success_threshold = 1;
  std::int32_t failure_threshold = 3;
  std::optional<std::int64_t> termination_grace_period_seconds;
};

// A probe or lifecycle handler that names a host (PSA's hostProbesAndLifecycleHooks check).
struct HandlerHost {
  std::string field;  // e.g. "livenessProbe.httpGet.host"
  std::string host;
};

enum class ContainerKind { kContainer, kInit, kEphemeral };

// The pod spec field that lists containers of `kind`: "containers", "initContainers" or
// "ephemeralContainers".
std::string_view ContainerListName(ContainerKind kind);

// KEP-5474's securityContext.cgroupOptions.mountMode values.
inline constexpr std::string_view kMountModeWritable = "Writable";
inline constexpr std::string_view kMountModeReadOnly = "ReadOnly";

struct Container {
  ContainerKind kind = ContainerKind::kContainer;
  std::size_t index = 0;  // position in its list
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::string working_dir;
  std::vector<ContainerPort> ports;
  std::vector<EnvVar> env;
  std::vector<EnvFromSource> env_from;
  std::vector<VolumeMount> volume_mounts;
  ResourceRequirements resources;
  bool resources_set = false;
  std::optional<std::string> restart_policy;  // init containers: "Always" makes a sidecar
  std::optional<SecurityContext> security_context;
  std::vector<HandlerHost> handler_hosts;
  std::string termination_message_path;    // defaulted to /dev/termination-log
  std::string termination_message_policy;  // File or FallbackToLogsOnError
  std::optional<Probe> liveness_probe;
  std::optional<Probe> readiness_probe;
  std::optional<Probe> startup_probe;
  std::optional<HandlerAction> post_start;
  std::optional<HandlerAction> pre_stop;
  bool tty = false;
  bool stdin = false;       // a stdin pipe (or the terminal's input) that attach can write
  bool stdin_once = false;  // the first attach session's end closes it
  // An ephemeral container's targetContainerName: it joins that container's PID namespace.
  std::string target_container_name;
  // An ephemeral container's members that upstream's allowedEphemeralContainerFields refuses
  // and that are set (ports, resizePolicy, restartPolicy, restartPolicyRules, the probes,
  // lifecycle), in EphemeralContainerCommon's field order; resources is ValidateContainerResources'.
  std::vector<std::string> set_ephemeral_forbidden;

  bool IsSidecar() const { return kind == ContainerKind::kInit && restart_policy == "Always"; }
  bool IsPrivileged() const {
    return security_context && security_context->privileged.value_or(false);
  }
  // KEP-5474's securityContext.cgroupOptions.mountMode: Writable.
  bool HasWritableCgroup() const {
    return security_context && security_context->cgroup_options &&
           security_context->cgroup_options->mount_mode == kMountModeWritable;
  }
};

// An entry of a configMap/secret volume's (or projection's) items.
struct KeyToPath {
  std::string key;
  std::string path;
  std::optional<std::int32_t> mode;
};

// A downwardAPI volume's (or projection's) items entry.
struct DownwardAPIFile {
  std::string path;
  std::optional<std::string> field_path;  // fieldRef.fieldPath
  std::optional<ResourceFieldRef> resource_field_ref;
  std::optional<std::int32_t> mode;
};

// The source of a configMap, secret or downwardAPI volume, or one of a projected volume's
// sources (`kind` says which).
struct VolumeProjection {
  std::string kind;  // "configMap", "secret", "downwardAPI", or another projection's name
  std::string name;  // the ConfigMap or Secret
  std::vector<KeyToPath> items;
  bool optional = false;
  std::vector<DownwardAPIFile> files;  // downwardAPI
};

struct Volume {
  std::string name;
  // The volume source set (hostPath, emptyDir, configMap, ...); empty when none is.
  std::string source;
  std::string host_path;       // hostPath.path
  std::string host_path_type;  // hostPath.type ("" when unset)
  std::string medium;          // emptyDir.medium ("" or "Memory")
  std::optional<resource::Quantity> size_limit;  // emptyDir.sizeLimit
  // configMap, secret, downwardAPI: one projection; projected: its sources in order.
  std::vector<VolumeProjection> projections;
  std::optional<std::int32_t> default_mode;  // defaulted to 0644 by the API
};

// spec.dnsPolicy values.
inline constexpr std::string_view kDNSClusterFirst = "ClusterFirst";
inline constexpr std::string_view kDNSClusterFirstWithHostNet = "ClusterFirstWithHostNet";
inline constexpr std::string_view kDNSDefault = "Default";
inline constexpr std::string_view kDNSNone = "None";

// spec.dnsConfig.options[*]: `value` unset for an option without one ("rotate").
struct PodDNSConfigOption {
  std::string name;
  std::optional<std::string> value;
};

struct PodDNSConfig {
  std::vector<std::string> nameservers;
  std::vector<std::string> searches;
  std::vector<PodDNSConfigOption> options;
};

struct HostAlias {
  std::string ip;
  std::vector<std::string> hostnames;
};

struct PodSpec {
  std::optional<std::string> os_name;
  bool host_pid = false;
  bool host_network = false;
  bool host_ipc = false;
  std::optional<bool> host_users;
  std::optional<bool> share_process_namespace;
  std::optional<PodSecurityContext> security_context;
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  std::vector<Container> ephemeral_containers;
  std::vector<Volume> volumes;
  std::optional<ResourceRequirements> resources;  // pod-level (PodLevelResources)
  std::vector<std::string> resource_claim_names;  // spec.resourceClaims[*].name
  ResourceList overhead;
  bool overhead_set = false;
  std::string restart_policy;
  std::optional<std::string> runtime_class_name;
  std::string service_account_name;
  std::string hostname;  // spec.hostname
  std::string subdomain;
  std::optional<bool> set_hostname_as_fqdn;
  std::string dns_policy;  // defaulted to ClusterFirst by the API
  std::optional<PodDNSConfig> dns_config;
  std::vector<HostAlias> host_aliases;
  std::optional<std::int64_t> termination_grace_period_seconds;
  std::optional<std::int64_t> active_deadline_seconds;

  bool IsWindows() const { return os_name == "windows"; }
};

// The container's field path: spec.containers[i], spec.initContainers[i], ...
field::Path ContainerPath(const Container& c);

// podutil.VisitContainers' order: init containers, containers, ephemeral containers.
template <typename Fn>
void VisitContainers(const PodSpec& spec, Fn&& fn) {
  for (const Container& c : spec.init_containers) fn(c);
  for (const Container& c : spec.containers) fn(c);
  for (const Container& c : spec.ephemeral_containers) fn(c);
}

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
};

struct LimitRangeItem {
  std::string type;
  ResourceList max, min, default_limit, default_request, max_limit_request_ratio;
};

struct LimitRange {
  ObjectMeta metadata;
  std::vector<LimitRangeItem> limits;
};

struct Namespace {
  ObjectMeta metadata;
};

// What LimitRanger reads of a PersistentVolumeClaim.
struct PersistentVolumeClaim {
  ObjectMeta metadata;
  std::vector<std::string> access_modes;
  ResourceList requests;
  ResourceList limits;
};

// Extraction from strictly-decoded trees.
ObjectMeta ReadObjectMeta(const codec::Node& object);
ResourceRequirements ReadResourceRequirements(const codec::Node& node);
Pod ReadPod(const codec::Node& object);
LimitRange ReadLimitRange(const codec::Node& object);
Namespace ReadNamespace(const codec::Node& object);
PersistentVolumeClaim ReadPersistentVolumeClaim(const codec::Node& object);

}  // namespace podlimits::api
