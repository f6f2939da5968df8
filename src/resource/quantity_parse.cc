// ParseQuantity: upstream's hand-written scanner, suffix table, int64 fast path (with the
// input-string cache) and inf.Dec slow path.
#include <cstdint>
#include <string_view>

#include "resource/quantity.h"
#include "resource/quantity_internal.h"

namespace podlimits::resource {

using quantity_internal::Access;
using quantity_internal::BigDecimal;
using quantity_internal::BigInt;
using quantity_internal::Wrap32;

std::string_view Message(QuantityError error) {
  switch (error) {
    case QuantityError::kFormatWrong:
      return "quantities must match the regular expression "
             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    case QuantityError::kNumeric:
      return "unable to parse numeric part of quantity";
    case QuantityError::kSuffix:
      return "unable to parse quantity's suffix";
  }
  return {};
}

namespace {

constexpr std::string_view kZero = "0";

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsSuffixLetter(char c) {
  switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P':
      return true;
    default:
      return false;
  }
}

// parseQuantityString's results. value is the signed number without its suffix, as the slow
// path hands it to inf.Dec; num has its leading zeros stripped and is "0" when empty.
struct Scanned {
  bool positive = true;
  std::string_view value;
  std::string_view num;
  std::string_view denom;
  std::string_view suffix;
};

std::expected<Scanned, QuantityError> Scan(std::string_view str) {
  Scanned s;
  std::size_t pos = 0;
  const std::size_t end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    s.positive = str[0] != '-';
    ++pos;
  }
  for (;; ++pos) {
    // Nothing but a sign and zeros is 0 ("-", "+", "00", "-0").
    if (pos >= end) {
      s.num = kZero;
      s.value = kZero;
      return s;
    }
    if (str[pos] != '0') break;
  }
  std::size_t i = pos;
  while (i < end && IsDigit(str[i])) ++i;
  if (i >= end) {
    s.num = str.substr(pos);
    s.value = str;
    return s;
  }
  s.num = str.substr(pos, i - pos);
  pos = i;
  if (s.num.empty()) s.num = kZero;
  if (str[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && IsDigit(str[i])) ++i;
    // An empty fraction is accepted: "1." and "1.G" parse (an upstream TODO).
    if (i >= end) {
      s.denom = str.substr(pos);
      s.value = str;
      return s;
    }
    s.denom = str.substr(pos, i - pos);
    pos = i;
  }
  s.value = str.substr(0, pos);
  const std::size_t suffix_start = pos;
  i = pos;
  while (i < end && IsSuffixLetter(str[i])) ++i;
  if (i < end) {
    if (str[i] == '-' || str[i] == '+') ++i;
    while (i < end && IsDigit(str[i])) ++i;
    if (i < end) return std::unexpected(QuantityError::kFormatWrong);
  }
  s.suffix = str.substr(suffix_start);
  return s;
}

// strconv.ParseInt(s, 10, 64).
std::optional<std::int64_t> GoParseInt64(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t magnitude = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  return static_cast<std::int64_t>(negative ? 0 - magnitude : magnitude);
}

struct SuffixMeaning {
  int base;
  std::int32_t exponent;
  QuantityFormat format;
};

// quantitySuffixer.interpret.
std::optional<SuffixMeaning> InterpretSuffix(std::string_view s) {
  constexpr auto kDecimal = QuantityFormat::kDecimalSI;
  constexpr auto kBinary = QuantityFormat::kBinarySI;
  if (s.empty()) return SuffixMeaning{10, 0, kDecimal};
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n':
        return SuffixMeaning{10, -9, kDecimal};
      case 'u':
        return SuffixMeaning{10, -6, kDecimal};
      case 'm':
        return SuffixMeaning{10, -3, kDecimal};
      case 'k':
        return SuffixMeaning{10, 3, kDecimal};
      case 'M':
        return SuffixMeaning{10, 6, kDecimal};
      case 'G':
        return SuffixMeaning{10, 9, kDecimal};
      case 'T':
        return SuffixMeaning{10, 12, kDecimal};
      case 'P':
        return SuffixMeaning{10, 15, kDecimal};
      case 'E':
        return SuffixMeaning{10, 18, kDecimal};
      default:
        return std::nullopt;
    }
  }
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K':
        return SuffixMeaning{2, 10, kBinary};
      case 'M':
        return SuffixMeaning{2, 20, kBinary};
      case 'G':
        return SuffixMeaning{2, 30, kBinary};
      case 'T':
        return SuffixMeaning{2, 40, kBinary};
      case 'P':
        return SuffixMeaning{2, 50, kBinary};
      case 'E':
        return SuffixMeaning{2, 60, kBinary};
      default:
        break;
    }
  }
  if (s[0] == 'e' || s[0] == 'E') {
    // The exponent is truncated to int32 without a range check.
    if (auto exponent = GoParseInt64(s.substr(1))) {
      return SuffixMeaning{10, Wrap32(*exponent), QuantityFormat::kDecimalExponent};
    }
  }
  return std::nullopt;
}

// The k-th character from the end of num+denom.
char ShiftedFromEnd(const Scanned& s, std::size_t k) {
  if (k < s.denom.size()) return s.denom[s.denom.size() - 1 - k];
  return s.num[s.num.size() - 1 - (k - s.denom.size())];
}

// Upstream keeps the input as the String() result when it looks canonical. The test is weaker
// than canonical, so "01", "1E3" and "100.035k" come back verbatim (kubernetes#138165).
bool KeepInputString(const Scanned& s, std::int32_t scale, std::int32_t exponent,
                     std::uint64_t value, QuantityFormat format) {
  if (format == QuantityFormat::kBinarySI) return exponent % 10 == 0 && (value & 0x07) != 0;
  const bool ends_in_000 = s.num.size() + s.denom.size() >= 3 && ShiftedFromEnd(s, 0) == '0' &&
                           ShiftedFromEnd(s, 1) == '0' && ShiftedFromEnd(s, 2) == '0';
  return scale % 3 == 0 && !ends_in_000 && s.num[0] != '0';
}

// inf.Dec.SetString of the signed number: its unscaled digits and its scale (digits after '.').
std::optional<std::pair<BigInt, std::int32_t>> ParseDecimal(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  BigInt unscaled = 0;
  std::uint64_t chunk = 0;
  int chunk_digits = 0;
  std::int64_t digits = 0;
  std::int64_t fraction_digits = 0;
  bool in_fraction = false;
  for (char c : text) {
    if (c == '.') {
      in_fraction = true;
      continue;
    }
    chunk = chunk * 10 + static_cast<std::uint64_t>(c - '0');
    ++digits;
    if (in_fraction) ++fraction_digits;
    if (++chunk_digits == 18) {
      unscaled = unscaled * quantity_internal::Pow10Int64(18) + chunk;
      chunk = 0;
      chunk_digits = 0;
    }
  }
  if (digits == 0) return std::nullopt;
  if (chunk_digits > 0) unscaled = unscaled * quantity_internal::Pow10Int64(chunk_digits) + chunk;
  if (negative) unscaled = -unscaled;
  return std::pair{std::move(unscaled), Wrap32(fraction_digits)};
}

}  // namespace

std::expected<Quantity, QuantityError> Quantity::Parse(std::string_view text) {
  if (text.empty()) return std::unexpected(QuantityError::kFormatWrong);
  if (text == "0") return Access::FromInt64(0, 0, QuantityFormat::kDecimalSI, text);

  auto scanned = Scan(text);
  if (!scanned) return std::unexpected(scanned.error());
  const Scanned& s = *scanned;
  const auto suffix = InterpretSuffix(s.suffix);
  if (!suffix) return std::unexpected(QuantityError::kSuffix);
  const std::int32_t exponent = suffix->exponent;
  QuantityFormat format = suffix->format;

  // Fast path: at most 18 significant digits (fewer for binary suffixes), nano or coarser.
  std::int64_t precision = 0;
  std::int32_t scale = 0;
  std::int64_t mantissa = 1;
  if (suffix->base == 10) {
    scale = exponent;
    precision = 18 - std::int64_t{Wrap32(static_cast<std::int64_t>(s.num.size() + s.denom.size()))};
  } else if (exponent >= 0 && s.denom.empty()) {
    mantissa = std::int64_t{1} << exponent;
    // 1Mi has about six decimal digits, so exponent*3/10 approximates the digits it uses.
    const auto suffix_digits = static_cast<std::int32_t>(static_cast<float>(exponent) * 3 / 10);
    precision =
        15 - std::int64_t{Wrap32(static_cast<std::int64_t>(s.num.size()))} - suffix_digits - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale = Wrap32(std::int64_t{scale} - static_cast<std::int64_t>(s.denom.size()));
    if (scale >= -9) {
      std::uint64_t value = 0;
      for (char c : s.num) value = value * 10 + static_cast<std::uint64_t>(c - '0');
      for (char c : s.denom) value = value * 10 + static_cast<std::uint64_t>(c - '0');
      auto [result, ok] =
          quantity_internal::Int64Multiply(static_cast<std::int64_t>(value), mantissa);
      if (ok) {
        if (!s.positive) result = quantity_internal::WrapNeg(result);
        const bool keep = KeepInputString(s, scale, exponent, value, format);
        return Access::FromInt64(result, scale, format, keep ? text : std::string_view{});
      }
    }
  }

  // Slow path: inf.Dec, rounded up to nano, BinarySI capped at 2^63-1.
  auto decimal = ParseDecimal(s.value);
  if (!decimal) return std::unexpected(QuantityError::kNumeric);
  BigInt unscaled = std::move(decimal->first);
  std::int32_t dec_scale = decimal->second;
  if (suffix->base == 10) {
    dec_scale = Wrap32(std::int64_t{dec_scale} + Wrap32(-std::int64_t{exponent}));
  } else {
    unscaled *= BigInt(1) << exponent;
  }
  const bool negative = unscaled < 0;
  if (negative) unscaled = -unscaled;
  BigDecimal amount = quantity_internal::DecimalFromUnscaled(std::move(unscaled), dec_scale);
  if (amount.coef != 0) amount = quantity_internal::RoundAwayFromZero(amount, 9);
  if (format == QuantityFormat::kBinarySI) {
    static const BigInt kMaxAllowed = quantity_internal::kMostPositive;
    if (quantity_internal::CompareDecimal(amount.coef, amount.exp, kMaxAllowed, 0) > 0) {
      amount = BigDecimal{kMaxAllowed, 0, 0};
    }
    if (amount.coef > 0 && quantity_internal::CompareDecimal(amount.coef, amount.exp, 1, 0) < 0) {
      format = QuantityFormat::kDecimalSI;
    }
  }
  if (negative) amount.coef = -amount.coef;
  return Access::FromDecimal(std::move(amount), format);
}

namespace {

// The encodings of the non-ASCII runes Go's unicode.IsSpace accepts.
constexpr std::string_view kUnicodeSpaces[] = {
    "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81",
    "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86",
    "\xE2\x80\x87", "\xE2\x80\x88", "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8",
    "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80",
};

bool IsAsciiSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// strings.TrimSpace.
std::string_view TrimGoSpace(std::string_view s) {
  for (;;) {
    if (!s.empty() && IsAsciiSpace(s.front())) {
      s.remove_prefix(1);
      continue;
    }
    // Every multi-byte space starts with a byte above 0x7F: ASCII text never compares them.
    if (s.empty() || static_cast<unsigned char>(s.front()) < 0x80) break;
    bool trimmed = false;
    for (std::string_view space : kUnicodeSpaces) {
      if (s.starts_with(space)) {
        s.remove_prefix(space.size());
        trimmed = true;
        break;
      }
    }
    if (!trimmed) break;
  }
  for (;;) {
    if (!s.empty() && IsAsciiSpace(s.back())) {
      s.remove_suffix(1);
      continue;
    }
    if (s.empty() || static_cast<unsigned char>(s.back()) < 0x80) break;
    bool trimmed = false;
    for (std::string_view space : kUnicodeSpaces) {
      if (s.ends_with(space)) {
        s.remove_suffix(space.size());
        trimmed = true;
        break;
      }
    }
    if (!trimmed) break;
  }
  return s;
}

}  // namespace

std::expected<Quantity, QuantityError> Quantity::ParseJSONScalar(std::string_view text) {
  return Parse(TrimGoSpace(text));
}

}  // namespace podlimits::resource
