#include "kubelet/lifecycle/field_coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "field/field.h"

namespace podlimits::kubelet {
namespace {

constexpr std::string_view kHostPortWhy =
    "applied with hostNetwork, or through portmap on a node whose podNetwork is cni with a "
    "network that has the portMappings capability; refused otherwise (pods have loopback only)";

using enum Coverage;

struct RawRule {
  std::string_view path;
  Coverage coverage;
  std::string_view why = {};
  std::vector<std::string_view> applied_values = {};
};

// `<c>` is every container list a pod can be created with.
constexpr std::string_view kContainerLists[] = {"spec.initContainers[*]", "spec.containers[*]"};

const std::vector<RawRule>& RawRules() {
  static const std::vector<RawRule>& rules = *new std::vector<RawRule>{
      {"apiVersion", kNoNodeMeaning, "the object's type"},
      {"kind", kNoNodeMeaning, "the object's type"},
      {"metadata", kNoNodeMeaning,
       "labels, annotations, owner references: API bookkeeping (name, namespace and uid below)"},
      {"metadata.name", kApplied, "the pod's hostname, events and status"},
      {"metadata.namespace", kApplied, "events and status"},
      {"metadata.uid", kApplied, "the pod cgroup pod<uid> and the pod's state directory"},
      {"status", kNoNodeMeaning, "written by the node, never read from a manifest"},

      {"spec", kDescend},
      {"spec.volumes", kDescend},
      {"spec.volumes[*]", kDescend},
      {"spec.volumes[*].name", kNoNodeMeaning, "only names the volume"},
      {"spec.volumes[*].emptyDir", kDescend},
      {"spec.volumes[*].emptyDir.medium", kApplied,
       "a directory under the pod's directory, or tmpfs for Memory", {"", "Memory"}},
      {"spec.volumes[*].emptyDir.sizeLimit", kApplied,
       "the tmpfs size with medium: Memory; refused on disk, where nothing would enforce it"},
      {"spec.volumes[*].hostPath", kApplied,
       "the node's path, after the kubelet's type check (the OrCreate types create it)"},
      {"spec.volumes[*].configMap", kDescend},
      {"spec.volumes[*].configMap.name", kApplied, "the ConfigMap of the pod's namespace whose data and binaryData become files, read-only"},
      {"spec.volumes[*].configMap.items", kApplied, "only these keys, at these paths (no \"..\" element, not absolute), with their modes"},
      {"spec.volumes[*].configMap.defaultMode", kApplied, "the files' mode (fsGroup adds group read)"},
      {"spec.volumes[*].configMap.optional", kApplied, "a missing object or key leaves the volume empty instead of failing the mount"},
      {"spec.volumes[*].configMap.defaultUser", kApplied,
       "the files are owned by root (0); another owner is not applied", {"0"}},
      {"spec.volumes[*].secret", kDescend},
      {"spec.volumes[*].secret.secretName", kApplied, "the Secret of the pod's namespace whose data become files on tmpfs, read-only"},
      {"spec.volumes[*].secret.items", kApplied, "only these keys, at these paths (no \"..\" element, not absolute), with their modes"},
      {"spec.volumes[*].secret.defaultMode", kApplied, "the files' mode (fsGroup adds group read)"},
      {"spec.volumes[*].secret.optional", kApplied, "a missing object or key leaves the volume empty instead of failing the mount"},
      {"spec.volumes[*].secret.defaultUser", kApplied,
       "the files are owned by root (0); another owner is not applied", {"0"}},
      {"spec.volumes[*].downwardAPI", kDescend},
      {"spec.volumes[*].downwardAPI.defaultMode", kApplied, "the files' mode"},
      {"spec.volumes[*].downwardAPI.items", kApplied,
       "the pod's metadata and the containers' resources as files on tmpfs, read-only"},
      {"spec.volumes[*].projected", kDescend},
      {"spec.volumes[*].projected.defaultMode", kApplied, "the files' mode"},
      {"spec.volumes[*].projected.sources", kDescend},
      {"spec.volumes[*].projected.sources[*]", kDescend},
      {"spec.volumes[*].projected.sources[*].configMap", kApplied,
       "as a configMap volume, merged into one tmpfs directory"},
      {"spec.volumes[*].projected.sources[*].secret", kApplied,
       "as a secret volume, merged into one tmpfs directory"},
      {"spec.volumes[*].projected.sources[*].downwardAPI", kApplied,
       "as a downwardAPI volume, merged into one tmpfs directory"},
      {"spec.volumes[*].projected.sources[*].serviceAccountToken", kRefused,
       "this node has no token issuer"},
      {"spec.volumes[*].projected.sources[*].clusterTrustBundle", kRefused,
       "this node serves no ClusterTrustBundles"},
      {"spec.volumes[*].projected.sources[*].podCertificate", kRefused,
       "this node issues no pod certificates"},
      {"spec.initContainers", kDescend},
      {"spec.containers", kDescend},
      {"spec.ephemeralContainers", kApplied,
       "added to the running pod through pods/ephemeralcontainers and started in it (the pod "
       "cgroup, its namespaces, the target's PID namespace), never restarted; a new worker of "
       "the pod (its monitor restarted) does not start them again"},
      {"spec.restartPolicy", kApplied, "restarts with the kubelet's back-off"},
      {"spec.terminationGracePeriodSeconds", kApplied,
       "SIGTERM (or the image's stop signal), SIGKILL when the grace period ends"},
      {"spec.activeDeadlineSeconds", kApplied,
       "from the pod's start: stopped with its grace period, Failed with DeadlineExceeded"},
      {"spec.dnsPolicy", kApplied,
       "/etc/resolv.conf as the kubelet computes it: ClusterFirst from the node config's "
       "clusterDNS (without one: MissingClusterDNS and the node's resolver), Default, None"},
      {"spec.dnsConfig", kApplied,
       "appended to the policy's nameservers, searches and options; trimmed to the resolver's "
       "limits with DNSConfigForming"},
      {"spec.nodeSelector", kNoNodeMeaning,
       "scheduling (under serve, the one-node scheduler binds only a pod the Node matches)"},
      {"spec.nodeName", kNoNodeMeaning, "scheduling"},
      {"spec.affinity", kNoNodeMeaning,
       "scheduling (under serve, required node affinity is a filter of the one-node scheduler)"},
      {"spec.tolerations", kNoNodeMeaning,
       "scheduling (under serve, against the Node's NoSchedule and NoExecute taints and cordon)"},
      {"spec.schedulerName", kNoNodeMeaning, "scheduling"},
      {"spec.priorityClassName", kNoNodeMeaning, "scheduling"},
      {"spec.priority", kNoNodeMeaning, "scheduling and preemption"},
      {"spec.preemptionPolicy", kNoNodeMeaning, "scheduling and preemption"},
      {"spec.topologySpreadConstraints", kNoNodeMeaning, "scheduling"},
      {"spec.schedulingGates", kNoNodeMeaning,
       "scheduling (under serve, a gated pod stays Pending, SchedulingGated, until they are "
       "removed)"},
      {"spec.schedulingGroup", kNoNodeMeaning, "scheduling"},
      {"spec.readinessGates", kNoNodeMeaning,
       "conditions other controllers set (under serve, through pods/status; Ready waits for "
       "them)"},
      {"spec.serviceAccountName", kNoNodeMeaning, "no API credentials are mounted into pods"},
      {"spec.serviceAccount", kNoNodeMeaning, "no API credentials are mounted into pods"},
      {"spec.automountServiceAccountToken", kNoNodeMeaning,
       "no API credentials are mounted into pods"},
      {"spec.imagePullSecrets", kNoNodeMeaning, "images come from the node's store, never pulled"},
      {"spec.enableServiceLinks", kNoNodeMeaning, "there are no Services to link"},
      {"spec.subdomain", kApplied,
       "the pod's domain <subdomain>.<namespace>.svc.<clusterDomain> in /etc/hosts"},
      {"spec.hostNetwork", kApplied,
       "the node's network and UTS namespaces; otherwise the sandbox's (loopback only)"},
      {"spec.hostPID", kApplied, "the node's PID namespace"},
      {"spec.hostIPC", kApplied, "the node's IPC namespace; otherwise the sandbox's"},
      {"spec.shareProcessNamespace", kApplied,
       "the containers join the sandbox's PID namespace, whose PID 1 is the holder"},
      {"spec.hostUsers", kApplied, "user namespaces are not supported by this node", {"true"}},
      {"spec.hostname", kApplied,
       "the pod's hostname instead of its name (63 characters at most): UTS name, "
       "/etc/hostname, /etc/hosts"},
      {"spec.hostnameOverride", kRefused, "the pod's hostname is its name on this node"},
      {"spec.setHostnameAsFQDN", kApplied,
       "the kernel hostname becomes <hostname>.<domain> when the pod has a subdomain "
       "(64 characters at most, else FailedCreatePodSandBox)"},
      {"spec.hostAliases", kApplied, "entries of the kubelet-managed /etc/hosts"},
      {"spec.runtimeClassName", kRefused,
       "this node has one runtime handler and no RuntimeClass objects"},
      {"spec.os", kDescend},
      {"spec.os.name", kApplied, "a Linux node", {"linux"}},
      {"spec.resourceClaims", kRefused, "dynamic resource allocation is not supported"},
      {"spec.resources", kDescend},
      {"spec.resources.limits", kResource, "pid: the pod cgroup's pids.max"},
      {"spec.resources.requests", kResource, ""},
      {"spec.overhead", kResource, ""},
      {"spec.securityContext", kDescend},
      {"spec.securityContext.runAsUser", kApplied, "the process uid"},
      {"spec.securityContext.runAsGroup", kApplied, "the process gid"},
      {"spec.securityContext.runAsNonRoot", kApplied,
       "a container that would run as uid 0 fails with CreateContainerConfigError"},
      {"spec.securityContext.supplementalGroups", kApplied, "the process's groups"},
      {"spec.securityContext.supplementalGroupsPolicy", kApplied,
       "Merge: the image's /etc/group memberships are added", {"Merge"}},
      {"spec.securityContext.fsGroup", kApplied,
       "added to the process's groups (no volumes to own)"},
      {"spec.securityContext.fsGroupChangePolicy", kNoNodeMeaning, "no volumes to own"},
      {"spec.securityContext.seLinuxChangePolicy", kNoNodeMeaning, "no volumes to relabel"},
      {"spec.securityContext.seLinuxOptions", kRefused, "SELinux labels are not applied"},
      {"spec.securityContext.windowsOptions", kNoNodeMeaning, "Windows only"},
      {"spec.securityContext.sysctls", kApplied,
       "written in the sandbox's network and IPC namespaces; the safe set plus "
       "allowedUnsafeSysctls, else SysctlForbidden"},
      {"spec.securityContext.seccompProfile", kApplied,
       "inherited by containers that set none; RuntimeDefault is the node's default profile "
       "(containers-common), Localhost one below the node's profile root"},
      {"spec.securityContext.appArmorProfile", kDescend},
      {"spec.securityContext.appArmorProfile.type", kApplied,
       "RuntimeDefault: podlimits-default; Localhost: a loaded profile; Unconfined: none. On a "
       "node without AppArmor: refused with the kubelet's message"},
      {"spec.securityContext.appArmorProfile.localhostProfile", kApplied,
       "the profile's name; it must be loaded on the node (else refused: profile \"x\" is not "
       "loaded)"},

      {"<c>", kDescend},
      {"<c>.name", kApplied, "the container's cgroup, bundle, events and status"},
      {"<c>.image", kApplied, "from the node's image store (podlimits image load)"},
      {"<c>.imagePullPolicy", kApplied,
       "images are never pulled: a missing image is ErrImageNeverPull whatever the policy"},
      {"<c>.command", kApplied, "the process's arguments, with $(VAR) expansion"},
      {"<c>.args", kApplied, "the process's arguments, with $(VAR) expansion"},
      {"<c>.workingDir", kApplied, "the process's working directory"},
      {"<c>.env", kDescend},
      {"<c>.env[*]", kDescend},
      {"<c>.env[*].name", kApplied, "the process's environment"},
      {"<c>.env[*].value", kApplied, "the process's environment"},
      {"<c>.env[*].valueFrom", kDescend},
      {"<c>.env[*].valueFrom.fieldRef", kDescend},
      {"<c>.env[*].valueFrom.fieldRef.apiVersion", kNoNodeMeaning, "v1, the only version"},
      {"<c>.env[*].valueFrom.fieldRef.fieldPath", kApplied,
       "the pod's field; also status.podIP and status.podIPs when the pod has an address "
       "(podNetwork cni, or hostNetwork on a node that knows its own), status.hostIP and "
       "status.hostIPs when the node knows its address (serve); other values refused",
       {"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels['*",
        "metadata.annotations['*", "spec.nodeName", "spec.serviceAccountName"}},
      {"<c>.env[*].valueFrom.configMapKeyRef", kApplied,
       "the key of a ConfigMap of the pod's namespace (optional: skipped when missing)"},
      {"<c>.env[*].valueFrom.secretKeyRef", kApplied,
       "the key of a Secret of the pod's namespace (optional: skipped when missing)"},
      {"<c>.env[*].valueFrom.resourceFieldRef", kApplied,
       "the container's request or limit (an unset limit reads as the node's allocatable), "
       "divided by the divisor and rounded up"},
      {"<c>.envFrom", kApplied,
       "every data key of the ConfigMap or Secret, prefixed; invalid names skipped with an "
       "InvalidEnvironmentVariableNames event"},
      {"<c>.ports", kDescend},
      {"<c>.ports[*]", kDescend},
      {"<c>.ports[*].name", kNoNodeMeaning, "informational"},
      {"<c>.ports[*].containerPort", kNoNodeMeaning, "informational"},
      {"<c>.ports[*].protocol", kNoNodeMeaning, "informational"},
      {"<c>.ports[*].hostPort", kRefused, kHostPortWhy},
      {"<c>.ports[*].hostIP", kRefused, kHostPortWhy},
      {"<c>.resources", kDescend},
      {"<c>.resources.limits", kResource, ""},
      {"<c>.resources.requests", kResource, ""},
      {"<c>.resources.claims", kRefused, "dynamic resource allocation is not supported"},
      {"<c>.resizePolicy", kNoNodeMeaning, "resources never change in place on this node"},
      {"<c>.restartPolicy", kApplied, "Always makes an init container a sidecar"},
      {"<c>.restartPolicyRules", kRefused, "per-exit-code restart rules are not supported"},
      {"<c>.volumeMounts", kDescend},
      {"<c>.volumeMounts[*]", kDescend},
      {"<c>.volumeMounts[*].name", kApplied, "the volume"},
      {"<c>.volumeMounts[*].mountPath", kApplied, "a bind mount there"},
      {"<c>.volumeMounts[*].readOnly", kApplied, "the bind mount is read-only"},
      {"<c>.volumeMounts[*].subPath", kApplied,
       "resolved beneath the volume without symlinks, bind-mounted from the open descriptor"},
      {"<c>.volumeMounts[*].subPathExpr", kApplied, "expanded with the container's environment"},
      {"<c>.volumeMounts[*].mountPropagation", kApplied,
       "None (rprivate); mounts do not propagate between this node and its pods", {"None"}},
      {"<c>.volumeMounts[*].recursiveReadOnly", kApplied,
       "Disabled: readOnly applies to the mount itself, as upstream's default", {"Disabled"}},
      {"<c>.volumeDevices", kRefused, "block volumes are not supported"},
      {"<c>.livenessProbe", kDescend},
      {"<c>.livenessProbe.exec", kApplied, "the runtime's exec in the container; exit 0 succeeds"},
      {"<c>.livenessProbe.httpGet", kDescend},
      {"<c>.livenessProbe.httpGet.path", kApplied, "the request's path"},
      {"<c>.livenessProbe.httpGet.port", kApplied, "a number or the name of a container port"},
      {"<c>.livenessProbe.httpGet.host", kApplied, "connected to from the node; without it, the pod itself (127.0.0.1 in its network namespace)"},
      {"<c>.livenessProbe.httpGet.scheme", kApplied, "HTTP, or HTTPS without certificate verification (as the kubelet)", {"HTTP", "HTTPS"}},
      {"<c>.livenessProbe.httpGet.httpHeaders", kApplied, "sent with the request"},
      {"<c>.livenessProbe.httpGet.protocol", kRefused, "only HTTP/1.1 requests are made"},
      {"<c>.livenessProbe.tcpSocket", kApplied, "a TCP connect, to the pod itself unless host is set"},
      {"<c>.livenessProbe.grpc", kApplied,
       "grpc.health.v1.Health/Check over HTTP/2 without TLS to the pod itself (127.0.0.1 in its "
       "network namespace); SERVING succeeds"},
      {"<c>.livenessProbe.initialDelaySeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.livenessProbe.timeoutSeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.livenessProbe.periodSeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.livenessProbe.successThreshold", kApplied, "the kubelet's prober timing"},
      {"<c>.livenessProbe.failureThreshold", kApplied, "the kubelet's prober timing"},
      {"<c>.livenessProbe.terminationGracePeriodSeconds", kApplied, "the grace period of the kill a failed probe causes"},
      {"<c>.readinessProbe", kDescend},
      {"<c>.readinessProbe.exec", kApplied, "the runtime's exec in the container; exit 0 succeeds"},
      {"<c>.readinessProbe.httpGet", kDescend},
      {"<c>.readinessProbe.httpGet.path", kApplied, "the request's path"},
      {"<c>.readinessProbe.httpGet.port", kApplied, "a number or the name of a container port"},
      {"<c>.readinessProbe.httpGet.host", kApplied, "connected to from the node; without it, the pod itself (127.0.0.1 in its network namespace)"},
      {"<c>.readinessProbe.httpGet.scheme", kApplied, "HTTP, or HTTPS without certificate verification (as the kubelet)", {"HTTP", "HTTPS"}},
      {"<c>.readinessProbe.httpGet.httpHeaders", kApplied, "sent with the request"},
      {"<c>.readinessProbe.httpGet.protocol", kRefused, "only HTTP/1.1 requests are made"},
      {"<c>.readinessProbe.tcpSocket", kApplied, "a TCP connect, to the pod itself unless host is set"},
      {"<c>.readinessProbe.grpc", kApplied,
       "grpc.health.v1.Health/Check over HTTP/2 without TLS to the pod itself (127.0.0.1 in its "
       "network namespace); SERVING succeeds"},
      {"<c>.readinessProbe.initialDelaySeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.readinessProbe.timeoutSeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.readinessProbe.periodSeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.readinessProbe.successThreshold", kApplied, "the kubelet's prober timing"},
      {"<c>.readinessProbe.failureThreshold", kApplied, "the kubelet's prober timing"},
      {"<c>.readinessProbe.terminationGracePeriodSeconds", kApplied, "the grace period of the kill a failed probe causes"},
      {"<c>.startupProbe", kDescend},
      {"<c>.startupProbe.exec", kApplied, "the runtime's exec in the container; exit 0 succeeds"},
      {"<c>.startupProbe.httpGet", kDescend},
      {"<c>.startupProbe.httpGet.path", kApplied, "the request's path"},
      {"<c>.startupProbe.httpGet.port", kApplied, "a number or the name of a container port"},
      {"<c>.startupProbe.httpGet.host", kApplied, "connected to from the node; without it, the pod itself (127.0.0.1 in its network namespace)"},
      {"<c>.startupProbe.httpGet.scheme", kApplied, "HTTP, or HTTPS without certificate verification (as the kubelet)", {"HTTP", "HTTPS"}},
      {"<c>.startupProbe.httpGet.httpHeaders", kApplied, "sent with the request"},
      {"<c>.startupProbe.httpGet.protocol", kRefused, "only HTTP/1.1 requests are made"},
      {"<c>.startupProbe.tcpSocket", kApplied, "a TCP connect, to the pod itself unless host is set"},
      {"<c>.startupProbe.grpc", kApplied,
       "grpc.health.v1.Health/Check over HTTP/2 without TLS to the pod itself (127.0.0.1 in its "
       "network namespace); SERVING succeeds"},
      {"<c>.startupProbe.initialDelaySeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.startupProbe.timeoutSeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.startupProbe.periodSeconds", kApplied, "the kubelet's prober timing"},
      {"<c>.startupProbe.successThreshold", kApplied, "the kubelet's prober timing"},
      {"<c>.startupProbe.failureThreshold", kApplied, "the kubelet's prober timing"},
      {"<c>.startupProbe.terminationGracePeriodSeconds", kApplied, "the grace period of the kill a failed probe causes"},
      {"<c>.lifecycle", kDescend},
      {"<c>.lifecycle.postStart", kDescend},
      {"<c>.lifecycle.postStart.exec", kApplied, "run after the start; the container is not started until it returns, and a failure kills it (FailedPostStartHook)"},
      {"<c>.lifecycle.postStart.httpGet", kDescend},
      {"<c>.lifecycle.postStart.httpGet.path", kApplied, "the request's path"},
      {"<c>.lifecycle.postStart.httpGet.port", kApplied, "a number or the name of a container port"},
      {"<c>.lifecycle.postStart.httpGet.host", kApplied, "connected to from the node; without it, the pod itself (127.0.0.1 in its network namespace)"},
      {"<c>.lifecycle.postStart.httpGet.scheme", kApplied, "HTTP, or HTTPS without certificate verification (as the kubelet)", {"HTTP", "HTTPS"}},
      {"<c>.lifecycle.postStart.httpGet.httpHeaders", kApplied, "sent with the request"},
      {"<c>.lifecycle.postStart.httpGet.protocol", kRefused, "only HTTP/1.1 requests are made"},
      {"<c>.lifecycle.postStart.sleep", kApplied, "run after the start; the container is not started until it returns, and a failure kills it (FailedPostStartHook)"},
      {"<c>.lifecycle.postStart.tcpSocket", kRefused, "not a lifecycle handler (kept in the API for compatibility; the kubelet rejects it)"},
      {"<c>.lifecycle.preStop", kDescend},
      {"<c>.lifecycle.preStop.exec", kApplied, "run before SIGTERM within the grace period (FailedPreStopHook on failure)"},
      {"<c>.lifecycle.preStop.httpGet", kDescend},
      {"<c>.lifecycle.preStop.httpGet.path", kApplied, "the request's path"},
      {"<c>.lifecycle.preStop.httpGet.port", kApplied, "a number or the name of a container port"},
      {"<c>.lifecycle.preStop.httpGet.host", kApplied, "connected to from the node; without it, the pod itself (127.0.0.1 in its network namespace)"},
      {"<c>.lifecycle.preStop.httpGet.scheme", kApplied, "HTTP, or HTTPS without certificate verification (as the kubelet)", {"HTTP", "HTTPS"}},
      {"<c>.lifecycle.preStop.httpGet.httpHeaders", kApplied, "sent with the request"},
      {"<c>.lifecycle.preStop.httpGet.protocol", kRefused, "only HTTP/1.1 requests are made"},
      {"<c>.lifecycle.preStop.sleep", kApplied, "run before SIGTERM within the grace period (FailedPreStopHook on failure)"},
      {"<c>.lifecycle.preStop.tcpSocket", kRefused, "not a lifecycle handler (kept in the API for compatibility; the kubelet rejects it)"},
      {"<c>.lifecycle.stopSignal", kRefused, "the image's stop signal (or SIGTERM) is what stops a container here"},
      {"<c>.terminationMessagePath", kApplied,
       "a file bind-mounted there, read (at most 4096 bytes) into the status's message on exit"},
      {"<c>.terminationMessagePolicy", kApplied,
       "FallbackToLogsOnError: the last 80 lines (2048 bytes) of output when the file is empty "
       "and the container failed",
       {"File", "FallbackToLogsOnError"}},
      {"<c>.stdin", kApplied,
       "a pipe (with tty, the terminal) that `kubectl attach -i` writes; without it, /dev/null"},
      {"<c>.stdinOnce", kApplied,
       "the first attach session's end of input closes the container's stdin (not a "
       "terminal's, as containerd)"},
      {"<c>.tty", kApplied,
       "a terminal (the runtime's console socket): stdout and stderr are its output, as one "
       "stream"},
      {"<c>.securityContext", kDescend},
      {"<c>.securityContext.capabilities", kApplied,
       "containerd's default set, plus add, minus drop"},
      {"<c>.securityContext.privileged", kApplied,
       "every capability, no masked paths, the node's devices"},
      {"<c>.securityContext.runAsUser", kApplied, "the process uid"},
      {"<c>.securityContext.runAsGroup", kApplied, "the process gid"},
      {"<c>.securityContext.runAsNonRoot", kApplied,
       "a container that would run as uid 0 fails with CreateContainerConfigError"},
      {"<c>.securityContext.readOnlyRootFilesystem", kApplied, "the root file system is read-only"},
      {"<c>.securityContext.allowPrivilegeEscalation", kApplied, "false: no_new_privs"},
      {"<c>.securityContext.procMount", kApplied, "Default: the masked and read-only /proc paths",
       {"Default"}},
      {"<c>.securityContext.seLinuxOptions", kRefused, "SELinux labels are not applied"},
      {"<c>.securityContext.windowsOptions", kNoNodeMeaning, "Windows only"},
      {"<c>.securityContext.seccompProfile", kApplied,
       "the container's seccomp filter (none when privileged, as containerd)"},
      {"<c>.securityContext.appArmorProfile", kDescend},
      {"<c>.securityContext.appArmorProfile.type", kApplied,
       "RuntimeDefault: podlimits-default; Localhost: a loaded profile; Unconfined: none. On a "
       "node without AppArmor: refused with the kubelet's message"},
      {"<c>.securityContext.appArmorProfile.localhostProfile", kApplied,
       "the profile's name; it must be loaded on the node (else refused: profile \"x\" is not "
       "loaded)"},
      {"<c>.securityContext.ulimits", kApplied,
       "rlimits of the container's processes, read back before it starts (KEP-5758)"},
      {"<c>.securityContext.cgroupOptions", kApplied,
       "Writable: a delegated cgroup2 mount, bounded (KEP-5474)"},
  };
  return rules;
}

struct Table {
  std::vector<FieldRule> rules;  // document order, <c> expanded
  std::unordered_map<std::string, std::size_t> by_path;
};

// Built at the first pod and never destroyed (as RawRules): a process needs it until it exits,
// and a one-shot `podlimits run` freed its hundreds of blocks one by one at exit.
const Table& RuleTable() {
  static const Table& table = *new Table([] {
    Table t;
    std::size_t count = 0;
    for (const RawRule& raw : RawRules()) {
      count += raw.path.starts_with("<c>") ? std::size(kContainerLists) : 1;
    }
    t.rules.reserve(count);
    t.by_path.reserve(count);
    for (const RawRule& raw : RawRules()) {
      auto add = [&](std::string path) {
        FieldRule rule{"", raw.coverage, raw.why, raw.applied_values};
        t.by_path.emplace(path, t.rules.size());
        t.rules.push_back(std::move(rule));
        t.rules.back().path = t.by_path.find(path)->first;
      };
      if (raw.path.starts_with("<c>")) {
        for (std::string_view list : kContainerLists) {
          add(std::string(list) + std::string(raw.path.substr(3)));
        }
      } else {
        add(std::string(raw.path));
      }
    }
    return t;
  }());
  return table;
}

// The rule for a pattern path: its own, or the nearest ancestor's. Ancestors are found by
// cutting at the last '.' or '['.
const FieldRule* FindRule(std::string_view pattern) {
  const Table& t = RuleTable();
  std::string key(pattern);
  while (true) {
    if (auto it = t.by_path.find(key); it != t.by_path.end()) return &t.rules[it->second];
    const std::size_t cut = key.find_last_of(".[");
    if (cut == std::string::npos) return nullptr;
    key.resize(cut);
  }
}

// An applied value: equal, or a prefix ending in '*'.
bool ValueMatches(std::string_view pattern, std::string_view value) {
  if (pattern.ends_with('*')) return value.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == value;
}

bool IsZero(const codec::Node& n) {
  switch (n.kind) {
    case codec::Node::Kind::kNull:
      return true;
    case codec::Node::Kind::kBool:
      return n.scalar == "false";
    case codec::Node::Kind::kString:
      return n.scalar.empty();
    case codec::Node::Kind::kArray:
      return n.items.empty();
    default:
      return false;
  }
}

// Why a resource is not enforced by this node: the cgroup controller (or mechanism) it needs.
std::string UnenforcedResourceWhy(std::string_view name) {
  if (name == "cpu" || name == "memory") {
    return fmt::format("the {} cgroup controller is not managed by this node", name);
  }
  if (name.starts_with("hugepages-")) {
    return "the hugetlb cgroup controller is not managed by this node";
  }
  if (name == "ephemeral-storage") return "local storage use is not measured by this node";
  return "no device plugin on this node offers it";
}

bool IsHostPortPattern(std::string_view pattern) {
  return pattern.ends_with(".ports[*].hostPort") || pattern.ends_with(".ports[*].hostIP");
}

class Walker {
 public:
  explicit Walker(const FieldCoverageOptions& options) : options_(options) {}

  void Visit(const codec::Node& n, const std::string& path, const std::string& pattern) {
    if (result_.refused) return;
    const FieldRule* rule = FindRule(pattern);
    if (rule == nullptr || (rule->coverage == kDescend && rule->path != pattern)) {
      if (!IsZero(n)) Refuse(path, "");
      return;
    }
    switch (rule->coverage) {
      case kDescend:
        if (n.IsObject()) {
          for (const codec::Member& m : n.members) {
            Visit(m.value, path + "." + m.key, pattern + "." + m.key);
          }
        } else if (n.IsArray()) {
          for (std::size_t i = 0; i < n.items.size(); ++i) {
            Visit(n.items[i], fmt::format("{}[{}]", path, i), pattern + "[*]");
          }
        }
        return;
      case kApplied:
        if (pattern.ends_with(".valueFrom.fieldRef.fieldPath") &&
            std::find(options_.status_field_paths.begin(), options_.status_field_paths.end(),
                      n.scalar) != options_.status_field_paths.end()) {
          return;
        }
        if (!rule->applied_values.empty() && !n.IsNull() &&
            std::none_of(rule->applied_values.begin(), rule->applied_values.end(),
                         [&](std::string_view v) { return ValueMatches(v, n.scalar); })) {
          Refuse(path, fmt::format("{} ({})", n.IsString() ? field::GoQuote(n.scalar) : n.scalar,
                                   rule->why));
        }
        return;
      case kRefused:
        if (options_.host_ports && IsHostPortPattern(pattern)) return;
        if (!IsZero(n)) Refuse(path, std::string(rule->why));
        return;
      case kNoNodeMeaning:
        return;
      case kResource:
        VisitResources(n, path);
        return;
    }
  }

  FieldCoverageResult Take() { return std::move(result_); }

 private:
  void VisitResources(const codec::Node& list, const std::string& path) {
    for (const codec::Member& m : list.members) {
      if (m.key == "pid") continue;  // the pod cgroup's pids.max (validation keeps it pod-level)
      if (std::find(options_.enforced_resources.begin(), options_.enforced_resources.end(),
                    m.key) != options_.enforced_resources.end()) {
        continue;  // the pod's and the container's cgroup files (resource_config.h)
      }
      const std::string where = path + "." + m.key;
      const std::string why = UnenforcedResourceWhy(m.key);
      if (options_.warn_on_unenforced_resources) {
        result_.unenforced.push_back(fmt::format("{}: not enforced by this node: {}", where, why));
      } else {
        Refuse(where, why);
      }
      if (result_.refused) return;
    }
  }

  void Refuse(const std::string& path, const std::string& why) {
    if (result_.refused) return;
    std::string message = path + ": not supported by this node";
    if (!why.empty()) message += ": " + why;
    result_.refused = FieldProblem{path, std::move(message)};
  }

  const FieldCoverageOptions& options_;
  FieldCoverageResult result_;
};

}  // namespace

std::string_view CoverageName(Coverage c) {
  switch (c) {
    case kApplied:
      return "applied";
    case kRefused:
      return "refused";
    case kNoNodeMeaning:
      return "no node meaning";
    case kResource:
      return "resources";
    case kDescend:
      return "see below";
  }
  return "";
}

std::span<const FieldRule> PodFieldRules() { return RuleTable().rules; }

FieldCoverageResult CheckFieldCoverage(const codec::Node& pod, const FieldCoverageOptions& options) {
  Walker walker(options);
  for (const codec::Member& m : pod.members) walker.Visit(m.value, m.key, m.key);
  FieldCoverageResult result = walker.Take();
  if (result.refused) return result;
  // A sizeLimit is only the node's to enforce for a tmpfs: the kubelet enforces a disk one by
  // evicting the pod, which this node does not do.
  if (const codec::Node* volumes = pod.FindPath({"spec", "volumes"}); volumes && volumes->IsArray()) {
    for (std::size_t i = 0; i < volumes->items.size(); ++i) {
      const codec::Node* dir = volumes->items[i].Find("emptyDir");
      if (dir == nullptr || dir->Find("sizeLimit") == nullptr) continue;
      const codec::Node* medium = dir->Find("medium");
      if (medium != nullptr && medium->scalar == "Memory") continue;
      const std::string path = fmt::format("spec.volumes[{}].emptyDir.sizeLimit", i);
      result.refused = FieldProblem{
          path, path + ": not supported by this node: a disk emptyDir's size is not enforced "
                       "(the kubelet evicts for it; this node does not)"};
      return result;
    }
  }
  return result;
}

std::string RenderFieldCoverageTable() {
  std::string out = "| Field | Node | Why |\n|---|---|---|\n";
  for (const RawRule& raw : RawRules()) {
    if (raw.coverage == kDescend) continue;
    std::string node(CoverageName(raw.coverage));
    if (!raw.applied_values.empty()) {
      node = fmt::format("applied: {}; other values refused", fmt::join(raw.applied_values, ", "));
    }
    std::string why(raw.why);
    if (raw.coverage == kResource) {
      why = "pid: the pod cgroup's pids.max; cpu and memory: cgroup v2 files where the node has "
            "those controllers (v2), else refused; hugepages-*, ephemeral-storage and extended "
            "resources: refused (or a Warning with unenforcedResources: Warn)";
    }
    out += fmt::format("| `{}` | {} | {} |\n", raw.path, node, why);
  }
  return out;
}

}  // namespace podlimits::kubelet
