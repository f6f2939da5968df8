#include "image/metadata.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "base/error.h"
#include "image/digest.h"
#include "image/json.h"

namespace podlimits::image {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void String(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Strings(Writer& w, const char* key, const std::vector<std::string>& items) {
  w.Key(key);
  w.StartArray();
  for (const auto& s : items) String(w, s);
  w.EndArray();
}

}  // namespace

// The image facts use the config blob's own field names ("architecture", "config.Cmd", ...),
// so decoding reuses ParseImageConfig.
std::string EncodeImageMetadata(const ImageMetadata& m) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("id");
  String(w, m.id);
  w.Key("configDigest");
  String(w, m.config_digest);
  w.Key("manifestDigest");
  String(w, m.manifest_digest);
  w.Key("format");
  String(w, m.format);
  w.Key("architecture");
  String(w, m.architecture);
  w.Key("os");
  String(w, m.os);
  w.Key("created");
  String(w, m.created);
  Strings(w, "layers", m.layers);
  w.Key("size");
  w.Uint64(m.size);
  w.Key("config");
  w.StartObject();
  Strings(w, "Entrypoint", m.config.entrypoint);
  Strings(w, "Cmd", m.config.cmd);
  Strings(w, "Env", m.config.env);
  w.Key("WorkingDir");
  String(w, m.config.working_dir);
  w.Key("User");
  String(w, m.config.user);
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

Result<ImageMetadata> DecodeImageMetadata(std::string_view json, std::string_view path) {
  auto parsed = ParseImageConfig(json, path);
  if (!parsed) return std::unexpected(parsed.error());
  JsonSource src{"image metadata", path};
  auto doc = ParseJsonDocument(json, src);
  if (!doc) return std::unexpected(doc.error());

  ImageMetadata m;
  m.architecture = parsed->architecture;
  m.os = parsed->os;
  m.created = parsed->created;
  m.config = parsed->config;
  for (auto [key, field] :
       {std::pair{"id", &m.id}, std::pair{"configDigest", &m.config_digest},
        std::pair{"manifestDigest", &m.manifest_digest}, std::pair{"format", &m.format}}) {
    auto value = OptionalString(*doc, key, src);
    if (!value) return std::unexpected(value.error());
    *field = *value;
  }
  auto layers = OptionalStrings(*doc, "layers", src);
  if (!layers) return std::unexpected(layers.error());
  m.layers = *layers;
  if (const rapidjson::Value* size = FindMember(*doc, "size")) {
    if (!size->IsUint64()) return Failure(src.Error("\"size\" must be an integer"));
    m.size = size->GetUint64();
  }
  return m;
}

}  // namespace podlimits::image
