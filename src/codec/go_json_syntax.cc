#include "codec/go_json_syntax.h"

#include <fmt/format.h>

#include <vector>

namespace podlimits::codec {
namespace {

// encoding/json's nesting limit.
constexpr std::size_t kMaxDepth = 10000;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Go's quoteChar: the byte as a rune in strconv.Quote's form, between single quotes.
std::string QuoteChar(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if (c == '\'') return R"('\'')";
  if (c == '"') return R"('"')";
  switch (c) {
    case '\a':
      return R"('\a')";
    case '\b':
      return R"('\b')";
    case '\f':
      return R"('\f')";
    case '\n':
      return R"('\n')";
    case '\r':
      return R"('\r')";
    case '\t':
      return R"('\t')";
    case '\v':
      return R"('\v')";
    case '\\':
      return R"('\\')";
  }
  if (c < 0x20 || c == 0x7f) return fmt::format(R"('\x{:02x}')", c);
  if (c < 0x80) return fmt::format("'{}'", static_cast<char>(c));
  // U+0080..U+00FF: C1 controls, no-break space and soft hyphen are not printable.
  if (c < 0xa0 || c == 0xa0 || c == 0xad) return fmt::format(R"('\u{:04x}')", c);
  const char utf8[] = {static_cast<char>(0xc0 | c >> 6), static_cast<char>(0x80 | (c & 0x3f))};
  return "'" + std::string(utf8, 2) + "'";
}

// One state per step function of Go's scanner.
enum class State {
  kBeginValue,
  kBeginValueOrEmpty,   // after '['
  kBeginStringOrEmpty,  // after '{'
  kBeginString,         // after ',' in an object
  kEndValue,
  kEndTop,
  kInString,
  kInStringEsc,
  kInStringEscU,  // `hex_left` hex digits to go
  kNeg,
  kDigits,  // after a non-zero first digit
  kZero,    // after a leading 0, or the integer part
  kDot,
  kFraction,
  kExponent,
  kExponentSign,
  kExponentDigits,
  kLiteral,  // true, false, null: `literal_` holds the word, `literal_at_` the next byte
};

enum class Container { kObjectKey, kObjectValue, kArrayValue };

class Scanner {
 public:
  // False, with `error_` set, at the first byte Go's scanner refuses.
  bool Step(char c) {
    switch (state_) {
      case State::kBeginValueOrEmpty:
        if (IsSpace(c)) return true;
        if (c == ']') return EndValue(c);
        return BeginValue(c);
      case State::kBeginValue:
        return BeginValue(c);
      case State::kBeginStringOrEmpty:
        if (IsSpace(c)) return true;
        if (c == '}') {
          stack_.back() = Container::kObjectValue;
          return EndValue(c);
        }
        return BeginString(c);
      case State::kBeginString:
        return BeginString(c);
      case State::kEndValue:
        return EndValue(c);
      case State::kEndTop:
        return EndTop(c);
      case State::kInString:
        if (c == '"') {
          state_ = State::kEndValue;
        } else if (c == '\\') {
          state_ = State::kInStringEsc;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          return Fail(c, "in string literal");
        }
        return true;
      case State::kInStringEsc:
        if (c == 'u') {
          state_ = State::kInStringEscU;
          hex_left_ = 4;
          return true;
        }
        if (std::string_view("bfnrt\\/\"").find(c) != std::string_view::npos) {
          state_ = State::kInString;
          return true;
        }
        return Fail(c, "in string escape code");
      case State::kInStringEscU:
        if (!IsHex(c)) return Fail(c, "in \\u hexadecimal character escape");
        if (--hex_left_ == 0) state_ = State::kInString;
        return true;
      case State::kNeg:
        if (c == '0') {
          state_ = State::kZero;
          return true;
        }
        if (c >= '1' && c <= '9') {
          state_ = State::kDigits;
          return true;
        }
        return Fail(c, "in numeric literal");
      case State::kDigits:
        if (IsDigit(c)) return true;
        return AfterInteger(c);
      case State::kZero:
        return AfterInteger(c);
      case State::kDot:
        if (!IsDigit(c)) return Fail(c, "after decimal point in numeric literal");
        state_ = State::kFraction;
        return true;
      case State::kFraction:
        if (IsDigit(c)) return true;
        if (c == 'e' || c == 'E') {
          state_ = State::kExponent;
          return true;
        }
        return EndValue(c);
      case State::kExponent:
        if (c == '+' || c == '-') {
          state_ = State::kExponentSign;
          return true;
        }
        return ExponentSign(c);
      case State::kExponentSign:
        return ExponentSign(c);
      case State::kExponentDigits:
        if (IsDigit(c)) return true;
        return EndValue(c);
      case State::kLiteral:
        if (c != literal_[literal_at_]) {
          return Fail(c, fmt::format("in literal {} (expecting {})", literal_,
                                     QuoteChar(literal_[literal_at_])));
        }
        if (++literal_at_ == literal_.size()) state_ = State::kEndValue;
        return true;
    }
    return true;
  }

  // The end of the input: Go steps once more with a space (which ends a number) first.
  bool Eof() {
    if (end_top_) return true;
    if (!Step(' ')) return false;
    if (end_top_) return true;
    error_ = "unexpected end of JSON input";
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(char c, std::string_view context) {
    error_ = fmt::format("invalid character {} {}", QuoteChar(c), context);
    return false;
  }

  bool Push(char c, Container container) {
    stack_.push_back(container);
    if (stack_.size() > kMaxDepth) return Fail(c, "exceeded max depth");
    return true;
  }

  void Pop() {
    stack_.pop_back();
    if (stack_.empty()) {
      state_ = State::kEndTop;
      end_top_ = true;
    } else {
      state_ = State::kEndValue;
    }
  }

  bool BeginValue(char c) {
    if (IsSpace(c)) return true;
    switch (c) {
      case '{':
        state_ = State::kBeginStringOrEmpty;
        return Push(c, Container::kObjectKey);
      case '[':
        state_ = State::kBeginValueOrEmpty;
        return Push(c, Container::kArrayValue);
      case '"':
        state_ = State::kInString;
        return true;
      case '-':
        state_ = State::kNeg;
        return true;
      case '0':
        state_ = State::kZero;
        return true;
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
    }
    if (c >= '1' && c <= '9') {
      state_ = State::kDigits;
      return true;
    }
    return Fail(c, "looking for beginning of value");
  }

  bool Literal(std::string_view word) {
    literal_ = word;
    literal_at_ = 1;
    state_ = State::kLiteral;
    return true;
  }

  bool BeginString(char c) {
    if (IsSpace(c)) return true;
    if (c == '"') {
      state_ = State::kInString;
      return true;
    }
    return Fail(c, "looking for beginning of object key string");
  }

  bool AfterInteger(char c) {
    if (c == '.') {
      state_ = State::kDot;
      return true;
    }
    if (c == 'e' || c == 'E') {
      state_ = State::kExponent;
      return true;
    }
    return EndValue(c);
  }

  bool ExponentSign(char c) {
    if (!IsDigit(c)) return Fail(c, "in exponent of numeric literal");
    state_ = State::kExponentDigits;
    return true;
  }

  bool EndValue(char c) {
    if (stack_.empty()) {
      state_ = State::kEndTop;
      end_top_ = true;
      return EndTop(c);
    }
    state_ = State::kEndValue;
    if (IsSpace(c)) return true;
    switch (stack_.back()) {
      case Container::kObjectKey:
        if (c == ':') {
          stack_.back() = Container::kObjectValue;
          state_ = State::kBeginValue;
          return true;
        }
        return Fail(c, "after object key");
      case Container::kObjectValue:
        if (c == ',') {
          stack_.back() = Container::kObjectKey;
          state_ = State::kBeginString;
          return true;
        }
        if (c == '}') {
          Pop();
          return true;
        }
        return Fail(c, "after object key:value pair");
      case Container::kArrayValue:
        if (c == ',') {
          state_ = State::kBeginValue;
          return true;
        }
        if (c == ']') {
          Pop();
          return true;
        }
        return Fail(c, "after array element");
    }
    return true;
  }

  bool EndTop(char c) {
    if (!IsSpace(c)) return Fail(c, "after top-level value");
    return true;
  }

  State state_ = State::kBeginValue;
  std::vector<Container> stack_;
  bool end_top_ = false;
  int hex_left_ = 0;
  std::string_view literal_;
  std::size_t literal_at_ = 0;
  std::string error_;
};

}  // namespace

std::optional<std::string> GoJsonSyntaxError(std::string_view text) {
  Scanner scanner;
  for (char c : text) {
    if (!scanner.Step(c)) return scanner.error();
  }
  if (!scanner.Eof()) return scanner.error();
  return std::nullopt;
}

}  // namespace podlimits::codec
