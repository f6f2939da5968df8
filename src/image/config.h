// The parts of an image's config blob (OCI image-spec config.md, docker's image JSON) that
// running a container needs.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "image/digest.h"

namespace podlimits::image {

// The image's defaults for a container process; Kubernetes' command/args/env/workingDir and
// securityContext.runAsUser override or extend them.
struct ImageConfig {
  std::vector<std::string> entrypoint;  // config.Entrypoint
  std::vector<std::string> cmd;         // config.Cmd
  std::vector<std::string> env;         // config.Env, "KEY=VALUE"
  std::string working_dir;              // config.WorkingDir ("" = "/")
  std::string user;                     // config.User: "uid[:gid]" or names

  bool operator==(const ImageConfig&) const = default;
};

// Everything podlimits reads from a config blob.
struct ParsedImageConfig {
  ImageConfig config;
  std::string architecture;      // "amd64"
  std::string os;                // "linux"
  std::string created;           // RFC 3339, may be ""
  std::vector<Digest> diff_ids;  // rootfs.diff_ids: digests of the uncompressed layers
};

// `path` names the blob in errors.
Result<ParsedImageConfig> ParseImageConfig(std::string_view json, std::string_view path);

}  // namespace podlimits::image
