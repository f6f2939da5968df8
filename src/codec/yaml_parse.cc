// YAML text → Node, through libyaml's event parser.
//
// libyaml is the C library go-yaml v2 (and so kubectl, through sigs.k8s.io/yaml) was translated
// from: its scanner and parser accept and reject the same text, with the same problem strings
// ("mapping values are not allowed in this context", "invalid leading UTF-8 octet", ...).
// Building the tree from its events keeps the rest of go-yaml's decoding in one place: plain
// scalar resolution (yaml_resolve.cc), anchors and aliases with a bound on their expansion,
// merge keys (`<<`), and strict mode's duplicate-key error.
//
// What one parse may cost, in memory (yaml_codec.h states the bounds as a caller sees them):
// the tree the text itself describes is linear in the text (at most a Node or a Member per 2
// bytes of flow text); everything beyond that comes from copies, because the value tree has no
// sharing. An anchored node is copied once when it is defined (kept for the aliases that may
// follow) and once for every alias of it, and an alias key copies its key's text. Those copies
// are what an attacker multiplies, so they are what is bounded, in bytes.
#include <yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "codec/yaml_codec.h"
#include "codec/yaml_resolve.h"
#include "field/field.h"

namespace podlimits::codec {
namespace {

// Aliases make a YAML tree a DAG whose expansion can be exponential ("billion laughs"); these
// bounds keep the expansion, and the nesting, finite. The depth counts nested mappings and
// sequences, also those an alias brings in: the tree is walked recursively (here, by strict
// decoding, by the encoders), so an alias of a deep tree placed deep must not make it deeper.
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr std::size_t kMaxYamlDepth = 256;

// The bytes anchor and alias copies may allocate in one stream: kCopyBytesPerInputByte for
// every byte of the text, and never less than kCopyBytesFloor.
//
// go-yaml (decode.go's allowedAliasRatio, which kubectl meets through sigs.k8s.io/yaml) bounds
// the share of *decode operations* that come from aliases: 99% below 400,000 of them, tapering
// to 10% at 4,000,000, checked once more than 100 aliased and 1,000 decoded nodes were seen.
// Counting nodes is blind to their size: one alias of a 50 KB scalar is one decode and 50 KB,
// and a 62 KB annotation aliasing such a scalar 4,000 times is 200 MB. So the bound here is on
// what the copies really allocate (Node and Member objects and the heap of their strings) and
// relative to the text's length, which is what a caller can bound (a request body's limit).
// 64 bytes per input byte: one copy of any document fits (the densest text, `{a,a,...}`, makes
// a 120-byte Member per 2 bytes, 60 a byte), so an anchor on a whole document is never refused,
// and aliases add at most a third to the memory the text's own tree may take (180 a byte at
// worst, measured: docs/serve.md). The floor lets small documents use anchors freely (256 KiB
// is some 2,900 copied nodes); a ulimits annotation's bomb of 62 KB stops at 4 MB.
constexpr std::size_t kCopyBytesPerInputByte = 64;
constexpr std::size_t kCopyBytesFloor = 256 * 1024;

// go-yaml's words for aliases beyond its ratio (and here for copies beyond their bytes).
constexpr std::string_view kExcessiveAliasing = "document contains excessive aliasing";

constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";

struct ParseFailure {
  std::string message;
  std::uint32_t line = 0;
  bool json_conversion = false;  // failed turning YAML into JSON, not reading YAML
};

std::uint32_t LineOf(const yaml_mark_t& mark) {
  return static_cast<std::uint32_t>(mark.line + 1);
}

std::uint32_t LineAtOffset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// The heap a copy of `s` allocates: nothing while it fits std::string's own buffer.
std::size_t StringHeapBytes(const std::string& s) {
  static const std::size_t inline_chars = std::string().capacity();
  return s.size() > inline_chars ? s.size() + 1 : 0;
}

// What a copy of a node costs.
struct Extent {
  std::size_t nodes = 1;
  std::size_t bytes = 0;   // the Node itself and everything it owns, as a copy allocates them
  std::size_t height = 0;  // nested mappings and sequences: 0 for a scalar, 1 for `[]`
};

Extent Measure(const Node& n) {
  Extent e{1, sizeof(Node) + StringHeapBytes(n.scalar), n.IsArray() || n.IsObject() ? 1u : 0u};
  for (const auto& item : n.items) {
    Extent child = Measure(item);
    e.nodes += child.nodes;
    e.bytes += child.bytes;
    e.height = std::max(e.height, child.height + 1);
  }
  for (const auto& m : n.members) {
    Extent child = Measure(m.value);
    e.nodes += child.nodes;
    e.bytes += child.bytes + (sizeof(Member) - sizeof(Node)) + StringHeapBytes(m.key);
    e.height = std::max(e.height, child.height + 1);
  }
  return e;
}

// Whether a scalar's text goes through plain-scalar resolution: untagged plain scalars, and
// scalars tagged with a core-schema type other than !!str.
bool ResolvesAsPlain(const yaml_event_t& event) {
  const char* tag = reinterpret_cast<const char*>(event.data.scalar.tag);
  if (!tag) return event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  std::string_view t(tag);
  if (!t.starts_with(kYamlTagPrefix)) return false;
  std::string_view type = t.substr(kYamlTagPrefix.size());
  return type == "int" || type == "float" || type == "bool" || type == "null";
}

// A scalar's node: plain scalars resolve as go-yaml v2 resolves them; quoted and block scalars
// are strings; an explicit core-schema tag (`!!int 7`) resolves the text as that type would.
Node ScalarNode(const yaml_event_t& event) {
  std::string_view text(reinterpret_cast<const char*>(event.data.scalar.value),
                        event.data.scalar.length);
  if (ResolvesAsPlain(event)) return ResolvePlainScalar(text);
  return Node::String(std::string(text));
}

// A mapping's members by key: where each key first is. Merges look keys up, once for every
// member they bring and every key written after them, so a search through the members made a
// merge of a big mapping quadratic (a 489 KB text took 1.7 s, 3 MB a minute). Holds hashes and
// positions, not copies of the keys; a member's key does not stay at one address while the
// members grow.
class KeyIndex {
 public:
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

  explicit KeyIndex(const std::vector<Member>& members) {
    for (std::size_t i = 0; i < members.size(); ++i) Add(members, i);
  }

  std::size_t Find(const std::vector<Member>& members, std::string_view key) const {
    auto [first, last] = at_.equal_range(std::hash<std::string_view>{}(key));
    for (auto it = first; it != last; ++it) {
      if (SameKey(members[it->second].key, key)) return it->second;
    }
    return kAbsent;
  }

  // members[i] was appended: indexed unless its key is there already (a repeated key stays for
  // strict decoding to report; lookups find the first).
  void Add(const std::vector<Member>& members, std::size_t i) {
    if (Find(members, members[i].key) == kAbsent) {
      at_.emplace(std::hash<std::string_view>{}(members[i].key), i);
    }
  }

 private:
  std::unordered_multimap<std::size_t, std::size_t> at_;
};

// One open mapping or sequence.
struct Frame {
  Node node;
  std::string anchor;
  // Mappings: the key waiting for its value, and the keys that came from a merge (`<<`), which
  // a key written in the mapping itself overrides.
  bool have_key = false;
  bool key_is_merge = false;
  std::string key;
  std::set<std::string, std::less<>> merged_keys;
  // From the mapping's first merge on (a mapping without one is never searched).
  std::optional<KeyIndex> keys;
};

class YamlTreeBuilder {
 public:
  explicit YamlTreeBuilder(std::string_view text)
      : text_(text), copy_budget_(std::max(kCopyBytesFloor, kCopyBytesPerInputByte * text.size())) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~YamlTreeBuilder() { yaml_parser_delete(&parser_); }
  YamlTreeBuilder(const YamlTreeBuilder&) = delete;
  YamlTreeBuilder& operator=(const YamlTreeBuilder&) = delete;

  std::expected<std::vector<YamlDocument>, SyntaxError> Run() {
    while (true) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return std::unexpected(ParserError());
      std::unique_ptr<yaml_event_t, decltype(&yaml_event_delete)> owned(&event,
                                                                        yaml_event_delete);
      if (event.type == YAML_STREAM_END_EVENT) break;
      if (auto failed = Handle(event); !failed.message.empty()) {
        return std::unexpected(
            SyntaxError{std::move(failed.message), failed.line, failed.json_conversion});
      }
    }
    return std::move(docs_);
  }

 private:
  // Returns an empty failure on success.
  ParseFailure Handle(const yaml_event_t& event) {
    switch (event.type) {
      case YAML_DOCUMENT_START_EVENT:
        anchors_.clear();
        nodes_ = 0;
        return {};
      case YAML_SCALAR_EVENT: {
        Node n = ScalarNode(event);
        n.line = LineOf(event.start_mark);
        if (!stack_.empty() && stack_.back().node.IsObject() && !stack_.back().have_key) {
          return ScalarKey(stack_.back(), event, n);
        }
        if (IsYamlSpecialFloat(n)) return UnsupportedValue(n);
        std::string anchor = Anchor(event.data.scalar.anchor);
        std::optional<std::string> key_text;
        if (!anchor.empty()) key_text = KeyText(event);
        return Complete(std::move(n), std::move(anchor), std::move(key_text));
      }
      case YAML_ALIAS_EVENT:
        return Alias(event);
      case YAML_MAPPING_START_EVENT:
        return Open(Node::Object(), event, Anchor(event.data.mapping_start.anchor));
      case YAML_SEQUENCE_START_EVENT:
        return Open(Node::Array(), event, Anchor(event.data.sequence_start.anchor));
      case YAML_MAPPING_END_EVENT:
      case YAML_SEQUENCE_END_EVENT: {
        Frame frame = std::move(stack_.back());
        stack_.pop_back();
        open_anchors_.erase(frame.anchor);
        return Complete(std::move(frame.node), std::move(frame.anchor));
      }
      default:  // stream start, document end
        return {};
    }
  }

  static std::string Anchor(const yaml_char_t* anchor) {
    return anchor ? std::string(reinterpret_cast<const char*>(anchor)) : std::string();
  }

  // `<<` as a plain (or !!merge-tagged) key is YAML 1.1's merge key, which go-yaml v2 honours.
  static bool IsMergeKey(const yaml_event_t& event, const Node& n) {
    if (n.kind != Node::Kind::kString || n.scalar != "<<") return false;
    const char* tag = reinterpret_cast<const char*>(event.data.scalar.tag);
    if (tag) return std::string_view(tag) == "tag:yaml.org,2002:merge";
    return event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
  }

  ParseFailure Open(Node node, const yaml_event_t& event, std::string anchor) {
    if (stack_.size() >= kMaxYamlDepth) {
      return {"document nested too deeply", LineOf(event.start_mark)};
    }
    if (++nodes_ > kMaxNodes) return {std::string(kExcessiveAliasing), LineOf(event.start_mark)};
    node.line = LineOf(event.start_mark);
    if (!anchor.empty()) open_anchors_.insert(anchor);
    Frame& frame = stack_.emplace_back();
    frame.node = std::move(node);
    frame.anchor = std::move(anchor);
    return {};
  }

  ParseFailure Alias(const yaml_event_t& event) {
    std::string name = Anchor(event.data.alias.anchor);
    std::uint32_t line = LineOf(event.start_mark);
    auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      // go-yaml v2's messages for the two ways an alias can have nothing to point at.
      if (open_anchors_.contains(name)) {
        return {fmt::format("anchor '{}' value contains itself", name), line};
      }
      return {fmt::format("unknown anchor '{}' referenced", name), line};
    }
    const Anchored& anchored = it->second;
    nodes_ += anchored.extent.nodes;
    if (nodes_ > kMaxNodes) return {std::string(kExcessiveAliasing), line};
    if (!stack_.empty() && stack_.back().node.IsObject() && !stack_.back().have_key) {
      if (anchored.key_text && !Charge(StringHeapBytes(*anchored.key_text))) {
        return {std::string(kExcessiveAliasing), line};
      }
      return AliasKey(stack_.back(), anchored.key_text, line);
    }
    // Checked before the copy is made: how deep it would reach, and what it would cost. The
    // depth's words are go-yaml's for text beyond its maximum depth (go-yaml has no bound of
    // its own on aliases' depth); Open's older words for the text's own nesting stay.
    if (stack_.size() + anchored.extent.height > kMaxYamlDepth) {
      return {fmt::format("exceeded max depth of {}", kMaxYamlDepth), line};
    }
    if (!Charge(anchored.extent.bytes)) return {std::string(kExcessiveAliasing), line};
    if (IsYamlSpecialFloat(anchored.node)) return UnsupportedValue(anchored.node);
    Node copy = anchored.node;
    return Complete(std::move(copy), std::string());
  }

  // Adds `bytes` of copies to the stream's; false once they are more than it may make.
  bool Charge(std::size_t bytes) {
    copied_bytes_ += bytes;
    return copied_bytes_ <= copy_budget_;
  }

  // Keeps a copy of an anchored node for the aliases that may follow.
  ParseFailure Define(std::string anchor, const Node& n, std::optional<std::string> key_text) {
    Extent extent = Measure(n);
    std::size_t bytes = extent.bytes + (key_text ? StringHeapBytes(*key_text) : 0);
    if (!Charge(bytes)) return {std::string(kExcessiveAliasing), n.line};
    anchors_[std::move(anchor)] = Anchored{n, extent, std::move(key_text)};
    return {};
  }

  // A node is finished: it becomes an array item, a mapping value, or a document.
  ParseFailure Complete(Node n, std::string anchor, std::optional<std::string> key_text = {}) {
    if (!anchor.empty()) {
      auto failed = Define(std::move(anchor), n, std::move(key_text));
      if (!failed.message.empty()) return failed;
    }
    if (stack_.empty()) {
      std::uint32_t line = n.line;
      docs_.push_back(YamlDocument{std::move(n), line});
      return {};
    }
    Frame& top = stack_.back();
    if (top.node.kind == Node::Kind::kArray) {
      top.node.items.push_back(std::move(n));
      return {};
    }
    if (!top.have_key) return {"mapping key is not a string", n.line, true};
    top.have_key = false;
    if (top.key_is_merge) return Merge(top, std::move(n));
    if (auto merged = top.merged_keys.find(top.key); merged != top.merged_keys.end()) {
      // The mapping's own key overrides the merged one (which the merge indexed).
      top.merged_keys.erase(merged);
      top.node.members[top.keys->Find(top.node.members, top.key)].value = std::move(n);
      return {};
    }
    // A repeated key stays: strict decoding reports it with its field path, as it does for
    // JSON, and Go's last-one-wins applies when it is tolerated.
    top.node.members.push_back(Member{std::move(top.key), std::move(n)});
    if (top.keys) top.keys->Add(top.node.members, top.node.members.size() - 1);
    return {};
  }

  // A scalar in key position becomes the JSON object key sigs.k8s.io/yaml would write.
  ParseFailure ScalarKey(Frame& top, const yaml_event_t& event, const Node& n) {
    std::optional<std::string> key = KeyText(event);
    if (!key) return {"mapping key is null", n.line, true};
    std::string anchor = Anchor(event.data.scalar.anchor);
    if (!anchor.empty()) {
      if (auto failed = Define(std::move(anchor), n, key); !failed.message.empty()) return failed;
    }
    top.have_key = true;
    top.key_is_merge = IsMergeKey(event, n);
    top.key = std::move(*key);
    return {};
  }

  static std::optional<std::string> KeyText(const yaml_event_t& event) {
    std::string_view text(reinterpret_cast<const char*>(event.data.scalar.value),
                          event.data.scalar.length);
    if (ResolvesAsPlain(event)) return ResolvePlainKey(text);
    return std::string(text);
  }

  // sigs.k8s.io/yaml hands YAML's infinities and NaN to encoding/json, which refuses them.
  static ParseFailure UnsupportedValue(const Node& n) {
    return {fmt::format("json: unsupported value: {}", n.scalar), n.line, true};
  }

  ParseFailure AliasKey(Frame& top, const std::optional<std::string>& key, std::uint32_t line) {
    if (!key) return {"mapping key is not a string", line, true};
    top.have_key = true;
    top.key_is_merge = false;
    top.key = *key;
    return {};
  }

  // `<<: *base` or `<<: [*a, *b]`: the mappings' keys join this mapping unless it sets them
  // itself; in a list, earlier mappings win. The value is this merge's own (an alias's copy was
  // made, and paid for, already): its members move, they are not copied again.
  ParseFailure Merge(Frame& top, Node value) {
    if (!top.keys) top.keys.emplace(top.node.members);
    auto merge_one = [&](Node& source) -> ParseFailure {
      if (source.kind != Node::Kind::kObject) {
        return {"map merge requires map or sequence of maps as the value", source.line};
      }
      for (auto& m : source.members) {
        if (top.keys->Find(top.node.members, m.key) != KeyIndex::kAbsent) continue;
        top.merged_keys.insert(m.key);
        top.node.members.push_back(std::move(m));
        top.keys->Add(top.node.members, top.node.members.size() - 1);
      }
      return {};
    };
    if (value.kind == Node::Kind::kArray) {
      for (auto& item : value.items) {
        if (auto failed = merge_one(item); !failed.message.empty()) return failed;
      }
      return {};
    }
    return merge_one(value);
  }

  SyntaxError ParserError() const {
    std::string problem = parser_.problem ? parser_.problem : "unknown problem parsing YAML content";
    if (parser_.error == YAML_READER_ERROR) {
      return SyntaxError{std::move(problem), LineAtOffset(text_, parser_.problem_offset)};
    }
    if (parser_.error == YAML_MEMORY_ERROR) return SyntaxError{"out of memory", 0};
    return SyntaxError{std::move(problem), LineOf(parser_.problem_mark)};
  }

  struct Anchored {
    Node node;
    Extent extent;
    // The JSON key the anchored scalar makes when an alias of it is a mapping key; nullopt for
    // collections and null.
    std::optional<std::string> key_text;
  };

  std::string_view text_;
  yaml_parser_t parser_;
  std::vector<YamlDocument> docs_;
  std::vector<Frame> stack_;
  std::map<std::string, Anchored, std::less<>> anchors_;
  std::set<std::string, std::less<>> open_anchors_;
  std::size_t nodes_ = 0;  // per document
  // Per stream: every document of it is kept, so their copies add up.
  std::size_t copy_budget_;
  std::size_t copied_bytes_ = 0;
};

}  // namespace

std::expected<std::vector<YamlDocument>, SyntaxError> ParseYamlStream(std::string_view text) {
  YamlTreeBuilder builder(text);
  return builder.Run();
}

std::string DescribeYamlError(const SyntaxError& error) {
  if (error.json_conversion) {
    if (error.line == 0) return error.message;
    return fmt::format("{} (line {})", error.message, error.line);
  }
  if (error.line == 0) return "yaml: " + error.message;
  return fmt::format("yaml: line {}: {}", error.line, error.message);
}

}  // namespace podlimits::codec
