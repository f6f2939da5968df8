#include "validation/config_data.h"

#include "codec/json_codec.h"
#include "validation/object_meta.h"

namespace podlimits::validation {
namespace {

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_';
}

// hasChDirPrefix: a key is a file name in a volume, so it may not walk out of it.
void ChDirPrefixErrors(std::string_view value, std::vector<std::string>& errs) {
  if (value == ".") {
    errs.emplace_back("must not be '.'");
  } else if (value == "..") {
    errs.emplace_back("must not be '..'");
  } else if (value.starts_with("..")) {
    errs.emplace_back("must not start with '..'");
  }
}

// json.Unmarshal into map[string]interface{}: the reason it fails, empty when it does not.
// A syntax error carries the parser's words, not encoding/json's.
std::string JsonObjectError(const std::string& text) {
  auto parsed = codec::ParseJsonStream(text);
  if (!parsed) return parsed.error().message;
  if (parsed->size() != 1) return "invalid character after top-level value";
  const codec::Node& value = parsed->front();
  if (value.IsObject()) return "";
  const char* kind = value.IsArray() ? "array" : value.IsString() ? "string" : "number";
  if (value.kind == codec::Node::Kind::kBool) kind = "bool";
  if (value.IsNull()) return "";  // null unmarshals into a map as nil
  return std::string("json: cannot unmarshal ") + kind +
         " into Go value of type map[string]interface {}";
}

}  // namespace

std::vector<std::string> IsConfigMapKey(std::string_view key) {
  std::vector<std::string> errs;
  if (key.size() > 253) errs.push_back(MaxLenError(253));
  bool matches = !key.empty();
  for (char c : key) matches = matches && IsKeyChar(c);
  if (!matches) {
    errs.push_back(RegexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        "[-._a-zA-Z0-9]+", {"key.name", "KEY_NAME", "key-name"}));
  }
  ChDirPrefixErrors(key, errs);
  return errs;
}

std::vector<std::string> IsEnvVarName(std::string_view name) {
  std::vector<std::string> errs;
  bool matches = !name.empty() && !(name.front() >= '0' && name.front() <= '9');
  for (char c : name) matches = matches && IsKeyChar(c);
  if (!matches) {
    errs.push_back(RegexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', "
        "'-', or '.', and must not start with a digit",
        "[-._a-zA-Z][-._a-zA-Z0-9]*", {"my.env-name", "MY_ENV.NAME", "MyEnvName1"}));
  }
  ChDirPrefixErrors(name, errs);
  return errs;
}

field::ErrorList ValidateConfigMap(const api::ConfigMap& cm) {
  field::ErrorList errs =
      ValidateObjectMeta(cm.metadata, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  std::size_t total = 0;
  const field::Path data("data");
  for (const auto& [key, value] : cm.data) {
    for (auto& msg : IsConfigMapKey(key)) errs.push_back(field::Invalid(data.Key(key), key, msg));
    if (cm.binary_data.contains(key)) {
      errs.push_back(
          field::Invalid(data.Key(key), key, "duplicate of key present in binaryData"));
    }
    total += value.size();
  }
  const field::Path binary("binaryData");
  for (const auto& [key, value] : cm.binary_data) {
    for (auto& msg : IsConfigMapKey(key)) {
      errs.push_back(field::Invalid(binary.Key(key), key, msg));
    }
    total += value.size();
  }
  if (total > kMaxSecretSize) {
    // The empty path: the error is about the whole object.
    errs.push_back(field::TooLong(field::Path(""), field::NoValue{}, kMaxSecretSize));
  }
  return errs;
}

field::ErrorList ValidateSecret(const api::Secret& secret) {
  field::ErrorList errs =
      ValidateObjectMeta(secret.metadata, true, NameRule::kDNSSubdomain, field::Path("metadata"));
  const field::Path data("data");
  std::size_t total = 0;
  for (const auto& [key, value] : secret.data) {
    for (auto& msg : IsConfigMapKey(key)) errs.push_back(field::Invalid(data.Key(key), key, msg));
    total += value.size();
  }
  if (total > kMaxSecretSize) {
    errs.push_back(field::TooLong(data, std::string(), kMaxSecretSize));
  }
  auto has = [&](const char* key) { return secret.data.contains(key); };
  const std::string& type = secret.type;
  if (type == "kubernetes.io/service-account-token") {
    auto it = secret.metadata.annotations.find("kubernetes.io/service-account.name");
    if (it == secret.metadata.annotations.end() || it->second.empty()) {
      errs.push_back(field::Required(
          field::Path("metadata").Child("annotations").Key("kubernetes.io/service-account.name"),
          ""));
    }
  } else if (type == "kubernetes.io/dockercfg" || type == "kubernetes.io/dockerconfigjson") {
    const char* key = type == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
    if (!has(key)) {
      errs.push_back(field::Required(data.Key(key), ""));
    } else if (auto why = JsonObjectError(secret.data.at(key)); !why.empty()) {
      errs.push_back(field::Invalid(data.Key(key), "<secret contents redacted>", why));
    }
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has("username") && !has("password")) {
      errs.push_back(field::Required(data.Key("username"), ""));
      errs.push_back(field::Required(data.Key("password"), ""));
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    auto it = secret.data.find("ssh-privatekey");
    if (it == secret.data.end() || it->second.empty()) {
      errs.push_back(field::Required(data.Key("ssh-privatekey"), ""));
    }
  } else if (type == "kubernetes.io/tls") {
    if (!has("tls.crt")) errs.push_back(field::Required(data.Key("tls.crt"), ""));
    if (!has("tls.key")) errs.push_back(field::Required(data.Key("tls.key"), ""));
  }
  return errs;
}

}  // namespace podlimits::validation
