#include "runcwrap/wrapper_config.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "base/fs.h"
#include "base/numbers.h"
#include "codec/yaml_codec.h"
#include "field/field.h"
#include "validation/pod.h"

namespace podlimits::runcwrap {
namespace fs = std::filesystem;
using codec::Node;

namespace {

Result<std::int64_t> Bound(const Node& value, std::string_view where, std::string_view key) {
  auto v = ParseInt64(value.scalar);
  if (value.kind != Node::Kind::kNumber || !v || *v < 0) {
    return Failure(fmt::format("{}: writableCgroups.{}: must be a non-negative integer, not {}",
                               where, key, field::GoQuote(value.scalar)));
  }
  return *v;
}

bool Executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

Result<void> ResolveRuntime(WrapperConfig& config, std::string_view source) {
  if (config.runtime.empty()) {
    for (const char* candidate : {"/usr/bin/crun", "/usr/sbin/runc", "/usr/bin/runc",
                                  "/usr/local/sbin/runc", "/usr/local/bin/runc"}) {
      if (Executable(candidate)) {
        config.runtime = candidate;
        break;
      }
    }
    if (config.runtime.empty()) {
      return Failure(fmt::format(
          "no OCI runtime found (tried /usr/bin/crun, then runc in /usr/sbin, /usr/bin, "
          "/usr/local/sbin, /usr/local/bin); set runtime: in {}",
          source));
    }
  } else if (!config.runtime.is_absolute()) {
    return Failure(fmt::format("{}: runtime: must be an absolute path, not {}", source,
                               field::GoQuote(config.runtime.string())));
  } else if (!Executable(config.runtime)) {
    return SystemError("runtime", config.runtime, errno == 0 ? ENOENT : errno,
                       fmt::format("the runtime {} names is not an executable file", source));
  }
  // A runtime that is this wrapper again, or its front (front/runc_front.h, podlimits-runc
  // beside this binary), would call itself until the shim gives up. Compared by inode: one stat
  // each, where resolving both paths costs a readlink per component on every runtime call.
  struct stat target {};
  auto same_file = [&](const char* path) {
    struct stat st {};
    return ::stat(path, &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino;
  };
  std::error_code ec;
  const fs::path front = fs::read_symlink("/proc/self/exe", ec).parent_path() / "podlimits-runc";
  if (::stat(config.runtime.c_str(), &target) == 0 &&
      (same_file("/proc/self/exe") || (!ec && same_file(front.c_str())))) {
    return Failure(fmt::format("{}: runtime: {} is podlimits-runc itself; name the real runtime "
                               "(crun or runc)",
                               source, config.runtime.string()));
  }
  return {};
}

Result<std::int64_t> UlimitValue(const Node& value, std::string_view where, std::size_t i,
                                 std::string_view key) {
  auto v = ParseInt64(value.scalar);
  if (value.kind != Node::Kind::kNumber || !v) {
    return Failure(fmt::format("{}: defaultUlimits[{}].{}: must be an integer, not {}", where, i,
                               key, field::GoQuote(value.scalar)));
  }
  return *v;
}

}  // namespace

Result<void> ParseWritableCgroups(const Node& value, std::string_view where,
                                  std::int64_t& max_descendants, std::int64_t& max_depth) {
  if (!value.IsObject()) {
    return Failure(fmt::format("{}: writableCgroups: must be a mapping (maxDescendants, "
                               "maxDepth)",
                               where));
  }
  for (const auto& b : value.members) {
    if (b.key == "maxDescendants" || b.key == "maxDepth") {
      auto v = Bound(b.value, where, b.key);
      if (!v) return std::unexpected(v.error());
      (b.key == "maxDescendants" ? max_descendants : max_depth) = *v;
    } else {
      return Failure(fmt::format("{}: writableCgroups: unknown key {} (maxDescendants, "
                                 "maxDepth)",
                                 where, field::GoQuote(b.key)));
    }
  }
  return {};
}

Result<std::vector<api::Ulimit>> ParseDefaultUlimits(const Node& list, std::string_view where) {
  if (!list.IsArray()) {
    return Failure(fmt::format("{}: defaultUlimits: must be a list of {{name, soft, hard}}", where));
  }
  api::Container c;
  c.name = "defaultUlimits";
  auto& ulimits = c.security_context.emplace().ulimits.emplace();
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const Node& item = list.items[i];
    if (!item.IsObject()) {
      return Failure(fmt::format("{}: defaultUlimits[{}]: must be a mapping {{name, soft, hard}}",
                                 where, i));
    }
    api::Ulimit u;
    bool soft = false, hard = false;
    for (const auto& m : item.members) {
      if (m.key == "name") {
        u.name = m.value.scalar;
      } else if (m.key == "soft" || m.key == "hard") {
        auto v = UlimitValue(m.value, where, i, m.key);
        if (!v) return std::unexpected(v.error());
        (m.key == "soft" ? u.soft : u.hard) = *v;
        (m.key == "soft" ? soft : hard) = true;
      } else {
        return Failure(fmt::format("{}: defaultUlimits[{}]: unknown key {} (name, soft, hard)",
                                   where, i, field::GoQuote(m.key)));
      }
    }
    if (!soft || !hard) {
      return Failure(fmt::format("{}: defaultUlimits[{}]: needs both soft and hard", where, i));
    }
    ulimits.push_back(std::move(u));
  }
  // The rules the apiserver holds a container's ulimits to (seed 000), so a default can be no
  // more than a pod could ask for itself.
  validation::ValidationResult checked;
  validation::ValidateUlimits(c, api::PodSpec{}, field::Path("defaultUlimits"), checked);
  if (!checked.errors.empty()) {
    std::vector<std::string> parts;
    for (const auto& e : checked.errors) {
      std::string text = e.String();  // "defaultUlimits.ulimits[0].soft: ..." -> defaultUlimits[0]
      if (auto at = text.find("defaultUlimits.ulimits["); at != std::string::npos) {
        text.erase(at + 14, 8);
      }
      parts.push_back(std::move(text));
    }
    return Failure(fmt::format("{}: {}", where, field::Aggregate(parts)));
  }
  return ulimits;
}

Result<WrapperConfig> ParseWrapperConfig(std::string_view text, std::string_view source) {
  WrapperConfig config;
  auto docs = codec::ParseYamlStream(text);
  if (!docs) return Failure(fmt::format("{}: {}", source, codec::DescribeYamlError(docs.error())));
  if (docs->empty() || (docs->size() == 1 && (*docs)[0].node.IsNull())) return config;
  if (docs->size() != 1 || !(*docs)[0].node.IsObject()) {
    return Failure(fmt::format("{}: must be one YAML mapping (runtime, writableCgroups, defaultUlimits, requirePodAnnotations)", source));
  }
  for (const auto& m : (*docs)[0].node.members) {
    if (m.key == "runtime") {
      if (!m.value.IsString() || m.value.scalar.empty()) {
        return Failure(fmt::format("{}: runtime: must be the path of crun or runc", source));
      }
      config.runtime = m.value.scalar;
    } else if (m.key == "requirePodAnnotations") {
      if (m.value.kind != Node::Kind::kBool) {
        return Failure(fmt::format("{}: requirePodAnnotations: must be true or false", source));
      }
      config.require_pod_annotations = m.value.scalar == "true";
    } else if (m.key == "writableCgroups") {
      auto ok = ParseWritableCgroups(m.value, source, config.max_descendants, config.max_depth);
      if (!ok) return std::unexpected(ok.error());
    } else if (m.key == "defaultUlimits") {
      auto defaults = ParseDefaultUlimits(m.value, source);
      if (!defaults) return std::unexpected(defaults.error());
      config.default_ulimits = std::move(*defaults);
    } else {
      return Failure(fmt::format("{}: unknown key {} (runtime, writableCgroups, defaultUlimits, requirePodAnnotations)", source,
                                 field::GoQuote(m.key)));
    }
  }
  return config;
}

Result<WrapperConfig> LoadWrapperConfig(const char* config_env) {
  // A file the environment names must exist; the default may not.
  const bool named = config_env != nullptr && *config_env != '\0';
  const fs::path path = named ? fs::path(config_env) : fs::path(kDefaultConfigPath);
  WrapperConfig config;
  auto text = ReadSmallFile(path, 1 << 20);
  if (text) {
    auto parsed = ParseWrapperConfig(*text, path.string());
    if (!parsed) return parsed;
    config = std::move(*parsed);
    if (!config.runtime.empty()) config.runtime_naming_text = std::move(*text);
  } else if (named || text.error().errno_value != ENOENT) {
    return std::unexpected(std::move(text.error()).Wrap("read podlimits-runc's configuration"));
  }
  config.source = path;
  if (auto ok = ResolveRuntime(config, path.string()); !ok) return std::unexpected(ok.error());
  return config;
}

}  // namespace podlimits::runcwrap
