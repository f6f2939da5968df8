#include "cgroups/detect.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "cgroups/file_io.h"

namespace podlimits::cgroups {
namespace {

// The controllers a cgroup v1 hierarchy can bind (Documentation/admin-guide/cgroup-v1); every
// other super option (rw, noprefix, xattr, clone_children, name=, release_agent=, ...) is not one.
constexpr std::array<std::string_view, 14> kV1Controllers = {
    "blkio",  "cpu",     "cpuacct",  "cpuset",     "devices", "freezer", "hugetlb",
    "memory", "net_cls", "net_prio", "perf_event", "pids",    "rdma",    "misc"};

std::vector<std::string_view> SplitOn(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

std::vector<std::string> Strings(const std::vector<std::string_view>& views) {
  return {views.begin(), views.end()};
}

bool IsOctal(char c) {
  return c >= '0' && c <= '7';
}

// proc(5): space, tab, newline and backslash in paths are written as \040, \011, \012, \134.
std::string Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && IsOctal(text[i + 1]) && IsOctal(text[i + 2]) &&
        IsOctal(text[i + 3])) {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

bool ParseInt(std::string_view text, int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

Result<MountinfoEntry> ParseLine(std::string_view line, const std::filesystem::path& origin,
                                 std::size_t number) {
  auto bad = [&](std::string why) {
    return Failure("parse", origin, "line " + std::to_string(number) + ": " + why);
  };
  std::vector<std::string_view> fields;
  for (std::string_view f : SplitOn(line, ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  auto separator = std::find(fields.begin(), fields.end(), "-");
  if (separator == fields.end()) return bad("no \" - \" separator");
  std::size_t before = static_cast<std::size_t>(separator - fields.begin());
  std::size_t after = fields.size() - before - 1;
  if (before < 6)
    return bad("expected at least 6 fields before \" - \", got " + std::to_string(before));
  if (after < 2) return bad("expected fstype and source after \" - \"");

  MountinfoEntry e;
  if (!ParseInt(fields[0], e.mount_id) || !ParseInt(fields[1], e.parent_id)) {
    return bad("mount ids are not numbers");
  }
  e.major_minor = fields[2];
  e.root = Unescape(fields[3]);
  e.mount_point = Unescape(fields[4]);
  e.mount_options = Strings(SplitOn(fields[5], ','));
  for (std::size_t i = 6; i < before; ++i) e.optional_fields.emplace_back(fields[i]);
  e.fs_type = fields[before + 1];
  e.source = Unescape(fields[before + 2]);
  if (after >= 3) e.super_options = Strings(SplitOn(fields[before + 3], ','));
  return e;
}

bool UnderSysFsCgroup(const std::filesystem::path& p) {
  std::string s = p.string();
  return s == "/sys/fs/cgroup" || s.starts_with("/sys/fs/cgroup/");
}

int UnifiedPreference(const std::filesystem::path& p) {
  if (p == "/sys/fs/cgroup") return 0;
  if (p == "/sys/fs/cgroup/unified") return 1;
  return 2;
}

}  // namespace

std::string_view Name(CgroupMode mode) {
  switch (mode) {
    case CgroupMode::kV1:
      return "v1";
    case CgroupMode::kHybrid:
      return "hybrid";
    case CgroupMode::kV2:
      return "v2";
  }
  return "unknown";
}

std::string_view Name(CgroupVersion version) {
  return version == CgroupVersion::kV1 ? "v1" : "v2";
}

Result<std::vector<MountinfoEntry>> ParseMountinfo(std::string_view text,
                                                   const std::filesystem::path& origin) {
  std::vector<MountinfoEntry> out;
  std::size_t number = 0;
  for (std::string_view line : SplitOn(text, '\n')) {
    ++number;
    if (Trim(line).empty()) continue;
    auto entry = ParseLine(line, origin, number);
    if (!entry) return std::unexpected(entry.error());
    out.push_back(std::move(*entry));
  }
  return out;
}

const V1Hierarchy* CgroupLayout::V1For(std::string_view controller) const {
  for (const V1Hierarchy& h : v1) {
    if (std::find(h.controllers.begin(), h.controllers.end(), controller) != h.controllers.end()) {
      return &h;
    }
  }
  return nullptr;
}

bool CgroupLayout::UnifiedHas(std::string_view controller) const {
  return std::find(unified_controllers.begin(), unified_controllers.end(), controller) !=
         unified_controllers.end();
}

Result<CgroupLayout> LayoutFromMountinfo(const std::vector<MountinfoEntry>& entries,
                                         const std::filesystem::path& origin) {
  CgroupLayout layout;
  for (const MountinfoEntry& e : entries) {
    if (e.fs_type == "cgroup2") {
      UnifiedMount m{e.mount_point, e.root, e.super_options, false};
      m.nsdelegate = std::find(m.super_options.begin(), m.super_options.end(), "nsdelegate") !=
                     m.super_options.end();
      if (!layout.unified ||
          UnifiedPreference(m.mount_point) < UnifiedPreference(layout.unified->mount_point)) {
        layout.unified = std::move(m);
      }
    } else if (e.fs_type == "cgroup") {
      V1Hierarchy h;
      h.mount_point = e.mount_point;
      h.root = e.root;
      for (const std::string& opt : e.super_options) {
        if (opt.starts_with("name=")) {
          h.name = opt.substr(5);
        } else if (std::find(kV1Controllers.begin(), kV1Controllers.end(), opt) !=
                   kV1Controllers.end()) {
          h.controllers.push_back(opt);
        }
      }
      auto same = std::find_if(layout.v1.begin(), layout.v1.end(), [&](const V1Hierarchy& o) {
        return o.controllers == h.controllers && o.name == h.name;
      });
      if (same == layout.v1.end()) {
        layout.v1.push_back(std::move(h));
      } else if (!UnderSysFsCgroup(same->mount_point) && UnderSysFsCgroup(h.mount_point)) {
        *same = std::move(h);
      }
    }
  }
  if (layout.unified && layout.unified->mount_point == "/sys/fs/cgroup") {
    layout.mode = CgroupMode::kV2;
  } else if (layout.unified) {
    layout.mode = CgroupMode::kHybrid;
  } else if (!layout.v1.empty()) {
    layout.mode = CgroupMode::kV1;
  } else {
    return Failure("detect cgroups", origin, "no cgroup or cgroup2 filesystem is mounted");
  }
  return layout;
}

Result<CgroupLayout> DetectLayout(const std::filesystem::path& proc_self_mountinfo,
                                  const std::filesystem::path& fs_root) {
  auto text = ReadFile(proc_self_mountinfo);
  if (!text) return std::unexpected(text.error());
  auto entries = ParseMountinfo(*text, proc_self_mountinfo);
  if (!entries) return std::unexpected(entries.error());
  auto layout = LayoutFromMountinfo(*entries, proc_self_mountinfo);
  if (!layout) return layout;
  if (layout->unified) {
    auto controllers =
        ReadFile(fs_root / layout->unified->mount_point.relative_path() / "cgroup.controllers");
    if (!controllers) return std::unexpected(controllers.error());
    layout->unified_controllers = Words(*controllers);
  }
  return layout;
}

}  // namespace podlimits::cgroups
