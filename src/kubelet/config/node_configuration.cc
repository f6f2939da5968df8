// podlimits' own NodeConfiguration document (podlimits.dev/v1alpha1): the settings a kubelet
// would get from its CRI runtime and command line, which podlimits has to be told directly.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "codec/json_codec.h"
#include "field/field.h"
#include "kubelet/config/node_config_documents.h"

namespace podlimits::kubelet::config_internal {
namespace {

// The schema in the format of src/api/schema/*.json, so the project's strict decoder handles
// NodeConfiguration exactly as it handles Kubernetes objects.
constexpr std::string_view kSchema = R"json({
 "roots": {"NodeConfiguration": "dev.podlimits.v1alpha1.NodeConfiguration"},
 "types": {
  "dev.podlimits.v1alpha1.NodeConfiguration": {"fields": {
   "kind": {"type": "string"},
   "apiVersion": {"type": "string"},
   "runtime": {"ref": "dev.podlimits.v1alpha1.RuntimeSettings"},
   "stateDirectory": {"type": "string"},
   "writableCgroups": {"ref": "dev.podlimits.v1alpha1.WritableCgroups"},
   "managedControllers": {"list": {"type": "string"}},
   "unenforcedResources": {"type": "string"},
   "seccomp": {"ref": "dev.podlimits.v1alpha1.Seccomp"},
   "sandboxHolder": {"type": "string"},
   "podNetwork": {"ref": "dev.podlimits.v1alpha1.PodNetwork"}}},
  "dev.podlimits.v1alpha1.PodNetwork": {"fields": {
   "plugin": {"type": "string"},
   "confDir": {"type": "string"},
   "binDirs": {"list": {"type": "string"}}}},
  "dev.podlimits.v1alpha1.Seccomp": {"fields": {
   "defaultProfile": {"type": "string"},
   "profileRoot": {"type": "string"}}},
  "dev.podlimits.v1alpha1.RuntimeSettings": {"fields": {
   "name": {"type": "string"},
   "path": {"type": "string"}}},
  "dev.podlimits.v1alpha1.WritableCgroups": {"fields": {
   "maxDescendants": {"type": "integer", "format": "int32"},
   "maxDepth": {"type": "integer", "format": "int32"}}}
 }
})json";

// Controller names of cgroup v2 and of the v1 hierarchies podlimits could be asked to manage.
constexpr std::array<std::string_view, 11> kControllers = {
    "blkio",   "cpu", "cpuacct", "cpuset", "devices", "freezer",
    "hugetlb", "io",  "memory",  "misc",   "pids"};

std::string StringAt(const codec::Node* parent, std::string_view key) {
  const codec::Node* n = parent ? parent->Find(key) : nullptr;
  return n && n->IsString() ? n->scalar : std::string();
}

void ApplyRuntime(const codec::Node* runtime, NodeConfig& out, std::vector<std::string>& errs) {
  const field::Path path("runtime");
  std::string name = StringAt(runtime, "name");
  out.runtime.path = StringAt(runtime, "path");
  if (name == "crun") {
    out.runtime.name = OciRuntime::kCrun;
  } else if (name == "runc") {
    out.runtime.name = OciRuntime::kRunc;
  } else if (!name.empty()) {
    errs.push_back(field::NotSupported(path.Child("name"), name, {"crun", "runc"}).String());
  }
  if (out.runtime.path.empty()) return;
  if (!out.runtime.path.starts_with('/')) {
    errs.push_back(
        field::Invalid(path.Child("path"), out.runtime.path, "must be an absolute path").String());
    return;
  }
  if (!name.empty()) return;
  // A path with no name: crun and runc take different command lines and apply rlimits at
  // different moments, so the kind has to be known, not guessed from a renamed binary.
  std::string base = std::filesystem::path(out.runtime.path).filename().string();
  if (base.starts_with("crun")) {
    out.runtime.name = OciRuntime::kCrun;
  } else if (base.starts_with("runc")) {
    out.runtime.name = OciRuntime::kRunc;
  } else {
    errs.push_back(field::Required(path.Child("name"),
                                   fmt::format("cannot tell whether runtime.path {} is crun or "
                                               "runc; set runtime.name",
                                               field::GoQuote(out.runtime.path)))
                       .String());
  }
}

void ApplyBounds(const codec::Node* bounds, NodeConfig& out, std::vector<std::string>& errs) {
  if (!bounds) return;
  const field::Path path("writableCgroups");
  auto one = [&](std::string_view key, std::int64_t& into) {
    const codec::Node* n = bounds->Find(key);
    if (!n) return;
    std::int64_t v = n->AsInt().value_or(0);
    // The pod cgroup's own container cgroups count against both bounds, so 0 would keep every
    // writable pod from starting.
    if (v < 1) {
      errs.push_back(
          field::Invalid(path.Child(key), v, "must be greater than or equal to 1").String());
      return;
    }
    into = v;
  };
  one("maxDescendants", out.writable_cgroups.max_descendants);
  one("maxDepth", out.writable_cgroups.max_depth);
}

void ApplyControllers(const codec::Node* list, NodeConfig& out, std::vector<std::string>& errs) {
  if (!list) return;
  const field::Path path("managedControllers");
  std::vector<std::string> values;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    const std::string& v = list->items[i].scalar;
    if (std::find(kControllers.begin(), kControllers.end(), v) == kControllers.end()) {
      errs.push_back(
          field::NotSupported(path.Index(i), v,
                              std::vector<std::string>(kControllers.begin(), kControllers.end()))
              .String());
      continue;
    }
    if (!seen.insert(v).second) {
      errs.push_back(field::Duplicate(path.Index(i), v).String());
      continue;
    }
    values.push_back(v);
  }
  if (!seen.contains("pids")) {
    errs.push_back(field::Invalid(path, field::Json{codec::EncodeJson(*list, 0)},
                                  "must include \"pids\": the node's pid limits are enforced "
                                  "through the pids controller")
                       .String());
  }
  out.managed_controllers = std::move(values);
}

}  // namespace

const api::Schema& NodeConfigurationSchema() {
  static const api::Schema schema(kSchema);
  return schema;
}

void ApplyPodNetwork(const codec::Node* network, NodeConfig& out, std::vector<std::string>& errs) {
  if (!network) return;
  const field::Path path("podNetwork");
  if (std::string plugin = StringAt(network, "plugin"); plugin == "cni") {
    out.pod_network.mode = PodNetworkMode::kCni;
  } else if (!plugin.empty() && plugin != "none") {
    errs.push_back(field::NotSupported(path.Child("plugin"), plugin, {"cni", "none"}).String());
  }
  if (std::string dir = StringAt(network, "confDir"); !dir.empty()) {
    if (!dir.starts_with('/')) {
      errs.push_back(
          field::Invalid(path.Child("confDir"), dir, "must be an absolute path").String());
    } else {
      out.pod_network.conf_dir = dir;
    }
  }
  if (const codec::Node* dirs = network->Find("binDirs"); dirs && dirs->IsArray()) {
    out.pod_network.bin_dirs.clear();
    for (std::size_t i = 0; i < dirs->items.size(); ++i) {
      const std::string& dir = dirs->items[i].scalar;
      if (!dir.starts_with('/')) {
        errs.push_back(
            field::Invalid(path.Child("binDirs").Index(i), dir, "must be an absolute path")
                .String());
      } else {
        out.pod_network.bin_dirs.push_back(dir);
      }
    }
    if (dirs->items.empty()) {
      errs.push_back(field::Required(path.Child("binDirs"), "at least one directory").String());
    }
  }
}

std::vector<std::string> ApplyNodeConfiguration(const codec::Node& tree, NodeConfig& out) {
  std::vector<std::string> errs;
  ApplyRuntime(tree.Find("runtime"), out, errs);
  if (std::string dir = StringAt(&tree, "stateDirectory"); !dir.empty()) {
    if (!dir.starts_with('/')) {
      errs.push_back(
          field::Invalid(field::Path("stateDirectory"), dir, "must be an absolute path").String());
    } else {
      out.state_directory = dir;
    }
  }
  ApplyBounds(tree.Find("writableCgroups"), out, errs);
  ApplyPodNetwork(tree.Find("podNetwork"), out, errs);
  ApplyControllers(tree.Find("managedControllers"), out, errs);
  if (std::string holder = StringAt(&tree, "sandboxHolder"); !holder.empty()) {
    if (!holder.starts_with('/')) {
      errs.push_back(field::Invalid(field::Path("sandboxHolder"), holder,
                                    "must be an absolute path")
                         .String());
    } else {
      out.sandbox_holder = holder;
    }
  }
  const codec::Node* seccomp = tree.Find("seccomp");
  for (const char* key : {"defaultProfile", "profileRoot"}) {
    std::string path = StringAt(seccomp, key);
    if (path.empty()) continue;
    if (!path.starts_with('/')) {
      errs.push_back(field::Invalid(field::Path("seccomp").Child(key), path,
                                    "must be an absolute path")
                         .String());
    } else if (std::string_view(key) == "defaultProfile") {
      out.seccomp.default_profile = path;
    } else {
      out.seccomp.profile_root = path;
    }
  }
  if (std::string policy = StringAt(&tree, "unenforcedResources"); !policy.empty()) {
    if (policy == "Warn") {
      out.warn_on_unenforced_resources = true;
    } else if (policy != "Refuse") {
      errs.push_back(field::NotSupported(field::Path("unenforcedResources"), policy,
                                         {"Refuse", "Warn"})
                         .String());
    }
  }
  return errs;
}

}  // namespace podlimits::kubelet::config_internal
