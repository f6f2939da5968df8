#include "kubelet/volumes/pod_volumes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "base/fs.h"
#include "base/unique_fd.h"
#include "kubelet/cm/node_resources.h"

namespace podlimits::kubelet {

namespace fs = std::filesystem;

namespace {

std::string TypeCheckFailure(const fs::path& path, std::string_view what) {
  return fmt::format("hostPath type check failed: {} is not {}", path.string(), what);
}

}  // namespace

Result<void> PodVolumes::SetUp() {
  for (const api::Volume& v : plan_.pod.spec.volumes) {
    Result<fs::path> path = fs::path();
    if (v.source == "emptyDir") {
      path = SetUpEmptyDir(v);
    } else if (v.source == "hostPath") {
      path = SetUpHostPath(v);
    } else if (v.source == "configMap" || v.source == "secret" || v.source == "downwardAPI" ||
               v.source == "projected") {
      path = SetUpProjection(v);
    } else {
      // Node admission refused it; reaching here is a bug, not a volume to skip.
      path = Failure(fmt::format("volume source {} is not supported by this node", v.source));
    }
    if (!path) {
      return Failure(fmt::format("MountVolume.SetUp failed for volume \"{}\" : {}", v.name,
                                 path.error().Message()));
    }
    paths_[v.name] = *path;
  }
  return {};
}

Result<fs::path> PodVolumes::SetUpEmptyDir(const api::Volume& v) {
  const fs::path dir = plan_.pod_dir / "volumes" / "kubernetes.io~empty-dir" / v.name;
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (ec) return SystemError("mkdir", dir.parent_path(), ec.value());
  if (mkdir(dir.c_str(), 0777) != 0) return SystemError("mkdir", dir, errno);
  if (v.medium == "Memory") {
    std::int64_t size = NodeMemoryBytes();
    if (v.size_limit) size = v.size_limit->Value();
    const std::string options = fmt::format("mode=0777,size={}", size);
    if (mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
      return SystemError("mount tmpfs", dir, errno, options);
    }
    mounts_.push_back(dir);
  }
  // The umask took bits off mkdir's mode; an emptyDir is writable by every user of the pod.
  mode_t mode = 0777;
  const auto& psc = plan_.pod.spec.security_context;
  if (psc && psc->fs_group) {
    if (chown(dir.c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(*psc->fs_group)) != 0) {
      return SystemError("chown to fsGroup", dir, errno);
    }
    mode |= S_ISGID;
  }
  if (chmod(dir.c_str(), mode) != 0) return SystemError("chmod", dir, errno);
  return dir;
}

Result<fs::path> PodVolumes::SetUpHostPath(const api::Volume& v) {
  const fs::path path = v.host_path;
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return SystemError("stat", path, errno);
  const std::string& type = v.host_path_type;
  if (type.empty()) {
    if (!exists && mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      return SystemError("mkdir", path, errno);
    }
    return path;
  }
  if (type == "DirectoryOrCreate" && !exists) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return SystemError("mkdir", path, ec.value());
    return path;
  }
  if (type == "FileOrCreate" && !exists) {
    UniqueFd fd(open(path.c_str(), O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd) return SystemError("create", path, errno);
    return path;
  }
  if (type == "Directory" || type == "DirectoryOrCreate") {
    if (!exists || !S_ISDIR(st.st_mode)) return Failure(TypeCheckFailure(path, "a directory"));
  } else if (type == "File" || type == "FileOrCreate") {
    if (!exists || !S_ISREG(st.st_mode)) return Failure(TypeCheckFailure(path, "a file"));
  } else if (type == "Socket") {
    if (!exists || !S_ISSOCK(st.st_mode)) return Failure(TypeCheckFailure(path, "a socket file"));
  } else if (type == "CharDevice") {
    if (!exists || !S_ISCHR(st.st_mode)) {
      return Failure(TypeCheckFailure(path, "a character device"));
    }
  } else if (type == "BlockDevice") {
    if (!exists || !S_ISBLK(st.st_mode)) return Failure(TypeCheckFailure(path, "a block device"));
  } else {
    return Failure(fmt::format("hostPath type \"{}\" is not supported", type));
  }
  return path;
}

Result<fs::path> PodVolumes::SetUpProjection(const api::Volume& v) {
  // The payload first: a missing object or key fails the mount before anything is made.
  PayloadContext ctx = payload_ctx_;
  ctx.pod = &plan_.pod;
  auto payload = VolumePayload(v, ctx);
  if (!payload) return std::unexpected(payload.error());
  const char* plugin = v.source == "configMap"     ? "kubernetes.io~configmap"
                       : v.source == "secret"      ? "kubernetes.io~secret"
                       : v.source == "downwardAPI" ? "kubernetes.io~downward-api"
                                                   : "kubernetes.io~projected";
  const fs::path dir = plan_.pod_dir / "volumes" / plugin / v.name;
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (ec) return SystemError("mkdir", dir.parent_path(), ec.value());
  if (mkdir(dir.c_str(), 0777) != 0) return SystemError("mkdir", dir, errno);
  // Secrets (and what may hold them) never touch the disk: tmpfs, as the kubelet's
  // memory-backed wrapper. A ConfigMap is written on disk, as its emptyDir wrapper.
  if (v.source != "configMap") {
    const std::string options = fmt::format("mode=0777,size={}", NodeMemoryBytes());
    if (mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
      return SystemError("mount tmpfs", dir, errno, options);
    }
    mounts_.push_back(dir);
  }
  if (chmod(dir.c_str(), 0777) != 0) return SystemError("chmod", dir, errno);
  std::optional<gid_t> fs_group;
  const auto& psc = plan_.pod.spec.security_context;
  if (psc && psc->fs_group) fs_group = static_cast<gid_t>(*psc->fs_group);
  if (auto w = WritePayload(dir, *payload, fs_group, std::chrono::system_clock::now()); !w) {
    return std::unexpected(w.error());
  }
  projection_volumes_.insert(v.name);
  return dir;
}

Result<std::vector<cri::SpecMount>> PodVolumes::ContainerMounts(const api::Container& container,
                                                                const cri::EnvList& env) {
  std::vector<cri::SpecMount> out;
  for (std::size_t i = 0; i < container.volume_mounts.size(); ++i) {
    const api::VolumeMount& m = container.volume_mounts[i];
    auto it = paths_.find(m.name);
    if (it == paths_.end()) {
      return Failure(fmt::format("cannot find volume \"{}\" to mount into container \"{}\"",
                                 m.name, container.name));
    }
    fs::path source = it->second;
    std::string sub_path = m.sub_path;
    if (!m.sub_path_expr.empty()) sub_path = cri::ExpandReferences(m.sub_path_expr, env);
    if (!sub_path.empty()) {
      auto mounted = SubPathMount(container, i, it->second, m.name, sub_path);
      if (!mounted) {
        return Failure(fmt::format("failed to prepare subPath for volumeMount \"{}\" of container "
                                   "\"{}\": {}",
                                   m.name, container.name, mounted.error().Message()));
      }
      source = *mounted;
    }
    cri::SpecMount mount{m.mount_path, "bind", source.string(), {"rbind", "rprivate"}};
    const bool read_only = m.read_only || projection_volumes_.contains(m.name);
    mount.options.push_back(read_only ? "ro" : "rw");
    out.push_back(std::move(mount));
  }
  return out;
}

Result<fs::path> PodVolumes::SubPathMount(const api::Container& container, std::size_t index,
                                          const fs::path& volume, const std::string& volume_name,
                                          const std::string& sub_path) {
  auto clean = CleanRelativePath(sub_path);
  if (!clean) return std::unexpected(clean.error());
  const fs::path target = plan_.pod_dir / "volume-subpaths" / volume_name / container.name /
                          std::to_string(index);
  if (auto mounted = IsMountRoot(target); mounted && *mounted) return target;  // a restart

  UniqueFd dir(open(volume.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return SystemError("open volume", volume, errno);
  // Each component beneath the volume, created as a directory when missing (the kubelet's
  // safe MkdirAll), never through a symlink.
  UniqueFd current(dup(dir.get()));
  std::string walked;
  std::stringstream parts(*clean);
  std::string part;
  bool is_dir = true;
  if (projection_volumes_.contains(volume_name)) {
    // The files of these volumes are symlinks into ..data that podlimits itself wrote (the
    // volume is read-only to the pod): resolve them with the volume as the root, so nothing can
    // point outside it. A key that is not there is not created.
    auto opened = OpenInRoot(dir.get(), *clean, O_PATH | O_CLOEXEC);
    if (!opened) return SystemError("open", volume / *clean, opened.error());
    struct stat st {};
    if (fstat(opened->get(), &st) != 0) return SystemError("stat", volume / *clean, errno);
    is_dir = S_ISDIR(st.st_mode);
    current = std::move(*opened);
    walked = *clean;
    parts.setstate(std::ios::eofbit);
  }
  while (!parts.eof() && std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    walked += (walked.empty() ? "" : "/") + part;
    auto next = OpenBeneath(current.get(), part, O_PATH | O_CLOEXEC);
    if (!next && next.error() == ENOENT) {
      if (mkdirat(current.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        return SystemError("mkdir", volume / walked, errno);
      }
      next = OpenBeneath(current.get(), part, O_PATH | O_CLOEXEC);
    }
    if (!next) {
      return SystemError("open", volume / walked, next.error(),
                         next.error() == ELOOP || next.error() == EXDEV
                             ? "a subPath may not pass through a symlink"
                             : "");
    }
    struct stat st {};
    if (fstat(next->get(), &st) != 0) return SystemError("stat", volume / walked, errno);
    is_dir = S_ISDIR(st.st_mode);
    current = std::move(*next);
  }
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return SystemError("mkdir", target.parent_path(), ec.value());
  if (is_dir) {
    if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) return SystemError("mkdir", target, errno);
  } else {
    UniqueFd f(open(target.c_str(), O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!f) return SystemError("create", target, errno);
  }
  const std::string from = fmt::format("/proc/self/fd/{}", current.get());
  if (mount(from.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return SystemError("bind-mount subPath", target, errno, fmt::format("from {}", (volume / walked).string()));
  }
  mounts_.push_back(target);
  return target;
}

std::vector<std::string> PodVolumes::TearDown() {
  std::vector<std::string> errors;
  for (auto it = mounts_.rbegin(); it != mounts_.rend(); ++it) {
    if (umount2(it->c_str(), UMOUNT_NOFOLLOW) != 0 &&
        umount2(it->c_str(), UMOUNT_NOFOLLOW | MNT_DETACH) != 0 && errno != EINVAL &&
        errno != ENOENT) {
      errors.push_back(SystemError("unmount", *it, errno).error().Message());
    }
  }
  mounts_.clear();
  paths_.clear();
  return errors;
}

}  // namespace podlimits::kubelet
