// Field paths and field errors, in the form of k8s.io/apimachinery/pkg/util/validation/field.
//
// Every rejection in podlimits names the field it is about, rendered exactly as the apiserver
// renders it: `spec.containers[0].resources.limits[cpu]: Invalid value: "2": ...`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace podlimits::field {

// A path into an object: names joined with '.', list indices as [i], map keys as [k] (unquoted).
class Path {
 public:
  Path() = default;
  explicit Path(std::string_view root) : text_(root) {}

  Path Child(std::string_view name) const;
  Path Index(std::size_t i) const;
  Path Key(std::string_view key) const;

  const std::string& String() const { return text_; }
  bool Empty() const { return text_.empty(); }
  bool operator==(const Path&) const = default;

 private:
  std::string text_;
};

enum class ErrorType {
  kNotFound,
  kRequired,
  kDuplicate,
  kInvalid,
  kNotSupported,
  kForbidden,
  kTooLong,
  kTooMany,
  kInternal,
  kTooFew,
};

// How a bad value is printed. Go's field.Error prints integers and booleans with %v, Go strings
// with %q, and anything else through json.Marshal; Json holds that already-rendered text.
struct NoValue {
  bool operator==(const NoValue&) const = default;
};
struct Json {
  std::string text;
  bool operator==(const Json&) const = default;
};
using BadValue = std::variant<NoValue, std::int64_t, bool, std::string, Json>;

struct Error {
  ErrorType type;
  std::string field;
  BadValue value;
  std::string detail;

  // "Invalid value: \"2\": must be ..." — the part after "FIELD: ".
  std::string Body() const;
  // "FIELD: BODY"
  std::string String() const;
  bool operator==(const Error&) const = default;
};

using ErrorList = std::vector<Error>;

Error Required(const Path& p, std::string detail);
Error Forbidden(const Path& p, std::string detail);
Error Invalid(const Path& p, BadValue value, std::string detail);
Error NotSupported(const Path& p, BadValue value, const std::vector<std::string>& supported);
Error Duplicate(const Path& p, BadValue value);
Error NotFound(const Path& p, BadValue value);
Error TooLong(const Path& p, BadValue value, std::int64_t max_length);
Error TooMany(const Path& p, std::int64_t actual, std::int64_t max);
Error InternalError(const Path& p, std::string detail);

// Go's strconv.Quote / %q for a string.
std::string GoQuote(std::string_view s);

// utilerrors.NewAggregate(...).Error(): one message as is, several as "[a, b]", duplicates
// removed keeping the first.
std::string Aggregate(const std::vector<std::string>& messages);
std::string Aggregate(const ErrorList& errors);

// Appends `more` to `into`.
inline void Append(ErrorList& into, ErrorList more) {
  for (auto& e : more) into.push_back(std::move(e));
}

}  // namespace podlimits::field
