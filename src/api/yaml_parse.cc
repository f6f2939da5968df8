// YAML text → Node, through libyaml's event parser.
//
// libyaml is the C library go-yaml v2 (and so kubectl, through sigs.k8s.io/yaml) was translated
// from: its scanner and parser accept and reject the same text, with the same problem strings
// ("mapping values are not allowed in this context", "invalid leading UTF-8 octet", ...).
// Building the tree from its events keeps the rest of go-yaml's decoding in one place: plain
// scalar resolution (yaml_resolve.cc), anchors and aliases with a bound on their expansion,
// merge keys (`<<`), and strict mode's duplicate-key error.
#include <yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "api/field.h"
#include "api/yaml_codec.h"
#include "api/yaml_resolve.h"

namespace podlimits::api {
namespace {

// Aliases make a YAML tree a DAG whose expansion can be exponential ("billion laughs"); these
// bounds keep the expansion, and the nesting, finite.
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr std::size_t kMaxDepth = 256;

constexpr std::string_view kYamlTagPrefix = "tag:yaml.org,2002:";

struct ParseFailure {
  std::string message;
  std::uint32_t line;
};

std::uint32_t LineOf(const yaml_mark_t& mark) {
  return static_cast<std::uint32_t>(mark.line + 1);
}

std::uint32_t LineAtOffset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

std::size_t CountNodes(const Node& n) {
  std::size_t count = 1;
  for (const auto& item : n.items) count += CountNodes(item);
  for (const auto& m : n.members) count += CountNodes(m.value);
  return count;
}

// A scalar's node: plain scalars resolve as go-yaml v2 resolves them; quoted and block scalars
// are strings; an explicit core-schema tag (`!!int 7`) resolves the text as that type would.
Node ScalarNode(const yaml_event_t& event) {
  std::string_view text(reinterpret_cast<const char*>(event.data.scalar.value),
                        event.data.scalar.length);
  const char* tag = reinterpret_cast<const char*>(event.data.scalar.tag);
  if (!tag) {
    if (event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE) return ResolvePlainScalar(text);
    return Node::String(std::string(text));
  }
  std::string_view t(tag);
  if (t.starts_with(kYamlTagPrefix)) {
    std::string_view type = t.substr(kYamlTagPrefix.size());
    if (type == "int" || type == "float" || type == "bool" || type == "null") {
      Node n = ResolvePlainScalar(text);
      n.yaml_plain = false;
      return n;
    }
  }
  return Node::String(std::string(text));
}

// The text a scalar stands for as a mapping key, as sigs.k8s.io/yaml turns go-yaml's decoded
// keys into JSON object keys: null → "null", booleans → "true"/"false", numbers as resolved.
std::string KeyTextOf(const Node& key) {
  if (key.kind == Node::Kind::kNull) return "null";
  return key.scalar;
}

// One open mapping or sequence.
struct Frame {
  Node node;
  std::string anchor;
  // Mappings: the key waiting for its value, and which keys were written explicitly (merged
  // keys may be overridden by them; explicit keys may not repeat).
  bool have_key = false;
  bool key_is_merge = false;
  std::string key;
  std::set<std::string, std::less<>> explicit_keys;
};

class TreeBuilder {
 public:
  explicit TreeBuilder(std::string_view text) : text_(text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~TreeBuilder() { yaml_parser_delete(&parser_); }
  TreeBuilder(const TreeBuilder&) = delete;
  TreeBuilder& operator=(const TreeBuilder&) = delete;

  std::expected<std::vector<YamlDocument>, SyntaxError> Run() {
    while (true) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return std::unexpected(ParserError());
      std::unique_ptr<yaml_event_t, decltype(&yaml_event_delete)> owned(&event,
                                                                        yaml_event_delete);
      if (event.type == YAML_STREAM_END_EVENT) break;
      if (auto failed = Handle(event); !failed.message.empty()) {
        return std::unexpected(SyntaxError{std::move(failed.message), failed.line});
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
        bool merge_key = IsMergeKey(event, n);
        return Complete(std::move(n), Anchor(event.data.scalar.anchor), merge_key);
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
        return Complete(std::move(frame.node), std::move(frame.anchor), false);
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
    if (stack_.size() >= kMaxDepth) {
      return {"document nested too deeply", LineOf(event.start_mark)};
    }
    if (++nodes_ > kMaxNodes) return {"document contains excessive aliasing", LineOf(event.start_mark)};
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
    nodes_ += it->second.size;
    if (nodes_ > kMaxNodes) return {"document contains excessive aliasing", line};
    Node copy = it->second.node;
    return Complete(std::move(copy), std::string(), false);
  }

  // A node is finished: it becomes an array item, a key, a value, or a document.
  ParseFailure Complete(Node n, std::string anchor, bool is_merge_key) {
    if (!anchor.empty()) anchors_[anchor] = Anchored{n, CountNodes(n)};
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
    if (!top.have_key) return Key(top, n, is_merge_key);
    top.have_key = false;
    if (top.key_is_merge) return Merge(top, n);
    // A key written after a merge replaces the merged value.
    for (auto& m : top.node.members) {
      if (m.key == top.key) {
        m.value = std::move(n);
        return {};
      }
    }
    top.node.members.push_back(Member{std::move(top.key), std::move(n)});
    return {};
  }

  ParseFailure Key(Frame& top, const Node& key, bool is_merge_key) {
    if (key.kind == Node::Kind::kArray || key.kind == Node::Kind::kObject) {
      return {"mapping key is not a string", key.line};
    }
    top.have_key = true;
    top.key_is_merge = is_merge_key;
    if (is_merge_key) return {};
    top.key = KeyTextOf(key);
    if (!top.explicit_keys.insert(top.key).second) {
      // go-yaml v2's strict mode (sigs.k8s.io/yaml's UnmarshalStrict), as kubectl reports it.
      return {fmt::format("key {} already set in map", field::GoQuote(top.key)), key.line};
    }
    return {};
  }

  // `<<: *base` or `<<: [*a, *b]`: the mappings' keys join this mapping unless it sets them
  // itself; in a list, earlier mappings win.
  ParseFailure Merge(Frame& top, const Node& value) {
    auto merge_one = [&](const Node& source) -> ParseFailure {
      if (source.kind != Node::Kind::kObject) {
        return {"map merge requires map or sequence of maps as the value", source.line};
      }
      for (const auto& m : source.members) {
        bool present = std::any_of(top.node.members.begin(), top.node.members.end(),
                                   [&](const Member& have) { return have.key == m.key; });
        if (!present) top.node.members.push_back(m);
      }
      return {};
    };
    if (value.kind == Node::Kind::kArray) {
      for (const auto& item : value.items) {
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
    std::size_t size = 0;
  };

  std::string_view text_;
  yaml_parser_t parser_;
  std::vector<YamlDocument> docs_;
  std::vector<Frame> stack_;
  std::map<std::string, Anchored, std::less<>> anchors_;
  std::set<std::string, std::less<>> open_anchors_;
  std::size_t nodes_ = 0;
};

}  // namespace

std::expected<std::vector<YamlDocument>, SyntaxError> ParseYamlStream(std::string_view text) {
  TreeBuilder builder(text);
  return builder.Run();
}

std::string DescribeYamlError(const SyntaxError& error) {
  if (error.line == 0) return "yaml: " + error.message;
  return fmt::format("yaml: line {}: {}", error.line, error.message);
}

}  // namespace podlimits::api
