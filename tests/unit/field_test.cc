#include "field/field.h"

#include <gtest/gtest.h>

namespace podlimits::field {
namespace {

TEST(FieldPath, RendersNamesIndicesAndKeysLikeApimachinery) {
  Path p = Path("spec").Child("containers").Index(0).Child("resources").Child("limits").Key("cpu");
  EXPECT_EQ(p.String(), "spec.containers[0].resources.limits[cpu]");
  EXPECT_EQ(Path("spec")
                .Child("resources")
                .Child("containers")
                .Index(1)
                .Key("cpu")
                .Child("limits")
                .String(),
            "spec.resources.containers[1][cpu].limits");
}

TEST(FieldError, BodiesMatchUpstream) {
  struct Case {
    const char* name;
    Error error;
    const char* want;
  };
  Path p("spec.x");
  const Case cases[] = {
      {"required without detail", Required(p, ""), "spec.x: Required value"},
      {"required with detail", Required(p, "name or generateName is required"),
       "spec.x: Required value: name or generateName is required"},
      {"forbidden", Forbidden(p, "cannot be set for a windows pod"),
       "spec.x: Forbidden: cannot be set for a windows pod"},
      {"invalid string is quoted", Invalid(p, std::string("2"), "must be less"),
       "spec.x: Invalid value: \"2\": must be less"},
      {"invalid int is bare", Invalid(p, std::int64_t{4096}, "too big"),
       "spec.x: Invalid value: 4096: too big"},
      {"invalid json is as rendered", Invalid(p, Json{R"({"mountMode":"Writable"})"}, "d"),
       R"(spec.x: Invalid value: {"mountMode":"Writable"}: d)"},
      // A resource.Quantity marshals to a JSON string.
      {"invalid quantity is a json string", Invalid(p, Json{R"("100m")"}, "min"),
       R"(spec.x: Invalid value: "100m": min)"},
      {"not supported lists quoted values",
       NotSupported(p, std::string("nproc"), {"core", "nofile"}),
       "spec.x: Unsupported value: \"nproc\": supported values: \"core\", \"nofile\""},
      {"duplicate", Duplicate(p, std::string("nofile")), "spec.x: Duplicate value: \"nofile\""},
      {"bool", Invalid(p, true, "d"), "spec.x: Invalid value: true: d"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.error.String(), c.want);
  }
}

TEST(FieldError, GoQuoteEscapesLikeStrconvQuote) {
  EXPECT_EQ(GoQuote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(GoQuote(std::string("\x01", 1)), "\"\\x01\"");
  EXPECT_EQ(GoQuote("héllo"), "\"héllo\"");
  EXPECT_EQ(GoQuote("\xff"), "\"\\xff\"");
}

TEST(FieldError, AggregateDeduplicatesAndBrackets) {
  EXPECT_EQ(Aggregate(std::vector<std::string>{"a"}), "a");
  EXPECT_EQ(Aggregate(std::vector<std::string>{"a", "b", "a"}), "[a, b]");
}

}  // namespace
}  // namespace podlimits::field
