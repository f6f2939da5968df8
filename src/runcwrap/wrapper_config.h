// The node's settings for podlimits-runc: /etc/podlimits/runc.yaml, or the file the environment
// variable PODLIMITS_RUNC_CONFIG names (DESIGN.md). Every key is optional:
//
//   runtime: /usr/bin/crun        # the real OCI runtime; default crun if /usr/bin/crun exists,
//                                 # else runc (/usr/sbin/runc, /usr/bin/runc)
//   writableCgroups:              # bounds on the pod cgroup of a pod with a writable container
//     maxDescendants: 250         #   cgroup.max.descendants (KEP-5474's defaults)
//     maxDepth: 50                #   cgroup.max.depth
//   defaultUlimits:               # rlimits for containers whose ulimits leave them out, in the
//     - {name: nofile, soft: 1048576, hard: 1048576}  # form of securityContext.ulimits (same
//                                 # names, -1 for unlimited, held to the KEP's rules here and to
//                                 # the node's ceilings at each create). Why a node wants them:
//                                 # containerd 2.0 dropped LimitNOFILE from its systemd unit, so
//                                 # its containers inherit systemd's 1024:524288 (docs/nri.md).
//   requirePodAnnotations: false  # true: a pod sandbox that carries no podlimits annotation is
//                                 # refused. For a runtime handler that only pods with podlimits
//                                 # fields reach (deploy/runc-wrapper): there, no annotation means
//                                 # the CRI runtime did not pass them (containerd's
//                                 # pod_annotations), and the pod would run without its limits.
//
// A missing default file means all defaults; a file that is named but missing, an unknown key
// or a bad value is an error: a node that silently ignored its settings would be weaker than
// its operator thinks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/objects.h"
#include "base/error.h"
#include "codec/node.h"
#include "runcwrap/front/runc_front.h"

namespace podlimits::runcwrap {

// The same names the front reads (front/runc_front.h).
inline constexpr std::string_view kDefaultConfigPath = front::kDefaultConfig;
inline constexpr std::string_view kConfigEnv = front::kConfigEnv;

struct WrapperConfig {
  std::filesystem::path runtime;  // absolute, never podlimits-runc itself
  // The file this was read from (the default path even when that file is absent).
  std::filesystem::path source;
  // The file's bytes as they were parsed, when the file named the runtime: what the front's
  // record is made of (front_record.h). None when the default runtime was resolved, which
  // depends on what is installed, not on the file alone.
  std::optional<std::string> runtime_naming_text;
  std::int64_t max_descendants = 250;
  std::int64_t max_depth = 50;
  bool require_pod_annotations = false;
  std::vector<api::Ulimit> default_ulimits;
};

// Reads `defaultUlimits` (a YAML list of {name, soft, hard}) and checks it as the apiserver
// checks securityContext.ulimits; `where` names the file in errors. Shared with the NRI plugin's
// configuration, which takes the same key.
Result<std::vector<api::Ulimit>> ParseDefaultUlimits(const codec::Node& list,
                                                     std::string_view where);

// What the key is (writableCgroups) parses the same way in the NRI plugin's configuration.
Result<void> ParseWritableCgroups(const codec::Node& value, std::string_view where,
                                  std::int64_t& max_descendants, std::int64_t& max_depth);

// Parses the file's text; `source` names it in errors. The runtime is resolved by
// ResolveRuntime afterwards.
Result<WrapperConfig> ParseWrapperConfig(std::string_view text, std::string_view source);

// Reads the configuration the environment selects (`config_env` is getenv(kConfigEnv), or null)
// and resolves the runtime: the configured path must be an executable file, and none found is
// an error naming what was tried.
Result<WrapperConfig> LoadWrapperConfig(const char* config_env);

}  // namespace podlimits::runcwrap
