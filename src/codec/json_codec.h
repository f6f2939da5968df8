// JSON text ⇄ Node, through RapidJSON (SAX in, Writer out).
#pragma once

#include <cstdio>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codec/node.h"

namespace podlimits::codec {

struct SyntaxError {
  std::string message;  // what the parser said
  std::uint32_t line = 0;
  // YAML only: the text was YAML, but not YAML that has a JSON form (e.g. `.inf`), the step
  // where sigs.k8s.io/yaml fails with encoding/json's message rather than a "yaml:" one.
  bool json_conversion = false;
};

// Parses a stream of one or more JSON values (whitespace-separated, as kubectl accepts).
// Bounds: 256 levels of nesting ("nesting too deep"), and with `max_values` (0: none) at most
// that many values, objects' and arrays' own included ("more than N values"): the tree is
// linear in the text, but at 88 bytes a value a caller that holds its memory to a bound (the
// webhook, unauthenticated) needs the count too. Measured, the heap one parse takes is at most 133 bytes per byte of text
// (`[0,0,...]`: an 88-byte Node per 2 bytes, in a scratch vector that holds three times that
// while it doubles), 74 for `[[],...]` or `["",...]`, 9 for ordinary manifests (docs/serve.md,
// "Decoding limits").
std::expected<std::vector<Node>, SyntaxError> ParseJsonStream(std::string_view text,
                                                              std::size_t max_values = 0);

// Whether every byte is below 0x80: such text cannot be invalid UTF-8, so a parser need not
// validate its encoding (a tenth of a pod's decode when done byte by byte).
bool IsAscii(std::string_view text);

// Serialises a node. indent 0 writes compact JSON; otherwise pretty-printed with that many
// spaces (kubectl's -o json uses 4).
std::string EncodeJson(const Node& node, int indent = 4);

// Compact JSON with every object's members sorted by name: equal trees give equal text whatever
// order their members came in (a PUT body's, the store's). For comparing, not for output.
std::string EncodeJsonSorted(const Node& node);

// Writes one JSON value to a FILE while it is produced, with the same bytes as EncodeJson with
// `indent` (> 0) spaces, so a large document (a List of thousands of objects) is neither held
// whole as a string nor assembled as one tree first. The calls must form one JSON value, as
// with RapidJSON's writers. Output is buffered; Flush (or the destructor) hands it to the FILE.
class PrettyJsonWriter {
 public:
  PrettyJsonWriter(std::FILE* out, int indent);
  ~PrettyJsonWriter();
  PrettyJsonWriter(const PrettyJsonWriter&) = delete;
  PrettyJsonWriter& operator=(const PrettyJsonWriter&) = delete;

  void StartObject();
  void Key(std::string_view key);
  void EndObject();
  void StartArray();
  void EndArray();
  void Value(const Node& node);
  void Flush();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace podlimits::codec
