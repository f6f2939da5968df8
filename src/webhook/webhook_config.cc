#include "webhook/webhook_config.h"

#include <fmt/format.h>

#include "admission/psa_config.h"
#include "api/decode.h"
#include "api/schema.h"
#include "base/fs.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "webhook/cluster_limit_range.h"

namespace podlimits::webhook {

using codec::Node;

namespace {

}  // namespace

Result<WebhookSettings> ParseWebhookConfig(
    std::string_view text, std::string_view source, const std::filesystem::path& base_dir) {
  WebhookSettings settings;
  auto docs = codec::ParseYamlStream(text);
  if (!docs) return Failure(fmt::format("{}: {}", source, codec::DescribeYamlError(docs.error())));
  std::optional<admission::psa::PodSecurityConfiguration> psa;
  for (auto& doc : *docs) {
    if (doc.node.IsNull()) continue;
    const std::string where = fmt::format("{}:{}", source, doc.line);
    const std::string kind = codec::StringOf(doc.node.Find("kind"));
    const std::string api_version = codec::StringOf(doc.node.Find("apiVersion"));
    if (kind == "Namespace" || kind == "LimitRange") {
      auto decoded = api::DecodeObject(api::Schema::Objects(), kind, doc.node, source, doc.line,
                                       api::FieldValidation::kStrict);
      if (auto* err = std::get_if<api::DecodeError>(&decoded)) {
        return Failure(fmt::format("{}: {}", where, err->message));
      }
      Node object = std::move(std::get<api::DecodedObject>(decoded).tree);
      if (kind == "LimitRange") {
        // The spelling a cluster can hold (cluster_limit_range.h) means the same here.
        if (field::ErrorList errs = TranslateClusterLimitRange(object); !errs.empty()) {
          return Failure(fmt::format("{}: LimitRange: {}", where, field::Aggregate(errs)));
        }
      }
      const std::string name = codec::StringOf(object.FindPath({"metadata", "name"}));
      if (kind == "Namespace") {
        if (name.empty()) return Failure(where + ": a Namespace needs metadata.name");
        settings.policy.namespaces[name] = std::move(object);
      } else {
        std::string ns = codec::StringOf(object.FindPath({"metadata", "namespace"}));
        if (ns.empty()) ns = "default";
        object.Ensure("metadata").Set("namespace", Node::String(ns));
        settings.policy.limit_ranges[ns].push_back(std::move(object));
      }
    } else if (kind == "AdmissionConfiguration") {
      auto loaded = admission::psa::ParseAdmissionConfiguration(codec::EncodeJson(doc.node, 0),
                                                                where, base_dir);
      if (!loaded) return std::unexpected(loaded.error());
      psa = std::move(*loaded);
    } else if (kind == "WebhookConfiguration" && api_version == "podlimits.dev/v1alpha1") {
      std::optional<RuntimeClasses> classes;
      for (const auto& m : doc.node.members) {
        if (m.key == "kind" || m.key == "apiVersion") continue;
        if (m.key == "runtimeClassName" && m.value.IsString() && !m.value.scalar.empty()) {
          classes = RuntimeClasses::All(m.value.scalar);
          continue;
        }
        if (m.key != "runtimeClassNames" || !m.value.IsObject()) {
          return Failure(fmt::format(
              "{}: WebhookConfiguration: unknown or empty field {} (it has runtimeClassName and "
              "runtimeClassNames)",
              where, field::GoQuote(m.key)));
        }
      }
      if (classes) settings.policy.runtime_classes = *classes;
      // The per-need names, over runtimeClassName's.
      if (const Node* names = doc.node.Find("runtimeClassNames")) {
        for (const auto& n : names->members) {
          std::string* slot = n.key == "ulimits"           ? &settings.policy.runtime_classes.ulimits
                              : n.key == "podPIDLimit"     ? &settings.policy.runtime_classes.pod_pid_limit
                              : n.key == "writableCgroups" ? &settings.policy.runtime_classes.writable_cgroups
                                                           : nullptr;
          if (slot == nullptr || !n.value.IsString() || n.value.scalar.empty()) {
            return Failure(fmt::format(
                "{}: WebhookConfiguration: runtimeClassNames.{}: unknown or empty (it has "
                "ulimits, podPIDLimit and writableCgroups)",
                where, n.key));
          }
          *slot = n.value.scalar;
        }
      }
    } else {
      return Failure(fmt::format(
          "{}: {} {} is not something the webhook reads (Namespace, LimitRange, "
          "AdmissionConfiguration, podlimits.dev/v1alpha1 WebhookConfiguration)",
          where, api_version, kind));
    }
  }
  if (psa) {
    settings.pod_security = std::make_unique<admission::psa::PodSecurity>(std::move(*psa));
    settings.policy.chain.pod_security = settings.pod_security.get();
  }
  // The objects must be what the cluster could hold: an invalid LimitRange (or Namespace)
  // would otherwise be skipped by admission and its limits silently not applied.
  std::vector<api::DecodeResult> stream;
  for (const auto& [name, ns] : settings.policy.namespaces) {
    stream.push_back(api::DecodeObject(api::Schema::Objects(), "Namespace", ns, source, 0,
                                       api::FieldValidation::kStrict));
  }
  for (const auto& [ns, ranges] : settings.policy.limit_ranges) {
    for (const Node& lr : ranges) {
      stream.push_back(api::DecodeObject(api::Schema::Objects(), "LimitRange", lr, source, 0,
                                         api::FieldValidation::kStrict));
    }
  }
  for (const admission::Outcome& o : admission::RunChain(std::move(stream), settings.policy.chain)) {
    if (!o.admitted) {
      return Failure(fmt::format("{}: {}", source, o.message));
    }
  }
  return settings;
}

Result<WebhookSettings> LoadWebhookConfig(const std::filesystem::path& path) {
  if (path.empty()) return WebhookSettings{};
  auto text = ReadSmallFile(path, 4 << 20);
  if (!text) return Failure(text.error().Message());
  return ParseWebhookConfig(*text, path.string(), path.parent_path());
}

}  // namespace podlimits::webhook
