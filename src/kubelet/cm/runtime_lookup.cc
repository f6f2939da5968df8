#include "kubelet/cm/runtime_lookup.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "base/child_process.h"
#include "base/error.h"
#include "field/field.h"

extern char** environ;

namespace podlimits::kubelet {
namespace {

bool Executable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::string SearchPath(std::string_view name, std::string_view path_env) {
  while (!path_env.empty()) {
    std::size_t colon = path_env.find(':');
    std::string_view dir = path_env.substr(0, colon);
    path_env = colon == std::string_view::npos ? std::string_view() : path_env.substr(colon + 1);
    if (dir.empty() || !dir.starts_with('/')) continue;  // relative entries would depend on cwd
    std::string candidate = fmt::format("{}/{}", dir, name);
    if (Executable(candidate)) return candidate;
  }
  return {};
}

RuntimeInfo Found(std::string_view name, std::string path) {
  RuntimeInfo info;
  info.name = std::string(name);
  info.path = std::move(path);
  info.applies_rlimits = true;
  info.supports_writable_cgroups = true;
  return info;
}

}  // namespace

Result<RuntimeInfo> FindRuntime(const RuntimeSettings& settings, std::string_view path_env) {
  if (!settings.path.empty()) {
    std::string_view name = OciRuntimeName(settings.name.value_or(OciRuntime::kCrun));
    if (!Executable(settings.path)) {
      return Failure(
          fmt::format("runtime.path {}: not an executable file", field::GoQuote(settings.path)));
    }
    return Found(name, settings.path);
  }
  std::vector<OciRuntime> candidates = settings.name
                                           ? std::vector{*settings.name}
                                           : std::vector{OciRuntime::kCrun, OciRuntime::kRunc};
  std::string looked;
  for (OciRuntime r : candidates) {
    if (std::string path = SearchPath(OciRuntimeName(r), path_env); !path.empty()) {
      return Found(OciRuntimeName(r), std::move(path));
    }
    if (!looked.empty()) looked += ", ";
    looked += field::GoQuote(OciRuntimeName(r));
  }
  return Failure(fmt::format("no OCI runtime found: looked for {} in PATH", looked));
}

std::string ParseRuntimeVersion(std::string_view output) {
  std::string_view line = output.substr(0, output.find('\n'));
  // "crun version 1.8.1", "runc version 1.1.5+ds1"
  constexpr std::string_view kMarker = " version ";
  std::size_t at = line.find(kMarker);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + kMarker.size());
  return std::string(rest.substr(0, rest.find(' ')));
}

std::string RuntimeUnusable(const RuntimeInfo& runtime, std::optional<cgroups::CgroupMode> mode) {
  if (!runtime.Found() || runtime.name != "runc" || !mode || *mode == cgroups::CgroupMode::kV2) {
    return {};
  }
  return fmt::format(
      "runc on a cgroup {} node needs the devices hierarchy for its device rules, and podlimits "
      "manages only the pids hierarchy there: use crun (runtime.name in the NodeConfiguration)",
      cgroups::Name(*mode));
}

std::string RuntimeVersion(const std::string& path) {
  // crun creates its --root even to print its version: a private directory that goes with the
  // probe, so that node-info leaves nothing behind (crun's default would be /run/crun).
  std::string scratch =
      (std::filesystem::temp_directory_path() / "podlimits-version-XXXXXX").string();
  if (::mkdtemp(scratch.data()) == nullptr) return {};
  struct RemoveScratch {
    std::string dir;
    ~RemoveScratch() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remove_scratch{scratch};
  const std::filesystem::path state_root = std::filesystem::path(scratch) / "root";
  ChildCommand version;
  version.argv = {path, "--root", state_root.string(), "--version"};
  version.stderr_fd = ChildCommand::kDevNull;
  version.timeout = std::chrono::seconds(10);
  auto ran = RunChild(version);
  if (!ran || !ran->Succeeded()) return {};
  std::string output = std::move(ran->out);
  return ParseRuntimeVersion(output);
}

}  // namespace podlimits::kubelet
