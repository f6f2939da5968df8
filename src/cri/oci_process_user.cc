#include "cri/oci_process_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "base/error.h"
#include "base/fs.h"
#include "cri/oci_process.h"
#include "fmt/format.h"

namespace podlimits::cri {
namespace {

// runc's and Kubernetes' range for ids in a container.
constexpr std::int64_t kMaxId = 2147483647;
// No sane passwd or group file comes near this; the cap keeps a hostile image from making us
// read a huge file into memory.
constexpr std::size_t kMaxDbSize = 16 << 20;

struct PasswdEntry {
  std::string name;
  std::uint32_t uid = 0, gid = 0;
};

struct GroupEntry {
  std::string name;
  std::uint32_t gid = 0;
  std::vector<std::string> members;
};

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t end = s.find(sep, pos);
    out.push_back(s.substr(pos, end == std::string_view::npos ? end : end - pos));
    if (end == std::string_view::npos) return out;
    pos = end + 1;
  }
}

// A decimal id in 0..kMaxId; nullopt for anything else (names, signs, overflow).
std::optional<std::uint32_t> ParseId(std::string_view s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || s.front() == '-' || ec != std::errc() || ptr != s.data() + s.size() ||
      v > kMaxId) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(v);
}

bool IsDecimal(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Lines of a passwd/group file, without comments and blank lines; malformed lines are skipped
// as glibc and runc's user package skip them.
template <typename F>
void ForEachRecord(std::string_view text, F&& f) {
  for (std::string_view line : Split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    f(Split(line, ':'));
  }
}

std::vector<PasswdEntry> ParsePasswd(std::string_view text) {
  std::vector<PasswdEntry> out;
  ForEachRecord(text, [&](const std::vector<std::string_view>& f) {
    if (f.size() < 4) return;
    auto uid = ParseId(f[2]), gid = ParseId(f[3]);
    if (f[0].empty() || !uid || !gid) return;
    out.push_back({std::string(f[0]), *uid, *gid});
  });
  return out;
}

std::vector<GroupEntry> ParseGroup(std::string_view text) {
  std::vector<GroupEntry> out;
  ForEachRecord(text, [&](const std::vector<std::string_view>& f) {
    if (f.size() < 3) return;
    auto gid = ParseId(f[2]);
    if (f[0].empty() || !gid) return;
    GroupEntry g{std::string(f[0]), *gid, {}};
    if (f.size() > 3 && !f[3].empty()) {
      for (auto m : Split(f[3], ',')) g.members.emplace_back(m);
    }
    out.push_back(std::move(g));
  });
  return out;
}

// The text of the image's `rel` ("etc/passwd"), resolved with the rootfs as "/"; nullopt when
// it does not exist (scratch images have no /etc/passwd).
Result<std::optional<std::string>> ReadImageFile(const std::filesystem::path& rootfs,
                                                 std::string_view rel) {
  std::string display = fmt::format("{}/{}", rootfs.string(), rel);
  int root = open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return SystemError("open rootfs", rootfs.string(), errno);
  UniqueFd root_fd(root);
  // O_NONBLOCK: a FIFO planted at /etc/passwd must not block us; the S_ISREG check refuses it.
  auto fd = OpenInRoot(root_fd.get(), rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (!fd) {
    if (fd.error() == ENOENT || fd.error() == ENOTDIR) return std::nullopt;
    return SystemError("open", display, fd.error());
  }
  struct stat st {};
  if (fstat(fd->get(), &st) != 0) return SystemError("stat", display, errno);
  if (!S_ISREG(st.st_mode)) return Failure(fmt::format("read \"{}\": not a regular file", display));
  if (static_cast<std::size_t>(st.st_size) > kMaxDbSize) {
    return Failure(fmt::format("read \"{}\": larger than {} bytes", display, kMaxDbSize));
  }
  std::string text;
  char buf[8192];
  while (true) {
    ssize_t n = read(fd->get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SystemError("read", display, errno);
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxDbSize) {
      return Failure(fmt::format("read \"{}\": larger than {} bytes", display, kMaxDbSize));
    }
  }
  return text;
}

// An id from the API (runAsUser, fsGroup, ...), checked again here because a negative value
// cast to uint32 would silently become a different, huge id.
Result<std::uint32_t> ApiId(std::int64_t v, std::string_view field) {
  if (v < 0 || v > kMaxId) {
    return Failure(fmt::format("{}: Invalid value: {}: must be between 0 and {}, inclusive", field,
                               v, kMaxId));
  }
  return static_cast<std::uint32_t>(v);
}

}  // namespace

Result<ProcessUser> ResolveProcessUser(const api::Pod& pod, const api::Container& container,
                                       const image::ImageConfig& image,
                                       const std::filesystem::path& rootfs) {
  const std::string path = ContainerFieldPath(container);
  const auto& csc = container.security_context;
  const auto& psc = pod.spec.security_context;

  // The kubelet's effective security context: a container field wins over the pod's.
  std::optional<std::int64_t> run_as_user, run_as_group;
  std::string user_field, group_field;
  if (csc && csc->run_as_user) {
    run_as_user = csc->run_as_user, user_field = path + ".securityContext.runAsUser";
  } else if (psc && psc->run_as_user) {
    run_as_user = psc->run_as_user, user_field = "spec.securityContext.runAsUser";
  }
  if (csc && csc->run_as_group) {
    run_as_group = csc->run_as_group, group_field = path + ".securityContext.runAsGroup";
  } else if (psc && psc->run_as_group) {
    run_as_group = psc->run_as_group, group_field = "spec.securityContext.runAsGroup";
  }

  auto passwd_text = ReadImageFile(rootfs, "etc/passwd");
  if (!passwd_text) return Failure(fmt::format("{}: {}", path, passwd_text.error().Message()));
  auto group_text = ReadImageFile(rootfs, "etc/group");
  if (!group_text) return Failure(fmt::format("{}: {}", path, group_text.error().Message()));
  const auto passwd = ParsePasswd(passwd_text->value_or(""));
  const auto groups = ParseGroup(group_text->value_or(""));

  // The image's User is "user[:group]"; only used when no runAsUser overrides it (the kubelet
  // then passes the uid alone, so the image's group goes with its user).
  std::string_view image_user = image.user, image_group;
  if (auto colon = image_user.find(':'); colon != std::string_view::npos) {
    image_group = image_user.substr(colon + 1);
    image_user = image_user.substr(0, colon);
  }

  ProcessUser out;
  const PasswdEntry* entry = nullptr;
  auto by_uid = [&](std::uint32_t uid) -> const PasswdEntry* {
    auto it =
        std::find_if(passwd.begin(), passwd.end(), [&](const auto& e) { return e.uid == uid; });
    return it == passwd.end() ? nullptr : &*it;
  };
  if (run_as_user) {
    auto uid = ApiId(*run_as_user, user_field);
    if (!uid) return std::unexpected(uid.error());
    out.uid = *uid;
    entry = by_uid(out.uid);
  } else if (IsDecimal(image_user)) {
    auto uid = ParseId(image_user);
    if (!uid) {
      return Failure(fmt::format("{}: image user \"{}\": uids must be in range 0-{}", path,
                                 image_user, kMaxId));
    }
    out.uid = *uid;
    entry = by_uid(out.uid);
  } else if (!image_user.empty()) {
    auto it = std::find_if(passwd.begin(), passwd.end(),
                           [&](const auto& e) { return e.name == image_user; });
    if (it == passwd.end()) {
      return Failure(fmt::format("{}: image user \"{}\": no such user in /etc/passwd of the image",
                                 path, image_user));
    }
    entry = &*it;
    out.uid = entry->uid;
  } else {
    entry = by_uid(0);
  }

  if (run_as_group) {
    auto gid = ApiId(*run_as_group, group_field);
    if (!gid) return std::unexpected(gid.error());
    out.gid = *gid;
  } else if (!run_as_user && IsDecimal(image_group)) {
    auto gid = ParseId(image_group);
    if (!gid) {
      return Failure(fmt::format("{}: image group \"{}\": gids must be in range 0-{}", path,
                                 image_group, kMaxId));
    }
    out.gid = *gid;
  } else if (!run_as_user && !image_group.empty()) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.name == image_group; });
    if (it == groups.end()) {
      return Failure(fmt::format("{}: image group \"{}\": no such group in /etc/group of the image",
                                 path, image_group));
    }
    out.gid = it->gid;
  } else if (entry != nullptr) {
    out.gid = entry->gid;
  }

  // containerd (ensureAdditionalGids) lists the gid itself first: setgroups replaces the
  // supplementary list, and `id` in a Kubernetes pod shows the primary group among groups.
  auto add_gid = [&](std::uint32_t gid) {
    if (std::find(out.additional_gids.begin(), out.additional_gids.end(), gid) ==
        out.additional_gids.end()) {
      out.additional_gids.push_back(gid);
    }
  };
  add_gid(out.gid);
  if (entry != nullptr) {
    for (const auto& g : groups) {
      // A group named like the user is its primary group, not a supplementary one.
      if (g.name == entry->name) continue;
      if (std::find(g.members.begin(), g.members.end(), entry->name) != g.members.end()) {
        add_gid(g.gid);
      }
    }
  }
  if (psc) {
    for (std::size_t i = 0; i < psc->supplemental_groups.size(); ++i) {
      auto gid = ApiId(psc->supplemental_groups[i],
                       fmt::format("spec.securityContext.supplementalGroups[{}]", i));
      if (!gid) return std::unexpected(gid.error());
      add_gid(*gid);
    }
    if (psc->fs_group) {
      auto gid = ApiId(*psc->fs_group, "spec.securityContext.fsGroup");
      if (!gid) return std::unexpected(gid.error());
      add_gid(*gid);
    }
  }
  return out;
}

Result<void> VerifyRunAsNonRoot(const api::Pod& pod, const api::Container& container,
                                const image::ImageConfig& image) {
  const auto& csc = container.security_context;
  const auto& psc = pod.spec.security_context;
  std::optional<bool> non_root = csc ? csc->run_as_non_root : std::nullopt;
  if (!non_root && psc) non_root = psc->run_as_non_root;
  if (!non_root.value_or(false)) return {};
  // format.Pod: name_namespace(uid).
  const std::string who = fmt::format("{}_{}({})", pod.metadata.name, pod.metadata.namespace_,
                                      pod.metadata.uid);
  std::optional<std::int64_t> run_as_user = csc ? csc->run_as_user : std::nullopt;
  if (!run_as_user && psc) run_as_user = psc->run_as_user;
  if (run_as_user) {
    if (*run_as_user == 0) {
      return Failure(fmt::format("container's runAsUser breaks non-root policy (pod: \"{}\", "
                                 "container: {})",
                                 who, container.name));
    }
    return {};
  }
  // The kubelet reads only the image's User, as "uid" or "name" (the part before a colon).
  std::string_view user = image.user;
  user = user.substr(0, user.find(':'));
  if (user.empty() || (IsDecimal(user) && ParseId(user) == std::optional<std::uint32_t>(0))) {
    return Failure(fmt::format("container has runAsNonRoot and image will run as root (pod: "
                               "\"{}\", container: {})",
                               who, container.name));
  }
  if (!IsDecimal(user)) {
    return Failure(fmt::format("container has runAsNonRoot and image has non-numeric user ({}), "
                               "cannot verify user is non-root (pod: \"{}\", container: {})",
                               user, who, container.name));
  }
  return {};
}

}  // namespace podlimits::cri
