// Node → YAML text, in the block layout `kubectl get -o yaml` uses (go-yaml v2's emitter).
//
// Every string is written so that the parser (yaml_parse.cc) reads back exactly the same
// string: plain when that is safe, otherwise double-quoted with escapes for every character a
// YAML reader would not keep as it is (controls, line separators, the byte order mark).
#include <fmt/format.h>

#include <optional>

#include "codec/yaml_codec.h"
#include "codec/yaml_resolve.h"

namespace podlimits::codec {
namespace {

// Decodes the UTF-8 sequence at s[i], advancing i; nullopt for malformed input (which neither
// parser lets into a tree, but the emitter must not assume it).
std::optional<char32_t> NextCodePoint(std::string_view s, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char lead = byte(i);
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  std::size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return std::nullopt;
  char32_t cp = lead & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += len;
  return cp;
}

// Characters a plain or double-quoted scalar may hold unescaped: YAML's printable set minus
// the characters a reader treats as line breaks (NEL, LS, PS) and the byte order mark.
bool KeptAsIs(char32_t c) {
  if (c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xFEFF) return false;
  return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

bool AllKeptAsIs(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto c = NextCodePoint(s, i);
    if (!c || !KeptAsIs(*c)) return false;
  }
  return true;
}

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
  // `<<` is YAML 1.1's merge key when plain.
  if (s == "<<") return false;
  if (!AllKeptAsIs(s)) return false;
  for (std::string_view flow : {",", "[", "]", "{", "}"}) {
    if (s.find(flow) != std::string_view::npos) return false;
  }
  return ResolvePlainScalar(s).kind == Node::Kind::kString;
}

std::string DoubleQuoted(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    std::size_t start = i;
    auto c = NextCodePoint(s, i);
    if (!c) {  // not UTF-8: keep the byte's value rather than lose it
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    switch (*c) {
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
        if (KeptAsIs(*c))
          out.append(s, start, i - start);
        else if (*c <= 0xFF)
          out += fmt::format("\\x{:02X}", static_cast<unsigned>(*c));
        else if (*c <= 0xFFFF)
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(*c));
        else
          out += fmt::format("\\U{:08X}", static_cast<unsigned>(*c));
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

std::string EncodeYaml(const Node& node) {
  std::string out;
  Emit(node, 0, out);
  return out;
}

bool PlainScalarNeedsQuotes(std::string_view s) {
  return !SafePlain(s);
}

}  // namespace podlimits::codec
