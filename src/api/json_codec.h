// JSON text ⇄ Node, through RapidJSON (SAX in, Writer out).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"

namespace podlimits::api {

struct SyntaxError {
  std::string message;  // what the parser said
  std::uint32_t line = 0;
};

// Parses a stream of one or more JSON values (whitespace-separated, as kubectl accepts).
std::expected<std::vector<Node>, SyntaxError> ParseJsonStream(std::string_view text);

// Serialises a node. indent 0 writes compact JSON; otherwise pretty-printed with that many
// spaces (kubectl's -o json uses 4).
std::string EncodeJson(const Node& node, int indent = 4);

}  // namespace podlimits::api
