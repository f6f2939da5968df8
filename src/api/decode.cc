#include "api/decode.h"

#include <fmt/format.h>

#include <algorithm>

#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "field/field.h"

namespace podlimits::api {
namespace {

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

const std::vector<std::string>& DefaultKinds() {
  static const std::vector<std::string> kinds = {
      "Pod",       "LimitRange", "Namespace",  "PersistentVolumeClaim", "ConfigMap",
      "Secret",    "Deployment", "ReplicaSet", "Job", "CronJob"};
  return kinds;
}

std::string StringField(const codec::Node& tree, std::string_view key) {
  const codec::Node* n = tree.Find(key);
  return n && n->IsString() ? n->scalar : std::string();
}

DecodeError ClientError(std::string message, std::string_view source, std::uint32_t line) {
  return DecodeError{false, "", std::move(message), std::string(source), line};
}

void DecodeDocument(codec::Node tree, std::string_view source, std::uint32_t line,
                    const DecodeOptions& options, std::vector<DecodeResult>& out, int depth) {
  if (tree.IsNull()) return;  // empty document in a stream
  if (!tree.IsObject()) {
    out.push_back(ClientError(
        fmt::format("error validating {}: error validating data: invalid object to validate",
                    field::GoQuote(source)),
        source, line));
    return;
  }
  std::string kind = StringField(tree, "kind");
  std::string api_version = StringField(tree, "apiVersion");
  if (kind.empty()) {
    out.push_back(ClientError(
        fmt::format("unable to decode {}: Object 'Kind' is missing", field::GoQuote(source)),
        source, line));
    return;
  }
  // kubectl flattens List (and any *List) client-side and sends each item on its own.
  if (depth == 0 && (kind == "List" || kind.ends_with("List"))) {
    const codec::Node* items = tree.Find("items");
    if (items && !items->IsArray() && !items->IsNull()) {
      out.push_back(ClientError(fmt::format("unable to decode {}: items of a {} must be a list",
                                            field::GoQuote(source), kind),
                                source, line));
      return;
    }
    if (!items) return;
    codec::Node owned = std::move(*tree.Find("items"));
    for (auto& item : owned.items) {
      std::uint32_t item_line = item.line ? item.line : line;
      DecodeDocument(std::move(item), source, item_line, options, out, depth + 1);
    }
    return;
  }
  const auto& kinds = options.kinds.empty() ? DefaultKinds() : options.kinds;
  bool known = std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  // A kind is served in its schema type's group version only (apps/v1 Deployment, v1 Pod).
  const TypeDef* root = known ? Schema::Objects().Root(kind) : nullptr;
  if (!known || root == nullptr || api_version != root->ApiVersion()) {
    out.push_back(ClientError(
        fmt::format("resource mapping not found for name: {} namespace: {} from {}: no matches "
                    "for kind {} in version {}",
                    field::GoQuote(RawName(tree)),
                    field::GoQuote(tree.FindPath({"metadata", "namespace"})
                                       ? tree.FindPath({"metadata", "namespace"})->scalar
                                       : ""),
                    field::GoQuote(source), field::GoQuote(kind), field::GoQuote(api_version)),
        source, line));
    return;
  }
  out.push_back(DecodeObject(Schema::Objects(), kind, std::move(tree), source, line,
                             options.field_validation));
}

}  // namespace

std::string RawName(const codec::Node& tree) {
  const codec::Node* n = tree.FindPath({"metadata", "name"});
  return n && n->IsString() ? n->scalar : std::string();
}

DecodeResult DecodeObject(const Schema& schema, std::string_view kind, codec::Node tree,
                          std::string_view source, std::uint32_t line, FieldValidation mode) {
  const TypeDef* type = schema.Root(kind);
  if (!type) {
    return ClientError(fmt::format("no schema for kind {}", field::GoQuote(kind)), source, line);
  }
  StrictDecodeResult r = StrictDecode(tree, *type, mode);
  std::string prefix = fmt::format("{} in version {} cannot be handled as a {}: ", kind,
                                   field::GoQuote(StringField(tree, "apiVersion")), kind);
  if (!r.fatal.empty()) {
    std::string message = prefix + r.fatal;
    if (r.fatal_line) message += fmt::format(" (line {})", r.fatal_line);
    return DecodeError{true, "BadRequest", std::move(message), std::string(source), line};
  }
  DecodedObject obj{std::string(kind), std::move(tree), std::string(source), line, {}};
  if (!r.strict_errors.empty()) {
    if (mode == FieldValidation::kStrict) {
      std::string joined;
      for (const auto& e : r.strict_errors) {
        if (!joined.empty()) joined += ", ";
        joined += e;
      }
      return DecodeError{true, "BadRequest", prefix + "strict decoding error: " + joined,
                         std::string(source), line};
    }
    obj.warnings = std::move(r.strict_errors);
  }
  return obj;
}

std::vector<DecodeResult> DecodeManifests(std::string_view source, std::string_view text,
                                          const DecodeOptions& options) {
  std::vector<DecodeResult> out;
  if (LooksLikeJson(text)) {
    auto docs = codec::ParseJsonStream(text);
    if (!docs) {
      out.push_back(ClientError(fmt::format("error parsing {}: invalid JSON at line {}: {}", source,
                                            docs.error().line, docs.error().message),
                                source, docs.error().line));
      return out;
    }
    for (auto& d : *docs) DecodeDocument(std::move(d), source, 1, options, out, 0);
    return out;
  }
  auto docs = codec::ParseYamlStream(text);
  if (!docs) {
    out.push_back(ClientError(
        fmt::format("error parsing {}: error converting YAML to JSON: {}", source,
                    codec::DescribeYamlError(docs.error())),
        source, docs.error().line));
    return out;
  }
  for (auto& d : *docs) DecodeDocument(std::move(d.node), source, d.line, options, out, 0);
  return out;
}

}  // namespace podlimits::api
