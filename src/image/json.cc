#include "image/json.h"

#include <rapidjson/error/en.h>

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits::image {

std::string JsonSource::Error(std::string_view detail) const {
  return fmt::format("parse {} \"{}\": {}", what, path, detail);
}

Result<rapidjson::Document> ParseJsonDocument(std::string_view text, const JsonSource& src) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    return Failure(
        src.Error(fmt::format("{} (at byte {})", rapidjson::GetParseError_En(doc.GetParseError()),
                              doc.GetErrorOffset())));
  }
  if (!doc.IsObject() && !doc.IsArray()) {
    return Failure(src.Error("not a JSON object or array"));
  }
  return doc;
}

const rapidjson::Value* FindMember(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

Result<std::string> RequiredString(const rapidjson::Value& object, const char* key,
                                   const JsonSource& src) {
  const rapidjson::Value* v = FindMember(object, key);
  if (v == nullptr) return Failure(src.Error(fmt::format("\"{}\" is missing", key)));
  if (!v->IsString()) return Failure(src.Error(fmt::format("\"{}\" must be a string", key)));
  return std::string(v->GetString(), v->GetStringLength());
}

Result<std::string> OptionalString(const rapidjson::Value& object, const char* key,
                                   const JsonSource& src) {
  if (FindMember(object, key) == nullptr) return std::string();
  return RequiredString(object, key, src);
}

Result<std::vector<std::string>> OptionalStrings(const rapidjson::Value& object, const char* key,
                                                 const JsonSource& src) {
  std::vector<std::string> out;
  const rapidjson::Value* v = FindMember(object, key);
  if (v == nullptr) return out;
  if (!v->IsArray()) {
    return Failure(src.Error(fmt::format("\"{}\" must be an array of strings", key)));
  }
  for (const auto& item : v->GetArray()) {
    if (!item.IsString()) {
      return Failure(src.Error(fmt::format("\"{}\" must be an array of strings", key)));
    }
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

}  // namespace podlimits::image
