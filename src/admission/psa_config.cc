#include "admission/psa_config.h"

#include <cerrno>
#include <cstring>
#include <set>

#include "base/fs.h"
#include "api/decode.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "field/field.h"
#include "validation/object_meta.h"

namespace podlimits::admission::psa {
namespace {

constexpr std::string_view kPluginName = "PodSecurity";
constexpr std::string_view kPodSecurityGroup = "pod-security.admission.config.k8s.io/";


std::string StringField(const codec::Node& tree, std::string_view key) {
  const codec::Node* n = tree.Find(key);
  return n && n->IsString() ? n->scalar : std::string();
}

std::vector<std::string> StringList(const codec::Node* list) {
  std::vector<std::string> out;
  if (!list || !list->IsArray()) return out;
  for (const auto& item : list->items) out.push_back(item.scalar);
  return out;
}

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

// One YAML or JSON document; an empty file is a null node.
Result<codec::Node> ParseDocument(std::string_view text,
                                                    std::string_view source) {
  std::vector<codec::Node> docs;
  if (LooksLikeJson(text)) {
    auto parsed = codec::ParseJsonStream(text);
    if (!parsed) {
      return Failure(std::string(source) + ": invalid JSON at line " +
                             std::to_string(parsed.error().line) + ": " + parsed.error().message);
    }
    docs = std::move(*parsed);
  } else {
    auto parsed = codec::ParseYamlStream(text);
    if (!parsed) {
      return Failure(std::string(source) + ": " + codec::DescribeYamlError(parsed.error()));
    }
    for (auto& d : *parsed) {
      if (!d.node.IsNull()) docs.push_back(std::move(d.node));
    }
  }
  if (docs.empty()) return codec::Node::Null();
  if (docs.size() > 1) {
    return Failure(std::string(source) + ": expected one object, found " +
                           std::to_string(docs.size()));
  }
  return std::move(docs.front());
}

Result<std::string> ReadFile(const std::filesystem::path& path,
                                                 std::string_view what) {
  auto text = ReadWholeFile(path);
  if (!text) {
    return Failure("unable to read " + std::string(what) + " from " +
                   field::GoQuote(path.string()) + ": " + std::strerror(text.error().errno_value));
  }
  return text;
}

// Strict decoding against the schema; the decoder's message already names the bad field.
Result<codec::Node> Decode(std::string_view kind, codec::Node tree,
                                             std::string_view source) {
  const std::uint32_t line = tree.line;
  auto decoded = api::DecodeObject(api::Schema::Config(), kind, std::move(tree), source, line,
                                   api::FieldValidation::kStrict);
  if (auto* err = std::get_if<api::DecodeError>(&decoded)) {
    return Failure(std::string(source) + ": " + err->message);
  }
  return std::move(std::get<api::DecodedObject>(decoded).tree);
}

// ToPolicy (admission/api/helpers.go): the error names the Go field, e.g. "Enforce.Level".
Result<Policy> ToPolicy(const codec::Node* defaults) {
  // v1 defaulting: an unset or empty field means privileged / latest.
  auto get = [&](std::string_view key, std::string_view fallback) {
    std::string v = defaults ? StringField(*defaults, key) : std::string();
    return v.empty() ? std::string(fallback) : v;
  };
  Policy p;
  std::vector<std::string> errs;
  auto level = [&](std::string_view key, std::string_view name, Level& out) {
    auto l = ParseLevel(get(key, "privileged"));
    if (l)
      out = *l;
    else
      errs.push_back(std::string(name) + ": " + l.error().Message());
  };
  auto version = [&](std::string_view key, std::string_view name, Version& out) {
    auto v = ParseVersion(get(key, "latest"));
    if (v)
      out = *v;
    else
      errs.push_back(std::string(name) + ": " + v.error().Message());
  };
  level("enforce", "Enforce.Level", p.enforce.level);
  version("enforce-version", "Enforce.Version", p.enforce.version);
  level("audit", "Audit.Level", p.audit.level);
  version("audit-version", "Audit.Version", p.audit.version);
  level("warn", "Warn.Level", p.warn.level);
  version("warn-version", "Warn.Version", p.warn.version);
  if (!errs.empty()) return Failure(field::Aggregate(errs));
  return p;
}

// validateNamespaces / validateRuntimeClasses / validateUsernames: each entry well-formed and
// listed once.
void ValidateExemptionList(const std::vector<std::string>& values, std::string_view name,
                           std::vector<std::string> (*name_errors)(std::string_view),
                           field::ErrorList& errs) {
  const field::Path path = field::Path("exemptions").Child(name);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string& v = values[i];
    if (name_errors) {
      auto messages = name_errors(v);
      if (!messages.empty()) {
        std::string joined;
        for (const auto& m : messages) joined += (joined.empty() ? "" : ", ") + m;
        errs.push_back(field::Invalid(path.Index(i), v, joined));
        continue;
      }
    } else if (v.empty()) {
      // validateUsernames: an Invalid error with its own detail, not Required.
      errs.push_back(field::Invalid(path.Index(i), v, "username must not be empty"));
      continue;
    }
    if (!seen.insert(v).second) errs.push_back(field::Duplicate(path.Index(i), v));
  }
}

}  // namespace

PodSecurityConfiguration DefaultPodSecurityConfiguration() {
  return PodSecurityConfiguration{};
}

Result<PodSecurityConfiguration> ParsePodSecurityConfiguration(codec::Node tree, std::string_view source) {
  if (!tree.IsObject()) {
    return Failure(std::string(source) +
                           ": PodSecurity configuration must be an object, got " +
                           std::string(codec::GoJsonKindName(tree)));
  }
  std::string kind = StringField(tree, "kind");
  std::string api_version = StringField(tree, "apiVersion");
  // v1alpha1 and v1beta1 carry the same fields as v1 and are still served upstream.
  bool known_version = api_version == std::string(kPodSecurityGroup) + "v1" ||
                       api_version == std::string(kPodSecurityGroup) + "v1beta1" ||
                       api_version == std::string(kPodSecurityGroup) + "v1alpha1";
  if (kind != "PodSecurityConfiguration" || !known_version) {
    return Failure(std::string(source) +
                           ": the PodSecurity plugin configuration must be a "
                           "PodSecurityConfiguration (pod-security.admission.config.k8s.io/v1), "
                           "got kind " +
                           field::GoQuote(kind) + " apiVersion " + field::GoQuote(api_version));
  }
  auto decoded = Decode("PodSecurityConfiguration", std::move(tree), source);
  if (!decoded) return std::unexpected(decoded.error());

  PodSecurityConfiguration config;
  auto policy = ToPolicy(decoded->Find("defaults"));
  if (!policy) {
    return std::unexpected(
        std::move(policy.error()).Wrap(std::string(source) + ": PodSecurity configuration error"));
  }
  config.defaults = *policy;
  if (const codec::Node* ex = decoded->Find("exemptions")) {
    config.exemptions.usernames = StringList(ex->Find("usernames"));
    config.exemptions.namespaces = StringList(ex->Find("namespaces"));
    config.exemptions.runtime_classes = StringList(ex->Find("runtimeClasses"));
  }
  field::ErrorList errs;
  ValidateExemptionList(config.exemptions.namespaces, "namespaces", validation::IsDNS1123Label,
                        errs);
  ValidateExemptionList(config.exemptions.runtime_classes, "runtimeClasses",
                        validation::IsDNS1123Subdomain, errs);
  ValidateExemptionList(config.exemptions.usernames, "usernames", nullptr, errs);
  if (!errs.empty()) {
    return Failure(std::string(source) +
                           ": PodSecurity invalid: " + field::Aggregate(errs));
  }
  return config;
}

Result<PodSecurityConfiguration> ParseAdmissionConfiguration(std::string_view text, std::string_view source,
                                   const std::filesystem::path& base_dir) {
  auto doc = ParseDocument(text, source);
  if (!doc) return std::unexpected(doc.error());
  if (!doc->IsObject()) {
    return Failure(std::string(source) +
                           ": expected an AdmissionConfiguration object, got " +
                           std::string(codec::GoJsonKindName(*doc)));
  }
  std::string kind = StringField(*doc, "kind");
  std::string api_version = StringField(*doc, "apiVersion");
  if (kind != "AdmissionConfiguration" || (api_version != "apiserver.config.k8s.io/v1" &&
                                           api_version != "apiserver.config.k8s.io/v1alpha1")) {
    return Failure(std::string(source) +
                           ": expected kind \"AdmissionConfiguration\" with apiVersion "
                           "\"apiserver.config.k8s.io/v1\", got kind " +
                           field::GoQuote(kind) + " apiVersion " + field::GoQuote(api_version));
  }
  auto decoded = Decode("AdmissionConfiguration", std::move(*doc), source);
  if (!decoded) return std::unexpected(decoded.error());

  const codec::Node* plugins = decoded->Find("plugins");
  if (!plugins || !plugins->IsArray()) return DefaultPodSecurityConfiguration();
  for (std::size_t i = 0; i < plugins->items.size(); ++i) {
    const codec::Node& plugin = plugins->items[i];
    if (StringField(plugin, "name") != kPluginName) continue;
    // As the apiserver does: the first entry for the plugin wins, and an embedded
    // configuration wins over path.
    if (const codec::Node* inline_config = plugin.Find("configuration")) {
      std::string where =
          std::string(source) + ": plugins[" + std::to_string(i) + "].configuration";
      return ParsePodSecurityConfiguration(*inline_config, where);
    }
    std::string path_text = StringField(plugin, "path");
    if (path_text.empty()) return DefaultPodSecurityConfiguration();
    std::filesystem::path path(path_text);
    if (path.is_relative()) path = base_dir / path;
    auto contents = ReadFile(path, "PodSecurity configuration");
    if (!contents) {
      return std::unexpected(std::move(contents.error())
                                 .Wrap(std::string(source) + ": plugins[" + std::to_string(i) +
                                       "].path"));
    }
    auto plugin_doc = ParseDocument(*contents, path.string());
    if (!plugin_doc) return std::unexpected(plugin_doc.error());
    // An empty file means "no configuration", which upstream's loader turns into defaults.
    if (plugin_doc->IsNull()) return DefaultPodSecurityConfiguration();
    return ParsePodSecurityConfiguration(std::move(*plugin_doc), path.string());
  }
  return DefaultPodSecurityConfiguration();
}

Result<PodSecurityConfiguration> LoadAdmissionConfiguration(const std::filesystem::path& path) {
  auto contents = ReadFile(path, "admission control configuration");
  if (!contents) return std::unexpected(contents.error());
  return ParseAdmissionConfiguration(*contents, path.string(), path.parent_path());
}

}  // namespace podlimits::admission::psa
