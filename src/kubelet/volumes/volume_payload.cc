#include "kubelet/volumes/volume_payload.h"

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <set>
#include <vector>

#include "base/fs.h"
#include "base/unique_fd.h"
#include "cri/oci_process.h"
#include "field/field.h"
#include "kubelet/volumes/container_env.h"

namespace podlimits::kubelet {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxPathLength = 4096;
constexpr std::size_t kMaxFileNameLength = 255;

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string::npos ? slash : slash - start));
    if (slash == std::string::npos) return parts;
    start = slash + 1;
  }
}

// MakePayload of the configmap and secret plugins: every key, or only `items`.
Result<Payload> ObjectPayload(const api::VolumeProjection& p, std::int32_t default_mode,
                              const ObjectSource* objects, const std::string& ns) {
  const bool secret = p.kind == "secret";
  std::vector<const std::map<std::string, std::string>*> bags;
  std::optional<api::ConfigMap> cm;
  std::optional<api::Secret> s;
  if (secret) {
    if (objects) s = objects->GetSecret(ns, p.name);
    if (!s && !p.optional) return Failure(SecretNotFound(p.name));
    if (s) bags.push_back(&s->data);
  } else {
    if (objects) cm = objects->GetConfigMap(ns, p.name);
    if (!cm && !p.optional) return Failure(ConfigMapNotFound(p.name));
    if (cm) bags = {&cm->data, &cm->binary_data};
  }
  Payload payload;
  if (p.items.empty()) {
    for (const auto* bag : bags) {
      for (const auto& [key, value] : *bag) payload[key] = {value, default_mode};
    }
    return payload;
  }
  for (const api::KeyToPath& item : p.items) {
    const std::string* value = nullptr;
    for (const auto* bag : bags) {
      if (value != nullptr) break;
      if (auto it = bag->find(item.key); it != bag->end()) value = &it->second;
    }
    if (value == nullptr) {
      if (p.optional) continue;
      return Failure(secret ? fmt::format("references non-existent secret key: {}", item.key)
                            : fmt::format("configmap references non-existent config key: {}",
                                          item.key));
    }
    payload[item.path] = {*value, item.mode.value_or(default_mode)};
  }
  return payload;
}

// fieldpath.ExtractFieldPathAsString for the pod.
Result<std::string> PodFieldAsString(const std::string& field_path, const PayloadContext& ctx) {
  const api::ObjectMeta& m = ctx.pod->metadata;
  std::map<std::string, std::string> annotations = m.annotations;
  for (const auto& [k, v] : ctx.kubelet_annotations) annotations.emplace(k, v);
  if (field_path == "metadata.annotations") return FormatMap(annotations);
  if (field_path == "metadata.labels") return FormatMap(m.labels);
  if (field_path == "metadata.name") return m.name;
  if (field_path == "metadata.namespace") return m.namespace_;
  if (field_path == "metadata.uid") return m.uid;
  for (const auto& [prefix, map] : {std::pair{std::string_view("metadata.labels['"), &m.labels},
                                    std::pair{std::string_view("metadata.annotations['"),
                                              &std::as_const(annotations)}}) {
    if (field_path.starts_with(prefix) && field_path.ends_with("']")) {
      const std::string key = field_path.substr(prefix.size(), field_path.size() - prefix.size() - 2);
      auto it = map->find(key);
      return it == map->end() ? std::string() : it->second;
    }
  }
  return Failure(fmt::format("unsupported fieldPath: {}", field_path));
}

// downwardapi.CollectData: every item, errors gathered.
Result<Payload> DownwardPayload(const api::VolumeProjection& p, std::int32_t default_mode,
                                const PayloadContext& ctx, std::vector<std::string>& errors) {
  Payload payload;
  for (const api::DownwardAPIFile& f : p.files) {
    FileProjection file{"", f.mode.value_or(default_mode)};
    if (f.field_path) {
      auto v = PodFieldAsString(*f.field_path, ctx);
      if (!v) {
        errors.push_back(v.error().Message());
      } else {
        file.data = std::move(*v);
      }
    } else if (f.resource_field_ref) {
      // A volume names its container (there is no "this container"); none named is none found.
      api::Container none;
      api::ResourceFieldRef ref = *f.resource_field_ref;
      auto v = ref.container_name.empty()
                   ? Result<std::string>(Failure("container  not found"))
                   : ContainerResourceValue(ref, *ctx.pod, none, ctx.allocatable);
      if (!v) {
        errors.push_back(v.error().Message());
      } else {
        file.data = std::move(*v);
      }
    }
    // filepath.Clean; a path it cannot clean stays as written, for WritePayload to refuse.
    payload[CleanRelativePath(f.path).value_or(f.path)] = std::move(file);
  }
  return payload;
}

// utilerrors.NewAggregate's message.
std::string Aggregate(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors[0];
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
  return out + "]";
}

Result<void> WriteFileAt(int dirfd, const std::string& name, const fs::path& shown,
                         const FileProjection& file) {
  UniqueFd fd(openat(dirfd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0600));
  if (!fd) return SystemError("create", shown, errno);
  std::string_view rest = file.data;
  while (!rest.empty()) {
    ssize_t n = write(fd.get(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SystemError("write", shown, errno);
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  // The mode exactly as asked (the umask does not apply to it, as os.WriteFile + Chmod).
  if (fchmod(fd.get(), static_cast<mode_t>(file.mode) & 07777) != 0) {
    return SystemError("chmod", shown, errno);
  }
  return {};
}

// SetVolumeOwnership for a read-only volume: group fsGroup, group read (and search and setgid on
// directories); symlinks only change owner.
Result<void> ApplyFsGroup(const fs::path& path, gid_t gid) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return SystemError("stat", path, errno);
  if (lchown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) return SystemError("chown", path, errno);
  if (S_ISLNK(st.st_mode)) return {};
  mode_t mode = (st.st_mode & 07777) | 0440;
  if (S_ISDIR(st.st_mode)) mode |= S_ISGID | 0110;
  if (chmod(path.c_str(), mode) != 0) return SystemError("chmod", path, errno);
  if (S_ISDIR(st.st_mode)) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (auto r = ApplyFsGroup(entry.path(), gid); !r) return r;
    }
    if (ec) return SystemError("read directory", path, ec.value());
  }
  return {};
}

}  // namespace

std::string FormatMap(const std::map<std::string, std::string>& map) {
  std::string out;
  for (const auto& [k, v] : map) out += fmt::format("{}={}\n", k, field::GoQuote(v));
  if (!out.empty()) out.pop_back();
  return out;
}

Result<void> ValidatePayloadPath(const std::string& path) {
  if (path.empty()) return Failure("invalid path: must not be empty: \"\"");
  if (path.front() == '/') return Failure(fmt::format("invalid path: must be relative path: {}", path));
  if (path.size() > kMaxPathLength) {
    return Failure(fmt::format("invalid path: must be less than or equal to {} characters",
                               kMaxPathLength));
  }
  const auto parts = Split(path);
  for (const auto& part : parts) {
    if (part == "..") return Failure(fmt::format("invalid path: must not contain '..': {}", path));
    if (part.size() > kMaxFileNameLength) {
      return Failure(fmt::format("invalid path: filenames must be less than or equal to {} characters",
                                 kMaxFileNameLength));
    }
  }
  if (parts[0].starts_with("..") && parts[0].size() > 2) {
    return Failure(fmt::format("invalid path: must not start with '..': {}", path));
  }
  return {};
}

Result<Payload> VolumePayload(const api::Volume& volume, const PayloadContext& ctx) {
  const std::int32_t default_mode = volume.default_mode.value_or(0644);
  const std::string& ns = ctx.pod->metadata.namespace_;
  if (volume.source != "projected") {
    if (volume.projections.size() != 1) return Failure("volume source has no projection");
    const auto& p = volume.projections[0];
    if (p.kind == "downwardAPI") {
      std::vector<std::string> errors;
      auto payload = DownwardPayload(p, default_mode, ctx, errors);
      if (!errors.empty()) return Failure(Aggregate(errors));
      return payload;
    }
    return ObjectPayload(p, default_mode, ctx.objects, ns);
  }
  // projected's collectData: each source in order, later files replacing earlier ones, every
  // error gathered.
  Payload payload;
  std::vector<std::string> errors;
  for (const auto& p : volume.projections) {
    Result<Payload> part = Payload();
    if (p.kind == "configMap" || p.kind == "secret") {
      part = ObjectPayload(p, default_mode, ctx.objects, ns);
    } else if (p.kind == "downwardAPI") {
      part = DownwardPayload(p, default_mode, ctx, errors);
    } else {
      // Node admission refused the others; reaching here is a bug, not a source to skip.
      part = Failure(fmt::format("projected source {} is not supported by this node", p.kind));
    }
    if (!part) {
      errors.push_back(part.error().Message());
      continue;
    }
    for (auto& [path, file] : *part) payload[path] = std::move(file);
  }
  if (!errors.empty()) return Failure(Aggregate(errors));
  return payload;
}

Result<void> WritePayload(const fs::path& dir, const Payload& payload,
                          std::optional<gid_t> fs_group,
                          std::chrono::system_clock::time_point now) {
  for (const auto& [path, file] : payload) {
    if (auto valid = ValidatePayloadPath(path); !valid) return valid;
  }
  // The timestamped directory: Go's MkdirTemp(dir, "..2006_01_02_15_04_05.") adds a random
  // decimal number.
  std::random_device random;
  const std::string stamp = fmt::format("..{:%Y_%m_%d_%H_%M_%S}.{}",
                                        std::chrono::floor<std::chrono::seconds>(now), random());
  const fs::path data_dir = dir / stamp;
  if (mkdir(data_dir.c_str(), 0755) != 0) return SystemError("mkdir", data_dir, errno);
  if (chmod(data_dir.c_str(), 0755) != 0) return SystemError("chmod", data_dir, errno);
  std::set<std::string> top_level;
  for (const auto& [path, file] : payload) {
    const auto parts = Split(path);
    top_level.insert(parts[0]);
    fs::path parent = data_dir;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      parent /= parts[i];
      if (mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST) {
        return SystemError("mkdir", parent, errno);
      }
    }
    UniqueFd parent_fd(open(parent.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!parent_fd) return SystemError("open", parent, errno);
    if (auto w = WriteFileAt(parent_fd.get(), parts.back(), data_dir / path, file); !w) return w;
  }
  const fs::path data_link = dir / "..data";
  if (symlink(stamp.c_str(), data_link.c_str()) != 0) return SystemError("symlink", data_link, errno);
  for (const auto& name : top_level) {
    const fs::path link = dir / name;
    const std::string target = "..data/" + name;
    if (symlink(target.c_str(), link.c_str()) != 0) return SystemError("symlink", link, errno);
  }
  if (fs_group) return ApplyFsGroup(dir, *fs_group);
  return {};
}

}  // namespace podlimits::kubelet
