#include "runcwrap/pod_cgroup_limits.h"

#include <fmt/format.h>

#include <system_error>

#include "cgroups/tree.h"
#include "field/field.h"

namespace podlimits::runcwrap {
namespace fs = std::filesystem;

Result<fs::path> SliceCgroupPath(std::string_view slice) {
  constexpr std::string_view kSuffix = ".slice";
  if (slice == "-.slice") return fs::path("/");
  if (!slice.ends_with(kSuffix) || slice.size() == kSuffix.size() ||
      slice.find('/') != std::string_view::npos) {
    return Failure(fmt::format("{} is not a systemd slice name (NAME.slice)",
                               field::GoQuote(slice)));
  }
  std::string_view name = slice.substr(0, slice.size() - kSuffix.size());
  if (name.starts_with('-') || name.ends_with('-') || name.find("--") != std::string_view::npos) {
    return Failure(fmt::format("{} is not a valid systemd slice name", field::GoQuote(slice)));
  }
  // Each dash starts a child: a-b-c.slice lives in a-b.slice, which lives in a.slice.
  fs::path path = "/";
  for (std::size_t dash = name.find('-');; dash = name.find('-', dash + 1)) {
    std::string_view prefix = dash == std::string_view::npos ? name : name.substr(0, dash);
    path /= std::string(prefix) + std::string(kSuffix);
    if (dash == std::string_view::npos) break;
  }
  return path;
}

Result<fs::path> PodCgroupAt(const PodCgroupLocation& where) {
  if (!where.cgroups_path.empty() || where.cgroup_parent.empty()) {
    return PodCgroupOf(where.cgroups_path);
  }
  std::string_view parent = where.cgroup_parent;
  if (parent.ends_with(".slice")) return SliceCgroupPath(parent);
  if (!parent.starts_with('/')) {
    return Failure(fmt::format("the pod's cgroup parent {} is neither an absolute cgroup path nor "
                               "a systemd slice",
                               field::GoQuote(parent)));
  }
  for (const auto& part : fs::path(parent)) {
    if (part == "..") {
      return Failure(fmt::format("the pod's cgroup parent {} leaves the cgroup root",
                                 field::GoQuote(parent)));
    }
  }
  fs::path p = fs::path(parent).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (p.empty() || p == "/") {
    return Failure(fmt::format("the pod's cgroup parent {} is the cgroup root, not a pod cgroup",
                               field::GoQuote(parent)));
  }
  return p;
}

Result<fs::path> PodCgroupOf(std::string_view cgroups_path) {
  if (cgroups_path.empty()) {
    return Failure("the bundle sets no linux.cgroupsPath, so its pod cgroup is unknown");
  }
  if (cgroups_path.starts_with('/')) {
    // Judged as written: a ".." would make the pod cgroup another one than the runtime uses.
    for (const auto& part : fs::path(cgroups_path)) {
      if (part == "..") {
        return Failure(fmt::format("linux.cgroupsPath {} leaves the cgroup root",
                                   field::GoQuote(cgroups_path)));
      }
    }
    fs::path p = fs::path(cgroups_path).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // a trailing slash
    const fs::path parent = p.parent_path();
    if (parent.empty() || parent == "/") {
      return Failure(fmt::format("linux.cgroupsPath {} has no pod cgroup above the container",
                                 field::GoQuote(cgroups_path)));
    }
    return parent;
  }
  // systemd driver: "slice:prefix:name"; the slice is the pod's.
  const auto colon = cgroups_path.find(':');
  if (colon != std::string_view::npos &&
      std::count(cgroups_path.begin(), cgroups_path.end(), ':') == 2) {
    auto slice = cgroups_path.substr(0, colon);
    if (slice.empty()) slice = "system.slice";
    auto path = SliceCgroupPath(slice);
    if (!path) return std::unexpected(path.error());
    if (*path == "/") {
      return Failure(fmt::format("linux.cgroupsPath {} has no pod slice above the container",
                                 field::GoQuote(cgroups_path)));
    }
    return *path;
  }
  return Failure(fmt::format(
      "linux.cgroupsPath {} is neither an absolute cgroupfs path nor systemd's slice:prefix:name",
      field::GoQuote(cgroups_path)));
}

namespace {

// Lowers `file` to `want` when it holds more, then reads it back.
Result<cgroups::MaxValue> LowerTo(cgroups::CgroupTree& tree, const fs::path& cgroup,
                                  std::string_view file, std::int64_t want) {
  auto path = tree.Path(cgroup);
  if (!path) return std::unexpected(path.error());
  auto read = [&]() -> Result<cgroups::MaxValue> {
    auto text = tree.Read(cgroup, file);
    if (!text) return std::unexpected(text.error());
    return cgroups::ParseMaxValue(*text, *path / file);
  };
  auto current = read();
  if (!current) return current;
  if (*current && **current <= want) return current;  // the kubelet's is lower already
  if (auto ok = tree.Write(cgroup, file, std::to_string(want)); !ok) {
    return std::unexpected(ok.error());
  }
  auto after = read();
  if (!after) return after;
  if (!*after || **after != want) {
    return Failure("read back", *path / file,
                   fmt::format("wrote {}, the kernel holds {}", want,
                               cgroups::FormatMaxValue(*after)));
  }
  return after;
}

}  // namespace

Result<PodCgroupState> ApplyPodCgroupLimits(const fs::path& unified_root,
                                            const fs::path& pod_cgroup,
                                            const PodCgroupLimits& limits) {
  auto tree = cgroups::CgroupTree::OnCgroupfs(unified_root);
  auto dir = tree.Path(pod_cgroup);
  if (!dir) return std::unexpected(dir.error());
  PodCgroupState state;
  state.dir = *dir;
  std::error_code ec;
  if (!fs::is_directory(*dir, ec)) {
    return SystemError("stat", *dir, ec ? ec.value() : ENOENT,
                       "the pod cgroup must exist before its sandbox is created (the kubelet "
                       "creates it)");
  }
  if (limits.pids_max) {
    auto v = LowerTo(tree, pod_cgroup, "pids.max", *limits.pids_max);
    if (!v) return std::unexpected(std::move(v.error()).Wrap("set the pod's PID limit"));
    state.pids_max = *v;
  }
  if (limits.max_descendants) {
    auto v = LowerTo(tree, pod_cgroup, "cgroup.max.descendants", *limits.max_descendants);
    if (!v) return std::unexpected(std::move(v.error()).Wrap("bound a writable pod's cgroups"));
    state.max_descendants = *v;
  }
  if (limits.max_depth) {
    auto v = LowerTo(tree, pod_cgroup, "cgroup.max.depth", *limits.max_depth);
    if (!v) return std::unexpected(std::move(v.error()).Wrap("bound a writable pod's cgroups"));
    state.max_depth = *v;
  }
  return state;
}

}  // namespace podlimits::runcwrap
