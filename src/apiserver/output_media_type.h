// Which encoding a response is written in, chosen from the request's Accept header as
// k8s.io/apiserver's negotiation.NegotiateOutputMediaType chooses it (handlers/negotiation):
//
//  1. No Accept header: the server's first media type, JSON.
//  2. Otherwise the header's clauses as github.com/munnerz/goautoneg's ParseAccept orders them
//     (by q, higher first, and a clause with a concrete type or subtype before a `*` one, the
//     header's order kept between equals), and in that order the first clause that one of the
//     server's media types, application/json, application/yaml, application/vnd.kubernetes.
//     protobuf (in that order), satisfies: the same type and subtype, `type/*` or `*/*` (so
//     `*/*` and `application/*` are JSON). q is only an order: a clause with q=0 still matches.
//  3. The clause's parameters must be acceptable to the endpoint, else the clause is skipped:
//     `as`/`g`/`v` ask for a conversion, allowed for meta.k8s.io's v1 or v1beta1 Table in JSON
//     or YAML only (and only where the resource has a table), and for PartialObjectMetadata and
//     PartialObjectMetadataList; `stream` must be `watch` and the media type one that streams
//     (JSON, protobuf); `sv` must be the meta group's version, v1. Without a conversion, the
//     media type must be one of the endpoint's standard ones (a kind without a protobuf form
//     serves JSON and YAML only, as a CustomResource does).
//  4. Nothing acceptable: 406 NotAcceptable, `only the following media types are accepted:
//     application/json, application/yaml, application/vnd.kubernetes.protobuf`; for a watch,
//     a negotiated media type without a stream form (YAML) is 406 with the stream list,
//     `application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch`.
//     The 406 body is JSON whatever was asked (responsewriters.ErrorNegotiated writes raw JSON
//     when negotiation itself failed).
//
// Go's sort.Sort orders a slice of up to 12 clauses by insertion, which keeps equals in order;
// longer headers are ordered the same way here (upstream's pdqsort may reorder equals there).
#pragma once

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listwatch/api_errors.h"

namespace podlimits::apiserver {

// One clause of an Accept header, as goautoneg parses it.
struct AcceptClause {
  std::string type;     // "application", "*"
  std::string subtype;  // "json", "*"
  double q = 1.0;
  std::map<std::string, std::string> params;  // a repeated key keeps its last value
  bool operator==(const AcceptClause&) const = default;
};

// The clauses in the order negotiation tries them. Malformed ones (no subtype, `a/b/c`) are
// dropped; a parameter without `=` is ignored; an unparsable q is 0.
std::vector<AcceptClause> ParseAccept(std::string_view header);

enum class MediaType { kJson, kYaml, kProtobuf };

inline constexpr std::string_view kJsonMediaType = "application/json";
inline constexpr std::string_view kYamlMediaType = "application/yaml";
inline constexpr std::string_view kProtobufMediaType = "application/vnd.kubernetes.protobuf";

std::string_view MediaTypeName(MediaType type);

struct OutputMediaType {
  MediaType type = MediaType::kJson;
  // The conversion asked for (as=Table;g=meta.k8s.io;v=v1), when one was.
  std::string convert_kind;   // "Table", "PartialObjectMetadata", "PartialObjectMetadataList"
  std::string convert_group;  // "meta.k8s.io"
  std::string convert_version;
  bool pretty = false;
  bool operator==(const OutputMediaType&) const = default;
};

// What one endpoint serves (the apiserver's RequestScope as an EndpointRestrictions).
struct EndpointMediaTypes {
  bool protobuf = true;  // its kinds have a protobuf form
  bool table = true;     // it converts to a Table
  // Conversions (as=...) are acceptable at all: not for an error, which the apiserver negotiates
  // with its default restrictions (responsewriters.ErrorNegotiated).
  bool transforms = true;
};

std::expected<OutputMediaType, ApiError> NegotiateOutputMediaType(std::string_view accept,
                                                                  const EndpointMediaTypes& endpoint);
// NegotiateOutputMediaTypeStream: the negotiated type must have a stream form; any failure is
// the 406 that names the stream types.
std::expected<OutputMediaType, ApiError> NegotiateOutputMediaTypeStream(
    std::string_view accept, const EndpointMediaTypes& endpoint);
// A watch, as the apiserver's list handler serves one: the plain negotiation first (its 406
// names the plain types), then the stream one.
std::expected<OutputMediaType, ApiError> NegotiateWatchMediaType(std::string_view accept,
                                                                 const EndpointMediaTypes& endpoint);

}  // namespace podlimits::apiserver
