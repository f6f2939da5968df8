#include "api/json_codec.h"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace podlimits::api {
namespace {

// Limits that keep hostile input from exhausting the stack or memory.
constexpr std::size_t kMaxDepth = 256;

// Builds Nodes in place: every SAX event fills the slot it belongs to (a new array item, the
// value of the last key, or a new document) instead of building a temporary and moving it.
class TreeBuilder {
 public:
  explicit TreeBuilder(std::vector<Node>& out) : out_(out) {}

  bool Null() {
    Slot();
    return true;
  }
  bool Bool(bool b) {
    Node& n = Slot();
    n.kind = Node::Kind::kBool;
    n.scalar = b ? "true" : "false";
    return true;
  }
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* s, rapidjson::SizeType len, bool) {
    Node& n = Slot();
    n.kind = Node::Kind::kNumber;
    n.scalar.assign(s, len);
    return true;
  }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    Node& n = Slot();
    n.kind = Node::Kind::kString;
    n.scalar.assign(s, len);
    return true;
  }
  bool StartObject() {
    if (stack_.size() >= kMaxDepth) return false;
    Node& n = Slot();
    n.kind = Node::Kind::kObject;
    // Most Kubernetes objects have a handful of fields; reserving avoids regrowth copies.
    n.members.reserve(8);
    stack_.push_back(&n);
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    Member& m = stack_.back()->members.emplace_back();
    m.key.assign(s, len);
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    stack_.pop_back();
    return true;
  }
  bool StartArray() {
    if (stack_.size() >= kMaxDepth) return false;
    Node& n = Slot();
    n.kind = Node::Kind::kArray;
    stack_.push_back(&n);
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    stack_.pop_back();
    return true;
  }

 private:
  // Pointers on the stack stay valid: a container only grows while it is the innermost open
  // one, and its own ancestors are not touched meanwhile.
  Node& Slot() {
    if (stack_.empty()) return out_.emplace_back();
    Node* parent = stack_.back();
    if (parent->kind == Node::Kind::kArray) return parent->items.emplace_back();
    return parent->members.back().value;
  }

  std::vector<Node>& out_;
  std::vector<Node*> stack_;
};

std::uint32_t LineAt(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

template <typename Writer>
void Write(const Node& n, Writer& w) {
  switch (n.kind) {
    case Node::Kind::kNull:
      w.Null();
      break;
    case Node::Kind::kBool:
      w.Bool(n.scalar == "true");
      break;
    case Node::Kind::kNumber:
      w.RawValue(n.scalar.data(), n.scalar.size(), rapidjson::kNumberType);
      break;
    case Node::Kind::kString:
      w.String(n.scalar.data(), static_cast<rapidjson::SizeType>(n.scalar.size()));
      break;
    case Node::Kind::kArray:
      w.StartArray();
      for (const auto& item : n.items) Write(item, w);
      w.EndArray();
      break;
    case Node::Kind::kObject:
      w.StartObject();
      for (const auto& m : n.members) {
        w.Key(m.key.data(), static_cast<rapidjson::SizeType>(m.key.size()));
        Write(m.value, w);
      }
      w.EndObject();
      break;
  }
}

}  // namespace

std::expected<std::vector<Node>, SyntaxError> ParseJsonStream(std::string_view text) {
  std::vector<Node> docs;
  rapidjson::MemoryStream ms(text.data(), text.size());
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseStopWhenDoneFlag |
                              rapidjson::kParseValidateEncodingFlag;
  while (true) {
    // Skip whitespace between documents.
    while (ms.Peek() == ' ' || ms.Peek() == '\n' || ms.Peek() == '\r' || ms.Peek() == '\t')
      ms.Take();
    if (ms.Peek() == '\0' && ms.Tell() >= text.size()) break;
    TreeBuilder builder(docs);
    std::size_t start = ms.Tell();
    rapidjson::ParseResult ok = reader.Parse<kFlags>(ms, builder);
    if (!ok) {
      std::size_t at = ok.Offset();
      std::string message = rapidjson::GetParseError_En(ok.Code());
      if (ok.Code() == rapidjson::kParseErrorTermination) message = "nesting too deep";
      (void)start;
      return std::unexpected(SyntaxError{std::move(message), LineAt(text, at)});
    }
  }
  return docs;
}

std::string EncodeJson(const Node& node, int indent) {
  rapidjson::StringBuffer buf;
  if (indent <= 0) {
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    Write(node, w);
  } else {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', static_cast<unsigned>(indent));
    w.SetFormatOptions(rapidjson::kFormatDefault);
    Write(node, w);
  }
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace podlimits::api
