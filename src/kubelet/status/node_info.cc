#include "kubelet/status/node_info.h"

#include <fmt/format.h>

#include <algorithm>

#include "codec/json_codec.h"
#include "kubelet/cm/default_rlimits.h"
#include "kubelet/status/rlimit_json.h"

namespace podlimits::kubelet {
namespace {

std::string OrUnknown(std::optional<std::int64_t> v) {
  return v ? std::to_string(*v) : std::string("unknown");
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// "Label:  value" rows at two indent levels; labels of one level are padded to the widest of
// that level across the whole text, as kubectl describe's tabwriter does.
class Rows {
 public:
  void Top(std::string label, std::string value = "") {
    Add(0, std::move(label), std::move(value));
  }
  void Sub(std::string label, std::string value) { Add(1, std::move(label), std::move(value)); }

  std::string Render() const {
    std::size_t width[2] = {0, 0};
    for (const auto& r : rows_) width[r.level] = std::max(width[r.level], r.label.size() + 1);
    std::string out;
    for (const auto& r : rows_) {
      std::string line =
          fmt::format("{}{:<{}}  {}", r.level ? "  " : "", r.label + ":", width[r.level], r.value);
      while (line.ends_with(' ')) line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  struct Row {
    int level;
    std::string label, value;
  };
  void Add(int level, std::string label, std::string value) {
    rows_.push_back({level, std::move(label), std::move(value)});
  }
  std::vector<Row> rows_;
};

// Where a finite ceiling comes from, in a few words (the header says why in full).
std::string CeilingSource(const UlimitCeiling& c) {
  if (c.value == kRlimInfinity) return "unlimited";
  return fmt::format("{} ({})", c.value,
                     c.why == kWhyNrOpen ? "fs.nr_open" : "podlimits' own hard limit");
}

std::string PidAvailableText(const NodeInfo& info) {
  std::string threshold = "no eviction threshold";
  if (info.pid_available_hard) {
    threshold = fmt::format("hard eviction below {}", info.pid_available_hard->text);
    if (info.capacity) {
      threshold +=
          fmt::format(" ({})", ThresholdQuantity(*info.pid_available_hard, *info.capacity));
    }
  }
  if (!info.capacity || !info.tasks) return threshold;
  std::int64_t available = *info.capacity - *info.tasks;
  std::string pressure;
  if (info.pid_available_hard) {
    pressure = ThresholdMet(*info.pid_available_hard, *info.capacity, available)
                   ? ", PIDPressure"
                   : ", no PIDPressure";
  }
  return fmt::format("{} ({} tasks); {}{}", available, *info.tasks, threshold, pressure);
}

std::string RuntimeText(const RuntimeInfo& r) {
  if (!r.Found()) return "none: " + (r.error.empty() ? std::string("not found") : r.error);
  std::string out = r.name;
  if (!r.version.empty()) out += " " + r.version;
  out += " (" + r.path + ")";
  if (!r.unusable.empty()) out += "; unusable here: " + r.unusable;
  return out;
}

codec::Node OptInt(std::optional<std::int64_t> v) {
  return v ? codec::Node::Int(*v) : codec::Node();
}

codec::Node Strings(const std::vector<std::string>& items) {
  codec::Node list = codec::Node::Array();
  for (const auto& s : items) list.items.push_back(codec::Node::String(s));
  return list;
}

}  // namespace

NodeInfo CollectNodeInfo(const NodeConfig& config, const NodeCapabilities& caps,
                         const PidCapacity& kernel, std::optional<std::int64_t> tasks,
                         std::string node_name) {
  NodeInfo info;
  info.node_name = std::move(node_name);
  info.config_source = config.source;
  info.kernel = kernel;
  info.capacity = kernel.Capacity();
  info.kube_reserved_pids = config.KubeReservedPids().String();
  info.system_reserved_pids = config.SystemReservedPids().String();
  if (info.capacity) info.allocatable = PidAllocatable(*info.capacity, config);
  info.kubepods_pids_max = KubepodsPidsMax(info.capacity, config);
  info.enforce_node_allocatable = config.enforce_node_allocatable;
  info.pod_pids_limit = config.pod_pids_limit;
  info.pid_available_hard = config.PidAvailableHard();
  info.tasks = tasks;

  info.cgroup_mode = std::string(CgroupModeText(caps));
  info.nsdelegate = caps.nsdelegate;
  info.pids_controller = caps.pids_controller;
  info.cpu_memory_enforced = caps.cpu_controller && caps.memory_controller;
  info.apparmor_enabled = caps.apparmor.kernel_enabled;
  info.apparmor_parser = !caps.apparmor.parser.empty();
  info.cgroup_error = caps.cgroup_error;
  info.cgroup_root = config.cgroup_root;
  info.cgroup_driver = config.cgroup_driver;
  info.runtime = caps.runtime;
  info.features = DeclareFeatures(config.feature_gates, caps);

  info.cap_sys_resource = caps.cap_sys_resource;
  info.nr_open = caps.nr_open;
  for (const auto& u : UlimitResources()) {
    info.ceilings.push_back({std::string(u.name), CeilingFor(u.name, caps)});
  }
  info.default_rlimits = ContainerdDefaultRlimits(caps);
  return info;
}

std::string RenderNodeInfoText(const NodeInfo& info) {
  Rows rows;
  rows.Top("Name", info.node_name);
  rows.Top("Config", info.config_source.empty() ? "(built-in defaults)" : info.config_source);

  rows.Top("Pids");
  rows.Sub("Capacity", fmt::format("{} (min of kernel.pid_max {}, kernel.threads-max {})",
                                   OrUnknown(info.capacity), OrUnknown(info.kernel.pid_max),
                                   OrUnknown(info.kernel.threads_max)));
  rows.Sub("Reserved",
           fmt::format("kube {}, system {}", info.kube_reserved_pids, info.system_reserved_pids));
  rows.Sub("Allocatable", OrUnknown(info.allocatable));
  rows.Sub("kubepods pids.max",
           fmt::format("{} (enforceNodeAllocatable: [{}])",
                       info.kubepods_pids_max ? std::to_string(*info.kubepods_pids_max) : "max",
                       Join(info.enforce_node_allocatable, ", ")));
  rows.Sub("podPidsLimit", info.pod_pids_limit > 0
                               ? std::to_string(info.pod_pids_limit)
                               : fmt::format("{} (no pod-level pids.max)", info.pod_pids_limit));
  rows.Sub("pid.available", PidAvailableText(info));

  rows.Top("Cgroups");
  rows.Sub("Mode", info.cgroup_mode + (info.cgroup_error.empty() ? std::string()
                                                                 : " (" + info.cgroup_error + ")"));
  rows.Sub("nsdelegate", info.nsdelegate ? "yes" : "no");
  rows.Sub("pids controller", info.pids_controller ? "yes" : "no");
  rows.Sub("cpu, memory", info.cpu_memory_enforced
                              ? "enforced (cgroup v2 files of pod and container cgroups)"
                              : "not enforced: refused unless unenforcedResources: Warn");
  rows.Sub("Root", info.cgroup_root);
  rows.Sub("Driver", info.cgroup_driver);

  rows.Top("Runtime", RuntimeText(info.runtime));
  rows.Top("AppArmor",
           !info.apparmor_enabled
               ? "not enabled on the host: pods that set a profile are refused"
               : info.apparmor_parser
                     ? "enabled: podlimits-default for RuntimeDefault and unset profiles"
                     : "enabled, no apparmor_parser: RuntimeDefault refused, loaded Localhost "
                       "profiles applied");

  std::string declared = Join(info.features.Names(), ", ");
  rows.Top("Declared features", declared.empty() ? "<none>" : declared);
  for (const auto* f : info.features.All()) {
    rows.Sub(std::string(f->name), f->Declared() ? "yes" : "no: " + f->reason);
  }

  rows.Top("Rlimit ceilings",
           info.cap_sys_resource
               ? fmt::format("CAP_SYS_RESOURCE yes, fs.nr_open {}", OrUnknown(info.nr_open))
               : fmt::format("CAP_SYS_RESOURCE no, fs.nr_open {} ({})", OrUnknown(info.nr_open),
                             kWhyNoCapSysResource));
  for (const auto& c : info.ceilings) rows.Sub(c.name, CeilingSource(c.ceiling));
  rows.Top("Default rlimits", "what containerd's unit gives a container that sets no ulimit");
  for (const auto& d : info.default_rlimits) {
    rows.Sub(d.name, d.soft == kRlimInfinity ? std::string("unlimited") : std::to_string(d.soft));
  }
  return rows.Render();
}

codec::Node NodeInfoTree(const NodeInfo& info) {
  codec::Node root = codec::Node::Object();
  root.Set("apiVersion", codec::Node::String("podlimits.dev/v1alpha1"));
  root.Set("kind", codec::Node::String("NodeInfo"));
  root.Set("name", codec::Node::String(info.node_name));
  root.Set("configSource", codec::Node::String(info.config_source));

  codec::Node pids = codec::Node::Object();
  pids.Set("kernelPidMax", OptInt(info.kernel.pid_max));
  pids.Set("kernelThreadsMax", OptInt(info.kernel.threads_max));
  pids.Set("capacity", OptInt(info.capacity));
  pids.Set("kubeReserved", codec::Node::String(info.kube_reserved_pids));
  pids.Set("systemReserved", codec::Node::String(info.system_reserved_pids));
  pids.Set("allocatable", OptInt(info.allocatable));
  pids.Set("kubepodsPidsMax", OptInt(info.kubepods_pids_max));
  pids.Set("enforceNodeAllocatable", Strings(info.enforce_node_allocatable));
  pids.Set("podPidsLimit", codec::Node::Int(info.pod_pids_limit));
  pids.Set("tasks", OptInt(info.tasks));
  pids.Set("evictionHardPidAvailable", info.pid_available_hard
                                           ? codec::Node::String(info.pid_available_hard->text)
                                           : codec::Node());
  root.Set("pids", std::move(pids));

  codec::Node cg = codec::Node::Object();
  cg.Set("mode", codec::Node::String(info.cgroup_mode));
  cg.Set("nsdelegate", codec::Node::Bool(info.nsdelegate));
  cg.Set("pidsController", codec::Node::Bool(info.pids_controller));
  cg.Set("cpuMemoryEnforced", codec::Node::Bool(info.cpu_memory_enforced));
  if (!info.cgroup_error.empty()) cg.Set("error", codec::Node::String(info.cgroup_error));
  cg.Set("root", codec::Node::String(info.cgroup_root));
  cg.Set("driver", codec::Node::String(info.cgroup_driver));
  root.Set("cgroups", std::move(cg));

  codec::Node rt = codec::Node::Object();
  rt.Set("name", codec::Node::String(info.runtime.name));
  rt.Set("path", codec::Node::String(info.runtime.path));
  rt.Set("version", codec::Node::String(info.runtime.version));
  if (!info.runtime.error.empty()) rt.Set("error", codec::Node::String(info.runtime.error));
  if (!info.runtime.unusable.empty()) rt.Set("unusable", codec::Node::String(info.runtime.unusable));
  root.Set("runtime", std::move(rt));
  codec::Node apparmor = codec::Node::Object();
  apparmor.Set("enabled", codec::Node::Bool(info.apparmor_enabled));
  apparmor.Set("parser", codec::Node::Bool(info.apparmor_parser));
  root.Set("apparmor", std::move(apparmor));

  root.Set("declaredFeatures", Strings(info.features.Names()));
  codec::Node features = codec::Node::Array();
  for (const auto* f : info.features.All()) {
    codec::Node item = codec::Node::Object();
    item.Set("name", codec::Node::String(std::string(f->name)));
    item.Set("declared", codec::Node::Bool(f->Declared()));
    if (!f->Declared()) item.Set("reason", codec::Node::String(f->reason));
    features.items.push_back(std::move(item));
  }
  root.Set("features", std::move(features));

  codec::Node rl = codec::Node::Object();
  rl.Set("capSysResource", codec::Node::Bool(info.cap_sys_resource));
  rl.Set("nrOpen", OptInt(info.nr_open));
  codec::Node ceilings = codec::Node::Object();
  for (const auto& c : info.ceilings) ceilings.Set(c.name, RlimitJson(c.ceiling.value));
  rl.Set("ceilings", std::move(ceilings));
  codec::Node defaults = codec::Node::Object();
  for (const auto& d : info.default_rlimits) {
    codec::Node v = codec::Node::Object();
    v.Set("soft", RlimitJson(d.soft));
    v.Set("hard", RlimitJson(d.hard));
    defaults.Set(d.name, std::move(v));
  }
  rl.Set("defaults", std::move(defaults));
  root.Set("rlimits", std::move(rl));
  return root;
}

std::string RenderNodeInfoJson(const NodeInfo& info) {
  return codec::EncodeJson(NodeInfoTree(info)) + "\n";
}

}  // namespace podlimits::kubelet
