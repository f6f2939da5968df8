#include "image/config.h"

#include "base/error.h"
#include "fmt/format.h"
#include "image/json.h"

namespace podlimits::image {

Result<ParsedImageConfig> ParseImageConfig(std::string_view json, std::string_view path) {
  JsonSource src{"config", path};
  auto doc = ParseJsonDocument(json, src);
  if (!doc) return std::unexpected(doc.error());
  if (!doc->IsObject()) return Failure(src.Error("not a JSON object"));

  ParsedImageConfig out;
  auto arch = OptionalString(*doc, "architecture", src);
  auto os = OptionalString(*doc, "os", src);
  auto created = OptionalString(*doc, "created", src);
  if (!arch) return std::unexpected(arch.error());
  if (!os) return std::unexpected(os.error());
  if (!created) return std::unexpected(created.error());
  out.architecture = *arch;
  out.os = *os;
  out.created = *created;

  // The process defaults live under "config" (docker also writes a "container_config" that
  // describes the build container, not the image; it is ignored as docker ignores it).
  if (const rapidjson::Value* config = FindMember(*doc, "config")) {
    if (!config->IsObject()) return Failure(src.Error("\"config\" must be an object"));
    JsonSource inner{"config", path};
    auto entrypoint = OptionalStrings(*config, "Entrypoint", inner);
    auto cmd = OptionalStrings(*config, "Cmd", inner);
    auto env = OptionalStrings(*config, "Env", inner);
    auto working_dir = OptionalString(*config, "WorkingDir", inner);
    auto user = OptionalString(*config, "User", inner);
    if (!entrypoint) return std::unexpected(entrypoint.error());
    if (!cmd) return std::unexpected(cmd.error());
    if (!env) return std::unexpected(env.error());
    if (!working_dir) return std::unexpected(working_dir.error());
    if (!user) return std::unexpected(user.error());
    out.config = ImageConfig{*std::move(entrypoint), *std::move(cmd), *std::move(env),
                             *std::move(working_dir), *std::move(user)};
  }

  if (const rapidjson::Value* rootfs = FindMember(*doc, "rootfs")) {
    auto ids = OptionalStrings(*rootfs, "diff_ids", src);
    if (!ids) return std::unexpected(ids.error());
    for (const auto& id : *ids) {
      auto digest = ParseDigest(id);
      if (!digest)
        return Failure(src.Error(fmt::format("rootfs.diff_ids: {}", digest.error().Message())));
      out.diff_ids.push_back(*digest);
    }
  }
  return out;
}

}  // namespace podlimits::image
