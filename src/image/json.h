// Reading the JSON documents of image formats (index, manifests, configs) with RapidJSON.
// Each helper names the document and the field in its errors, e.g.
// `parse manifest "blobs/sha256/ab..": "layers" must be an array`.
#pragma once

#include <rapidjson/document.h>

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace podlimits::image {

// Where a document came from, for messages: `parse WHAT "PATH": ...`.
struct JsonSource {
  std::string_view what;
  std::string_view path;
  std::string Error(std::string_view detail) const;
};

Result<rapidjson::Document> ParseJsonDocument(std::string_view text, const JsonSource& src);

// The member `key` of an object, or nullptr when absent or null.
const rapidjson::Value* FindMember(const rapidjson::Value& object, const char* key);

// A required string member.
Result<std::string> RequiredString(const rapidjson::Value& object, const char* key,
                                   const JsonSource& src);
// An optional string member ("" when absent or null).
Result<std::string> OptionalString(const rapidjson::Value& object, const char* key,
                                   const JsonSource& src);
// An optional array of strings (empty when absent or null).
Result<std::vector<std::string>> OptionalStrings(const rapidjson::Value& object, const char* key,
                                                 const JsonSource& src);

}  // namespace podlimits::image
