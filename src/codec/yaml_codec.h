// YAML text ⇄ Node: parsed with libyaml (yaml_parse.cc), emitted in kubectl's layout
// (yaml_emit.cc).
//
// Plain scalars are resolved the way sigs.k8s.io/yaml (go-yaml v2, YAML 1.1) resolves them when
// kubectl turns YAML into JSON: null/~/empty → null, true/false/yes/no/on/off → bool, integers
// (decimal, 0x, 0o, 0b, legacy 0-octal, `_` separators) and floats → number; everything else,
// and every quoted scalar, is a string. Duplicate mapping keys are an error, as in go-yaml's
// strict mode; anchors, aliases (bounded) and `<<` merge keys work as in go-yaml.
//
// Bounds, so that a caller that bounds the text bounds the memory (docs/serve.md, "Decoding
// limits"):
//   - what anchors and aliases copy (an anchored node's kept copy, every alias's copy, an alias
//     key's text) may allocate at most 64 bytes per byte of the stream, or 256 KiB when that is
//     more: beyond it, "document contains excessive aliasing" (go-yaml's words for its own,
//     node-counting, alias ratio). One copy of any document fits.
//   - at most 1,000,000 nodes a document, aliases' included ("document contains excessive
//     aliasing"), and at most 256 nested mappings and sequences: "document nested too deeply"
//     where the text nests them, "exceeded max depth of 256" (go-yaml's words) where an alias
//     of a deep node would.
// Measured worst cases of the heap one parse takes, per byte of text (bytes requested, for
// 1 MiB of text): 180 for the densest text (`{a,a,...}`: a 120-byte Member per 2 bytes, in a
// vector that holds three times that while it doubles), 120 for a dense text under one anchor,
// 96 for aliases stopped at their bound; at most some 250 in all.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "codec/json_codec.h"
#include "codec/node.h"

namespace podlimits::codec {

// One document of a YAML stream.
struct YamlDocument {
  Node node;
  std::uint32_t line = 0;  // first line of the document
};

// Parses a multi-document stream. A syntax error anywhere fails the whole stream, as it does
// for kubectl (the stream cannot be split reliably past it).
// The error's message is libyaml's (go-yaml's) problem text; its line is 1-based in `text`, 0
// when unknown.
std::expected<std::vector<YamlDocument>, SyntaxError> ParseYamlStream(std::string_view text);

// "yaml: line N: PROBLEM" (or "yaml: PROBLEM" without a line), as go-yaml words its errors.
std::string DescribeYamlError(const SyntaxError& error);

// Emits one document in block style, in the layout `kubectl get -o yaml` uses.
std::string EncodeYaml(const Node& node);

// True when a plain scalar with this text would not read back as the same string (so the
// emitter must quote it).
bool PlainScalarNeedsQuotes(std::string_view s);

}  // namespace podlimits::codec
