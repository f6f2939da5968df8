#include "kubelet/config/node_config.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <variant>

#include "base/fs.h"
#include "api/decode.h"
#include "base/error.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "field/field.h"
#include "kubelet/config/node_config_documents.h"
#include "kubelet/config/reserved_resources.h"

namespace podlimits::kubelet {
namespace {

struct Document {
  codec::Node tree;
  std::uint32_t line = 0;
};

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

Result<std::vector<Document>> SplitDocuments(std::string_view text, std::string_view source) {
  std::vector<Document> docs;
  if (LooksLikeJson(text)) {
    auto parsed = codec::ParseJsonStream(text);
    if (!parsed) {
      return Failure(fmt::format("{}: invalid JSON at line {}: {}", source, parsed.error().line,
                                 parsed.error().message));
    }
    for (auto& n : *parsed) {
      std::uint32_t line = n.line ? n.line : 1;
      docs.push_back({std::move(n), line});
    }
    return docs;
  }
  auto parsed = codec::ParseYamlStream(text);
  if (!parsed) {
    return Failure(fmt::format("{}: {}", source, codec::DescribeYamlError(parsed.error())));
  }
  for (auto& d : *parsed) {
    if (!d.node.IsNull()) docs.push_back({std::move(d.node), d.line});
  }
  return docs;
}

std::string StringField(const codec::Node& tree, std::string_view key) {
  const codec::Node* n = tree.Find(key);
  return n && n->IsString() ? n->scalar : std::string();
}

std::string Where(std::string_view source, std::uint32_t line) {
  return line ? fmt::format("{}:{}", source, line) : std::string(source);
}

// Strict decoding; the decoder's message already names the bad field.
Result<codec::Node> Decode(const api::Schema& schema, std::string_view kind, Document doc,
                         std::string_view source) {
  auto decoded = api::DecodeObject(schema, kind, std::move(doc.tree), source, doc.line,
                                   api::FieldValidation::kStrict);
  if (auto* err = std::get_if<api::DecodeError>(&decoded)) {
    return Failure(fmt::format("{}: {}", Where(source, doc.line), err->message));
  }
  return std::move(std::get<api::DecodedObject>(decoded).tree);
}

}  // namespace

std::string_view OciRuntimeName(OciRuntime r) {
  return r == OciRuntime::kRunc ? "runc" : "crun";
}

bool NodeConfig::EnforcesPodsAllocatable() const {
  for (const auto& v : enforce_node_allocatable) {
    if (v == kEnforcePods) return true;
  }
  return false;
}

resource::Quantity NodeConfig::KubeReservedPids() const {
  auto it = kube_reserved.find(std::string(kReservedPid));
  return it == kube_reserved.end() ? resource::Quantity() : it->second;
}

resource::Quantity NodeConfig::SystemReservedPids() const {
  auto it = system_reserved.find(std::string(kReservedPid));
  return it == system_reserved.end() ? resource::Quantity() : it->second;
}

std::optional<EvictionThreshold> NodeConfig::PidAvailableHard() const {
  for (const auto& t : eviction_hard) {
    if (t.signal == kSignalPIDAvailable) return t;
  }
  return std::nullopt;
}

NodeConfig DefaultNodeConfig() {
  return NodeConfig{};
}

Result<NodeConfig> ParseNodeConfig(std::string_view text, std::string_view source) {
  auto docs = SplitDocuments(text, source);
  if (!docs) return std::unexpected(docs.error());

  NodeConfig config = DefaultNodeConfig();
  config.source = std::string(source);
  bool seen_kubelet = false, seen_node = false;
  std::vector<std::string> problems;
  for (auto& doc : *docs) {
    if (!doc.tree.IsObject()) {
      return Failure(fmt::format("{}: a node config document must be an object, got {}",
                                 Where(source, doc.line), codec::GoJsonKindName(doc.tree)));
    }
    std::string kind = StringField(doc.tree, "kind");
    std::string api_version = StringField(doc.tree, "apiVersion");
    const std::uint32_t line = doc.line;
    if (kind == "KubeletConfiguration" && api_version == kKubeletConfigAPIVersion) {
      if (seen_kubelet) {
        return Failure(fmt::format("{}: more than one KubeletConfiguration", Where(source, line)));
      }
      seen_kubelet = true;
      auto tree = Decode(api::Schema::Config(), kind, std::move(doc), source);
      if (!tree) return std::unexpected(tree.error());
      auto errs = config_internal::ApplyKubeletConfiguration(*tree, config);
      for (auto& e : errs) problems.push_back(std::move(e));
    } else if (kind == "NodeConfiguration" && api_version == kNodeConfigAPIVersion) {
      if (seen_node) {
        return Failure(fmt::format("{}: more than one NodeConfiguration", Where(source, line)));
      }
      seen_node = true;
      auto tree = Decode(config_internal::NodeConfigurationSchema(), kind, std::move(doc), source);
      if (!tree) return std::unexpected(tree.error());
      auto errs = config_internal::ApplyNodeConfiguration(*tree, config);
      for (auto& e : errs) problems.push_back(std::move(e));
    } else {
      return Failure(fmt::format(
          "{}: unsupported kind {} in version {}: a node config file holds a KubeletConfiguration "
          "({}) and/or a NodeConfiguration ({})",
          Where(source, line), field::GoQuote(kind), field::GoQuote(api_version),
          kKubeletConfigAPIVersion, kNodeConfigAPIVersion));
    }
  }
  if (!problems.empty()) {
    return Failure(fmt::format("{}: {}", source, field::Aggregate(problems)));
  }
  return config;
}

Result<NodeConfig> LoadNodeConfig(const std::filesystem::path& path) {
  auto text = ReadWholeFile(path);
  if (!text) {
    return Failure(fmt::format("unable to read node config {}: {}", field::GoQuote(path.string()),
                               std::strerror(text.error().errno_value)));
  }
  return ParseNodeConfig(*text, path.string());
}

EvictionSettings EvictionSettingsOf(const NodeConfig& config) {
  EvictionSettings s;
  s.thresholds = config.eviction_hard;
  s.thresholds.insert(s.thresholds.end(), config.eviction_soft.begin(), config.eviction_soft.end());
  s.pressure_transition_period = config.eviction_pressure_transition_period;
  s.max_pod_grace_period = config.eviction_max_pod_grace_period;
  return s;
}

}  // namespace podlimits::kubelet
