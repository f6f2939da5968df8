#include "apiserver/output_media_type.h"

#include <cstdlib>
#include <utility>

namespace podlimits::apiserver {
namespace {

// Go's strings.TrimFunc with goautoneg's cutset: spaces only (not tabs).
std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// goautoneg's nextSplitElement: the text before the first `sep` and the rest after it.
std::pair<std::string_view, std::string_view> Split(std::string_view s, char sep) {
  const auto at = s.find(sep);
  if (at == std::string_view::npos) return {s, {}};
  return {s.substr(0, at), s.substr(at + 1)};
}

// goautoneg's acceptSlice.Less (not a strict order; reproduced as it is).
bool Before(const AcceptClause& a, const AcceptClause& b) {
  if (a.q > b.q) return true;
  if (a.type != "*" && b.type == "*") return true;
  if (a.subtype != "*" && b.subtype == "*") return true;
  return false;
}

// strconv.ParseFloat(s, 32): 0 for what does not parse.
double ParseQ(std::string_view s) {
  const std::string text(s);
  if (text.empty()) return 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return 0;
  return static_cast<double>(static_cast<float>(v));
}

constexpr MediaType kServed[] = {MediaType::kJson, MediaType::kYaml, MediaType::kProtobuf};

bool Streams(MediaType t) { return t != MediaType::kYaml; }

std::string_view SubtypeOf(MediaType t) {
  switch (t) {
    case MediaType::kJson: return "json";
    case MediaType::kYaml: return "yaml";
    case MediaType::kProtobuf: return "vnd.kubernetes.protobuf";
  }
  return "";
}

ApiError NotAcceptable(bool stream) {
  ApiError e;
  e.code = 406;
  e.reason = "NotAcceptable";
  e.message = stream ? "only the following media types are accepted: application/json;stream=watch, "
                       "application/vnd.kubernetes.protobuf;stream=watch"
                     : "only the following media types are accepted: application/json, "
                       "application/yaml, application/vnd.kubernetes.protobuf";
  return e;
}

// acceptMediaTypeOptions: the clause's parameters against the endpoint; nullopt skips it.
std::optional<OutputMediaType> Accepts(const AcceptClause& clause, MediaType served,
                                       const EndpointMediaTypes& endpoint) {
  OutputMediaType out;
  out.type = served;
  bool convert = false;
  for (const auto& [key, value] : clause.params) {
    if (key == "as") {
      convert = true;
      out.convert_kind = value;
    } else if (key == "g") {
      convert = true;
      out.convert_group = value;
    } else if (key == "v") {
      convert = true;
      out.convert_version = value;
    } else if (key == "stream") {
      if (!value.empty() && (!Streams(served) || value != "watch")) return std::nullopt;
    } else if (key == "sv") {
      if (!value.empty() && value != "v1") return std::nullopt;
    } else if (key == "pretty") {
      out.pretty = value == "1";
    }
  }
  if (!convert) {
    if (served == MediaType::kProtobuf && !endpoint.protobuf) return std::nullopt;
    return out;
  }
  if (!endpoint.transforms) return std::nullopt;
  // RequestScope.AllowsMediaTypeTransform.
  const bool meta = out.convert_group == "meta.k8s.io" &&
                    (out.convert_version == "v1" || out.convert_version == "v1beta1");
  if (!meta) return std::nullopt;
  if (out.convert_kind == "Table") {
    if (!endpoint.table || served == MediaType::kProtobuf) return std::nullopt;
    return out;
  }
  if (out.convert_kind == "PartialObjectMetadata" ||
      out.convert_kind == "PartialObjectMetadataList") {
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::vector<AcceptClause> ParseAccept(std::string_view header) {
  std::vector<AcceptClause> clauses;
  std::string_view remaining = header;
  while (!remaining.empty()) {
    auto [part, rest] = Split(remaining, ',');
    remaining = rest;
    part = TrimSpaces(part);
    AcceptClause clause;
    auto [media, params] = Split(part, ';');
    auto [type, subtype_rest] = Split(media, '/');
    clause.type = std::string(TrimSpaces(type));
    if (subtype_rest.empty()) {
      if (clause.type != "*") continue;
      clause.subtype = "*";
    } else {
      auto [subtype, extra] = Split(subtype_rest, '/');
      if (!extra.empty()) continue;
      clause.subtype = std::string(TrimSpaces(subtype));
    }
    while (!params.empty()) {
      auto [param, more] = Split(params, ';');
      params = more;
      auto [key, value_rest] = Split(param, '=');
      if (value_rest.empty()) continue;
      auto [value, extra] = Split(value_rest, '=');
      if (!extra.empty()) continue;
      const std::string_view token = TrimSpaces(key);
      if (token == "q") {
        clause.q = ParseQ(value);
      } else {
        clause.params[std::string(token)] = std::string(TrimSpaces(value));
      }
    }
    clauses.push_back(std::move(clause));
  }
  // sort.Sort on up to 12 elements: insertion sort, swapping while Less(j, j-1).
  for (std::size_t i = 1; i < clauses.size(); ++i) {
    for (std::size_t j = i; j > 0 && Before(clauses[j], clauses[j - 1]); --j) {
      std::swap(clauses[j], clauses[j - 1]);
    }
  }
  return clauses;
}

std::string_view MediaTypeName(MediaType type) {
  switch (type) {
    case MediaType::kJson: return kJsonMediaType;
    case MediaType::kYaml: return kYamlMediaType;
    case MediaType::kProtobuf: return kProtobufMediaType;
  }
  return kJsonMediaType;
}

std::expected<OutputMediaType, ApiError> NegotiateOutputMediaType(std::string_view accept,
                                                                  const EndpointMediaTypes& endpoint) {
  if (accept.empty()) return OutputMediaType{};
  for (const AcceptClause& clause : ParseAccept(accept)) {
    for (MediaType served : kServed) {
      const bool matches =
          (clause.type == "application" && clause.subtype == SubtypeOf(served)) ||
          (clause.type == "application" && clause.subtype == "*") ||
          (clause.type == "*" && clause.subtype == "*");
      if (!matches) continue;
      if (auto out = Accepts(clause, served, endpoint)) return *out;
    }
  }
  return std::unexpected(NotAcceptable(false));
}

std::expected<OutputMediaType, ApiError> NegotiateOutputMediaTypeStream(
    std::string_view accept, const EndpointMediaTypes& endpoint) {
  auto out = NegotiateOutputMediaType(accept, endpoint);
  if (!out || !Streams(out->type)) return std::unexpected(NotAcceptable(true));
  return out;
}

std::expected<OutputMediaType, ApiError> NegotiateWatchMediaType(std::string_view accept,
                                                                 const EndpointMediaTypes& endpoint) {
  // The list handler negotiates first (a failure names the plain types), then the watch's own
  // serveWatchHandler (a type without a stream form names the stream types).
  if (auto plain = NegotiateOutputMediaType(accept, endpoint); !plain) return plain;
  return NegotiateOutputMediaTypeStream(accept, endpoint);
}

}  // namespace podlimits::apiserver
