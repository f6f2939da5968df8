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

constexpr std::string_view kEnforcementRuntimeClass = "RuntimeClass";
constexpr std::string_view kEnforcementNri = "NRI";

// podlimits.dev/v1alpha1 WebhookConfiguration into `policy`: nodeEnforcement, then the
// RuntimeClass names (runtimeClassName for every need, runtimeClassNames' per need over it).
// The caller wraps the error with the file and line.
Result<void> ReadWebhookConfiguration(const Node& doc, ReviewPolicy& policy) {
  const Node* one_name = nullptr;
  const Node* names = nullptr;
  const Node* enforcement = nullptr;
  for (const auto& m : doc.members) {
    if (m.key == "kind" || m.key == "apiVersion") continue;
    const Node** slot = m.key == "runtimeClassName"    ? &one_name
                        : m.key == "runtimeClassNames" ? &names
                        : m.key == "nodeEnforcement"   ? &enforcement
                                                       : nullptr;
    const bool string_field = slot != &names;
    if (slot == nullptr || (string_field && (!m.value.IsString() || m.value.scalar.empty())) ||
        (!string_field && !m.value.IsObject())) {
      return Failure(fmt::format(
          "unknown or empty field {} (it has nodeEnforcement, runtimeClassName and "
          "runtimeClassNames)",
          field::GoQuote(m.key)));
    }
    *slot = &m.value;
  }
  if (enforcement != nullptr) {
    const std::string& value = enforcement->scalar;
    if (value == kEnforcementNri) {
      policy.node_enforcement = NodeEnforcement::kNri;
    } else if (value == kEnforcementRuntimeClass) {
      policy.node_enforcement = NodeEnforcement::kRuntimeClass;
    } else {
      return Failure(field::NotSupported(field::Path("nodeEnforcement"), value,
                                         {std::string(kEnforcementNri),
                                          std::string(kEnforcementRuntimeClass)})
                         .String());
    }
  }
  if (policy.node_enforcement == NodeEnforcement::kNri && (one_name || names)) {
    // A class the mutation would never set: the file says two things, and one is wrong.
    return Failure(
        field::Forbidden(field::Path(one_name ? "runtimeClassName" : "runtimeClassNames"),
                         "may not be set with nodeEnforcement NRI (the NRI plugin enforces on "
                         "every node; no RuntimeClass is set or required)")
            .String());
  }
  if (one_name) policy.runtime_classes = RuntimeClasses::All(one_name->scalar);
  if (names == nullptr) return {};
  for (const auto& n : names->members) {
    std::string* slot = n.key == "ulimits"           ? &policy.runtime_classes.ulimits
                        : n.key == "podPIDLimit"     ? &policy.runtime_classes.pod_pid_limit
                        : n.key == "writableCgroups" ? &policy.runtime_classes.writable_cgroups
                                                     : nullptr;
    if (slot == nullptr || !n.value.IsString() || n.value.scalar.empty()) {
      return Failure(fmt::format(
          "runtimeClassNames.{}: unknown or empty (it has ulimits, podPIDLimit and "
          "writableCgroups)",
          n.key));
    }
    *slot = n.value.scalar;
  }
  return {};
}

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
      if (auto read = ReadWebhookConfiguration(doc.node, settings.policy); !read) {
        return std::unexpected(std::move(read.error()).Wrap(where + ": WebhookConfiguration"));
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
