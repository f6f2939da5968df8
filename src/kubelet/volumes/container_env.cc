#include "kubelet/volumes/container_env.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "validation/config_data.h"

namespace podlimits::kubelet {
namespace {

void Set(cri::EnvList& env, const std::string& name, std::string value) {
  auto it = std::find_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
  if (it != env.end()) {
    it->second = std::move(value);
  } else {
    env.emplace_back(name, std::move(value));
  }
}

// The kubelet reads each object once per container (its configMaps/secrets maps).
class Lookups {
 public:
  explicit Lookups(const EnvContext& ctx) : ctx_(ctx) {}

  // nullopt: missing (the error is the caller's to make, optional or not).
  const api::ConfigMap* ConfigMap(const std::string& name) {
    auto it = config_maps_.find(name);
    if (it == config_maps_.end()) {
      std::optional<api::ConfigMap> cm;
      if (ctx_.objects) cm = ctx_.objects->GetConfigMap(ctx_.pod->metadata.namespace_, name);
      it = config_maps_.emplace(name, std::move(cm)).first;
    }
    return it->second ? &*it->second : nullptr;
  }
  // The data a pod reads of the named ConfigMap (not its binaryData) or Secret; nullptr when it
  // does not exist.
  const std::map<std::string, std::string>* Data(bool secret, const std::string& name) {
    if (secret) {
      const api::Secret* s = Secret(name);
      return s ? &s->data : nullptr;
    }
    const api::ConfigMap* cm = ConfigMap(name);
    return cm ? &cm->data : nullptr;
  }
  const api::Secret* Secret(const std::string& name) {
    auto it = secrets_.find(name);
    if (it == secrets_.end()) {
      std::optional<api::Secret> s;
      if (ctx_.objects) s = ctx_.objects->GetSecret(ctx_.pod->metadata.namespace_, name);
      it = secrets_.emplace(name, std::move(s)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  const EnvContext& ctx_;
  std::map<std::string, std::optional<api::ConfigMap>> config_maps_;
  std::map<std::string, std::optional<api::Secret>> secrets_;
};

std::string Ceil(double value) { return fmt::format("{}", static_cast<std::int64_t>(std::ceil(value))); }

// convertResourceCPUToString and convertResourceMemoryToString (float64 division, rounded up).
std::string CpuString(const resource::Quantity& cpu, const resource::Quantity& divisor) {
  return Ceil(static_cast<double>(cpu.MilliValue()) / static_cast<double>(divisor.MilliValue()));
}
std::string BytesString(const resource::Quantity& bytes, const resource::Quantity& divisor) {
  return Ceil(static_cast<double>(bytes.Value()) / static_cast<double>(divisor.Value()));
}

resource::Quantity Get(const api::ResourceList& list, const std::string& name) {
  auto it = list.find(name);
  return it == list.end() ? resource::Quantity() : it->second;
}

// The kubelet's podFieldSelectorRuntimeValue for status.*: the first address, or all of them
// joined with commas. Node admission refuses a path this node has no value for; an empty list
// here is a bug, and says so.
Result<std::string> StatusFieldValue(const EnvContext& ctx, const std::string& path) {
  const bool pod = path == "status.podIP" || path == "status.podIPs";
  const bool host = path == "status.hostIP" || path == "status.hostIPs";
  if (!pod && !host) return Failure(fmt::format("unsupported fieldPath: {}", path));
  const std::vector<std::string>& ips = pod ? ctx.pod_ips : ctx.host_ips;
  if (ips.empty()) return Failure(fmt::format("no value for fieldPath {} on this node", path));
  if (path.ends_with("IPs")) return fmt::format("{}", fmt::join(ips, ","));
  return ips.front();
}

}  // namespace

Result<std::string> ContainerResourceValue(const api::ResourceFieldRef& ref, const api::Pod& pod,
                                           const api::Container& container,
                                           const api::ResourceList& allocatable) {
  const api::Container* target = &container;
  if (!ref.container_name.empty()) {
    target = nullptr;
    for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
      for (const auto& c : *list) {
        if (target == nullptr && c.name == ref.container_name) target = &c;
      }
    }
    if (target == nullptr) return Failure(fmt::format("container {} not found", ref.container_name));
  }
  // defaultPodLimitsForDownwardAPI: an unset cpu, memory or ephemeral-storage limit reads as
  // the node's allocatable.
  api::ResourceList limits = target->resources.limits;
  for (const char* name : {"cpu", "memory", "ephemeral-storage"}) {
    if (!limits.contains(name) && allocatable.contains(name)) limits[name] = allocatable.at(name);
  }
  const api::ResourceList& requests = target->resources.requests;
  resource::Quantity divisor = ref.divisor;
  if (divisor.IsZero()) divisor = resource::Quantity::NewQuantity(1, resource::QuantityFormat::kDecimalSI);

  const std::string& r = ref.resource;
  if (r == "limits.cpu") return CpuString(Get(limits, "cpu"), divisor);
  if (r == "limits.memory") return BytesString(Get(limits, "memory"), divisor);
  if (r == "limits.ephemeral-storage") return BytesString(Get(limits, "ephemeral-storage"), divisor);
  if (r == "requests.cpu") return CpuString(Get(requests, "cpu"), divisor);
  if (r == "requests.memory") return BytesString(Get(requests, "memory"), divisor);
  if (r == "requests.ephemeral-storage") {
    return BytesString(Get(requests, "ephemeral-storage"), divisor);
  }
  for (auto [prefix, list] : {std::pair{std::string_view("requests."), &requests},
                              std::pair{std::string_view("limits."), &std::as_const(limits)}}) {
    if (r.starts_with(prefix) && std::string_view(r).substr(prefix.size()).starts_with("hugepages-")) {
      return BytesString(Get(*list, r.substr(prefix.size())), divisor);
    }
  }
  return Failure(fmt::format("unsupported container resource : {}", r));
}

Result<ContainerEnv> MakeEnvironmentVariables(const EnvContext& ctx,
                                              const api::Container& container) {
  const api::Pod& pod = *ctx.pod;
  const std::string& ns = pod.metadata.namespace_;
  ContainerEnv out;
  Lookups lookups(ctx);

  for (const api::EnvFromSource& from : container.env_from) {
    const std::map<std::string, std::string>* data = lookups.Data(from.secret, from.name);
    if (data == nullptr) {
      if (from.optional) continue;
      return Failure(from.secret ? SecretNotFound(from.name) : ConfigMapNotFound(from.name));
    }
    std::vector<std::string> invalid;
    for (const auto& [key, value] : *data) {
      std::string name = from.prefix + key;
      if (!validation::IsEnvVarName(name).empty()) {
        invalid.push_back(std::move(name));
        continue;
      }
      Set(out.env, name, value);
    }
    if (!invalid.empty()) {
      std::sort(invalid.begin(), invalid.end());
      std::string keys;
      for (const auto& k : invalid) keys += (keys.empty() ? "" : ", ") + k;
      out.warnings.push_back(Event{
          EventType::kWarning, "InvalidEnvironmentVariableNames",
          fmt::format("Keys [{}] from the EnvFrom {} {}/{} were skipped since they are "
                      "considered invalid environment variable names.",
                      keys, from.secret ? "secret" : "configMap", ns, from.name)});
    }
  }

  for (const api::EnvVar& var : container.env) {
    std::string value;
    if (var.value && !var.value->empty()) {
      value = cri::ExpandReferences(*var.value, out.env);
    } else if (var.field_path && var.field_path->starts_with("status.")) {
      auto v = StatusFieldValue(ctx, *var.field_path);
      if (!v) return std::unexpected(v.error());
      value = std::move(*v);
    } else if (var.field_path) {
      auto v = cri::PodFieldValue(pod, *var.field_path, ctx.node_name);
      if (!v) return Failure(fmt::format("unsupported fieldPath: {}", *var.field_path));
      value = std::move(*v);
    } else if (var.resource_field_ref) {
      auto v = ContainerResourceValue(*var.resource_field_ref, pod, container, ctx.allocatable);
      if (!v) return std::unexpected(v.error());
      value = std::move(*v);
    } else if (var.config_map_key_ref || var.secret_key_ref) {
      const bool secret = var.secret_key_ref.has_value();
      const api::KeySelector& ref = secret ? *var.secret_key_ref : *var.config_map_key_ref;
      const std::map<std::string, std::string>* data = lookups.Data(secret, ref.name);
      if (data == nullptr) {
        if (ref.optional) continue;
        return Failure(secret ? SecretNotFound(ref.name) : ConfigMapNotFound(ref.name));
      }
      auto it = data->find(ref.key);
      if (it == data->end()) {
        if (ref.optional) continue;
        return Failure(fmt::format("couldn't find key {} in {} {}/{}", ref.key,
                                   secret ? "Secret" : "ConfigMap", ns, ref.name));
      }
      value = it->second;
    }
    Set(out.env, var.name, std::move(value));
  }
  return out;
}

}  // namespace podlimits::kubelet
