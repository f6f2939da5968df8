#include "api/yaml_codec.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <unordered_set>

#include "api/field.h"
#include "api/yaml_resolve.h"

namespace podlimits::api {
namespace {

// Aliases make a YAML tree a DAG whose expansion can be exponential ("billion laughs"); these
// bounds keep the expansion, and the recursion, finite.
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr std::size_t kMaxDepth = 256;

struct ConvertError {
  std::string message;
  std::uint32_t line;
};

class Converter {
 public:
  std::expected<Node, ConvertError> Convert(const YAML::Node& y, std::size_t depth) {
    if (++count_ > kMaxNodes) return Fail(y, "document expands to too many nodes");
    if (depth > kMaxDepth) return Fail(y, "document nested too deeply");
    std::uint32_t line = y.Mark().is_null() ? 0 : static_cast<std::uint32_t>(y.Mark().line + 1);
    switch (y.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: {
        Node n;
        n.line = line;
        n.yaml_plain = true;
        return n;
      }
      case YAML::NodeType::Scalar: {
        Node n = Scalar(y);
        n.line = line;
        return n;
      }
      case YAML::NodeType::Sequence: {
        Node n = Node::Array();
        n.line = line;
        n.items.reserve(y.size());
        for (const auto& item : y) {
          auto child = Convert(item, depth + 1);
          if (!child) return std::unexpected(child.error());
          n.items.push_back(std::move(*child));
        }
        return n;
      }
      case YAML::NodeType::Map: {
        Node n = Node::Object();
        n.line = line;
        n.members.reserve(y.size());
        std::unordered_set<std::string> seen;
        for (const auto& kv : y) {
          if (!kv.first.IsScalar() && !kv.first.IsNull()) {
            return Fail(kv.first, "mapping key is not a string");
          }
          std::string key = kv.first.IsNull() ? "null" : kv.first.Scalar();
          if (!seen.insert(key).second) {
            return Fail(kv.first, fmt::format("key {} already set in map", field::GoQuote(key)));
          }
          auto child = Convert(kv.second, depth + 1);
          if (!child) return std::unexpected(child.error());
          n.members.push_back(Member{std::move(key), std::move(*child)});
        }
        return n;
      }
    }
    return Node{};
  }

 private:
  static Node Scalar(const YAML::Node& y) {
    const std::string& tag = y.Tag();
    const std::string& text = y.Scalar();
    if (tag == "?") return ResolvePlainScalar(text);
    if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
        tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null") {
      Node n = ResolvePlainScalar(text);
      n.yaml_plain = false;
      return n;
    }
    // "!" (quoted), "tag:yaml.org,2002:str" and any other tag: a string.
    return Node::String(text);
  }

  std::unexpected<ConvertError> Fail(const YAML::Node& y, std::string message) {
    std::uint32_t line = y.Mark().is_null() ? 0 : static_cast<std::uint32_t>(y.Mark().line + 1);
    return std::unexpected(ConvertError{std::move(message), line});
  }

  std::size_t count_ = 0;
};

// Which scalars can be written plain. Conservative: anything with a YAML indicator in a risky
// place is quoted.
bool SafePlain(std::string_view s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
  static constexpr std::string_view kLeadingIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (kLeadingIndicators.find(s.front()) != std::string_view::npos) {
    // "-x" style values (e.g. command-line flags) are common and read back fine when the
    // indicator is followed by a non-space; keep them plain like go-yaml does.
    if (!((s.front() == '-') && s.size() > 1 && s[1] != ' ' && s[1] != '-')) return false;
  }
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos)
    return false;
  if (s.starts_with("---") || s.starts_with("...")) return false;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
    if (c == '\t') return false;
  }
  for (std::string_view flow : {",", "[", "]", "{", "}"}) {
    if (s.find(flow) != std::string_view::npos) return false;
  }
  return ResolvePlainScalar(s).kind == Node::Kind::kString;
}

std::string DoubleQuoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f)
          out += fmt::format("\\x{:02X}", c);
        else
          out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string ScalarText(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kNull:
      return "null";
    case Node::Kind::kBool:
    case Node::Kind::kNumber:
      return n.scalar;
    case Node::Kind::kString:
      return SafePlain(n.scalar) ? n.scalar : DoubleQuoted(n.scalar);
    default:
      return "";
  }
}

bool IsEmptyCollection(const Node& n) {
  return (n.kind == Node::Kind::kObject && n.members.empty()) ||
         (n.kind == Node::Kind::kArray && n.items.empty());
}

std::string KeyText(std::string_view key) {
  return SafePlain(key) ? std::string(key) : DoubleQuoted(key);
}

void Emit(const Node& n, int indent, std::string& out);

// Writes `value` after "key:" or "- " has been written on the current line.
void EmitValue(const Node& value, int indent, std::string& out, bool in_sequence_item) {
  if (value.kind == Node::Kind::kObject && !value.members.empty()) {
    out += '\n';
    Emit(value, indent + 2, out);
  } else if (value.kind == Node::Kind::kArray && !value.items.empty()) {
    out += '\n';
    // kubectl (go-yaml v2) does not indent a sequence under a mapping key.
    Emit(value, in_sequence_item ? indent + 2 : indent, out);
  } else if (IsEmptyCollection(value)) {
    out += value.kind == Node::Kind::kObject ? " {}\n" : " []\n";
  } else {
    out += ' ';
    out += ScalarText(value);
    out += '\n';
  }
}

void Emit(const Node& n, int indent, std::string& out) {
  std::string pad(static_cast<std::size_t>(indent), ' ');
  if (n.kind == Node::Kind::kObject) {
    for (const auto& m : n.members) {
      out += pad;
      out += KeyText(m.key);
      out += ':';
      EmitValue(m.value, indent, out, false);
    }
  } else if (n.kind == Node::Kind::kArray) {
    for (const auto& item : n.items) {
      out += pad;
      out += '-';
      if (item.kind == Node::Kind::kObject && !item.members.empty()) {
        // The first member shares the "- " line; the rest align under it.
        std::string nested;
        Emit(item, indent + 2, nested);
        out += ' ';
        out.append(nested, static_cast<std::size_t>(indent + 2), std::string::npos);
      } else {
        EmitValue(item, indent, out, true);
      }
    }
  } else {
    out += pad;
    out += IsEmptyCollection(n) ? (n.kind == Node::Kind::kObject ? "{}" : "[]") : ScalarText(n);
    out += '\n';
  }
}

}  // namespace

std::expected<std::vector<YamlDocument>, SyntaxError> ParseYamlStream(std::string_view text) {
  std::vector<YamlDocument> docs;
  std::vector<YAML::Node> raw;
  try {
    raw = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return std::unexpected(
        SyntaxError{e.msg, e.mark.is_null() ? 0 : static_cast<std::uint32_t>(e.mark.line + 1)});
  }
  docs.reserve(raw.size());
  for (const auto& y : raw) {
    Converter c;
    auto node = c.Convert(y, 0);
    if (!node) return std::unexpected(SyntaxError{node.error().message, node.error().line});
    std::uint32_t line = y.Mark().is_null() ? 0 : static_cast<std::uint32_t>(y.Mark().line + 1);
    docs.push_back(YamlDocument{std::move(*node), line});
  }
  return docs;
}

std::string EncodeYaml(const Node& node) {
  std::string out;
  Emit(node, 0, out);
  return out;
}

bool PlainScalarNeedsQuotes(std::string_view s) {
  return !SafePlain(s);
}

}  // namespace podlimits::api
