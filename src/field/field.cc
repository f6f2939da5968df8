#include "field/field.h"

#include <fmt/format.h>

#include <unordered_set>

namespace podlimits::field {

Path Path::Child(std::string_view name) const {
  Path p;
  p.text_.reserve(text_.size() + name.size() + 1);
  p.text_ = text_;
  if (!p.text_.empty()) p.text_ += '.';
  p.text_ += name;
  return p;
}

Path Path::Index(std::size_t i) const {
  Path p = *this;
  p.text_ += '[';
  p.text_ += std::to_string(i);
  p.text_ += ']';
  return p;
}

Path Path::Key(std::string_view key) const {
  Path p = *this;
  p.text_ += '[';
  p.text_ += key;
  p.text_ += ']';
  return p;
}

namespace {

std::string_view TypeString(ErrorType t) {
  switch (t) {
    case ErrorType::kNotFound:
      return "Not found";
    case ErrorType::kRequired:
      return "Required value";
    case ErrorType::kDuplicate:
      return "Duplicate value";
    case ErrorType::kInvalid:
      return "Invalid value";
    case ErrorType::kNotSupported:
      return "Unsupported value";
    case ErrorType::kForbidden:
      return "Forbidden";
    case ErrorType::kTooLong:
      return "Too long";
    case ErrorType::kTooMany:
      return "Too many";
    case ErrorType::kInternal:
      return "Internal error";
    case ErrorType::kTooFew:
      return "Too few";
  }
  return "";
}

std::string RenderValue(const BadValue& v) {
  struct Visitor {
    std::string operator()(const NoValue&) const { return "null"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return GoQuote(s); }
    std::string operator()(const Json& j) const { return j.text; }
  };
  return std::visit(Visitor{}, v);
}

}  // namespace

std::string Error::Body() const {
  std::string s;
  switch (type) {
    case ErrorType::kRequired:
    case ErrorType::kForbidden:
    case ErrorType::kTooLong:
    case ErrorType::kInternal:
      s = TypeString(type);
      break;
    default: {
      s = TypeString(type);
      s += ": ";
      s += RenderValue(value);
      break;
    }
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string Error::String() const {
  return field + ": " + Body();
}

Error Required(const Path& p, std::string detail) {
  return {ErrorType::kRequired, p.String(), NoValue{}, std::move(detail)};
}
Error Forbidden(const Path& p, std::string detail) {
  return {ErrorType::kForbidden, p.String(), NoValue{}, std::move(detail)};
}
Error Invalid(const Path& p, BadValue value, std::string detail) {
  return {ErrorType::kInvalid, p.String(), std::move(value), std::move(detail)};
}
Error NotSupported(const Path& p, BadValue value, const std::vector<std::string>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < supported.size(); ++i) {
      if (i) detail += ", ";
      detail += GoQuote(supported[i]);
    }
  }
  return {ErrorType::kNotSupported, p.String(), std::move(value), std::move(detail)};
}
Error Duplicate(const Path& p, BadValue value) {
  return {ErrorType::kDuplicate, p.String(), std::move(value), ""};
}
Error NotFound(const Path& p, BadValue value) {
  return {ErrorType::kNotFound, p.String(), std::move(value), ""};
}
Error TooLong(const Path& p, BadValue value, std::int64_t max_length) {
  std::string detail;
  if (max_length >= 0)
    detail = fmt::format("may not be more than {} bytes", max_length);
  else
    detail = "value is too long";
  return {ErrorType::kTooLong, p.String(), std::move(value), std::move(detail)};
}
Error TooMany(const Path& p, std::int64_t actual, std::int64_t max) {
  std::string detail =
      max >= 0 ? fmt::format("must have at most {} items", max) : "has too many items";
  return {ErrorType::kTooMany, p.String(), actual, std::move(detail)};
}
Error InternalError(const Path& p, std::string detail) {
  return {ErrorType::kInternal, p.String(), NoValue{}, std::move(detail)};
}

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else if (c >= 0x80) {
          // Pass valid UTF-8 sequences through; escape stray bytes as Go does.
          int len = (c >= 0xf0 && c < 0xf8) ? 4 : (c >= 0xe0) ? 3 : (c >= 0xc2 && c < 0xe0) ? 2 : 0;
          bool ok = len > 0 && i + len <= s.size();
          for (int k = 1; ok && k < len; ++k) {
            ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
          }
          if (ok) {
            out.append(s.substr(i, len));
            i += len - 1;
          } else {
            out += fmt::format("\\x{:02x}", c);
          }
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::string Aggregate(const std::vector<std::string>& messages) {
  std::vector<const std::string*> unique;
  std::unordered_set<std::string_view> seen;
  for (const auto& m : messages) {
    if (seen.insert(m).second) unique.push_back(&m);
  }
  if (unique.size() == 1) return *unique[0];
  std::string out = "[";
  for (std::size_t i = 0; i < unique.size(); ++i) {
    if (i) out += ", ";
    out += *unique[i];
  }
  out += ']';
  return out;
}

std::string Aggregate(const ErrorList& errors) {
  std::vector<std::string> messages;
  messages.reserve(errors.size());
  for (const auto& e : errors) messages.push_back(e.String());
  return Aggregate(messages);
}

}  // namespace podlimits::field
