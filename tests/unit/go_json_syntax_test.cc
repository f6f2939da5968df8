// Go's encoding/json scanner messages, byte for byte: each expectation below is what Go 1.19's
// json.Unmarshal answered for the same text.
#include "codec/go_json_syntax.h"

#include <gtest/gtest.h>

namespace podlimits::codec {
namespace {

TEST(GoJsonSyntax, TheScannersMessages) {
  struct Case {
    const char* name;
    std::string text;
    const char* error;  // nullptr: valid
  };
  const Case cases[] = {
      {"empty", "", "unexpected end of JSON input"},
      {"not JSON", "x", "invalid character 'x' looking for beginning of value"},
      {"open object", "{", "unexpected end of JSON input"},
      {"key without value", R"({"v")", "unexpected end of JSON input"},
      {"colon, then the end", R"({"v":)", "unexpected end of JSON input"},
      {"no colon", R"({"v" 1})", "invalid character '1' after object key"},
      {"no comma", R"({"v":"a" "rv":1})", "invalid character '\"' after object key:value pair"},
      {"trailing comma", R"({"v":"a",})",
       "invalid character '}' looking for beginning of object key string"},
      {"array without comma", "[1 2]", "invalid character '2' after array element"},
      {"unterminated string", R"("abc)", "unexpected end of JSON input"},
      {"control byte in a string", "\"a\x01\"", "invalid character '\\x01' in string literal"},
      {"unknown escape", R"("\q")", "invalid character 'q' in string escape code"},
      {"bad \\u escape", R"("\u12x4")",
       "invalid character 'x' in \\u hexadecimal character escape"},
      {"a lone minus", "-", "invalid character ' ' in numeric literal"},
      {"minus, then a letter", "-x", "invalid character 'x' in numeric literal"},
      {"nothing after the point", "1.",
       "invalid character ' ' after decimal point in numeric literal"},
      {"a letter after the point", "1.x",
       "invalid character 'x' after decimal point in numeric literal"},
      {"empty exponent", "1e", "invalid character ' ' in exponent of numeric literal"},
      {"exponent sign only", "1e+", "invalid character ' ' in exponent of numeric literal"},
      {"letter in the exponent", "1ex", "invalid character 'x' in exponent of numeric literal"},
      {"true cut short", "tru", "invalid character ' ' in literal true (expecting 'e')"},
      {"true misspelt", "trux", "invalid character 'x' in literal true (expecting 'e')"},
      {"null cut short", "nul", "invalid character ' ' in literal null (expecting 'l')"},
      {"false cut short", "fals", "invalid character ' ' in literal false (expecting 'e')"},
      {"false misspelt", "falsy", "invalid character 'y' in literal false (expecting 'e')"},
      {"two values", "{} x", "invalid character 'x' after top-level value"},
      {"one brace too many", "{}}", "invalid character '}' after top-level value"},
      {"leading zero", "01", "invalid character '1' after top-level value"},
      {"byte 0xff", "\xff", "invalid character '\xc3\xbf' looking for beginning of value"},
      {"no-break space", "\xa0", "invalid character '\\u00a0' looking for beginning of value"},
      {"C1 control", "\x80", "invalid character '\\u0080' looking for beginning of value"},
      {"single quote", "'", "invalid character '\\'' looking for beginning of value"},
      {"a lone double quote", "\"", "unexpected end of JSON input"},
      {"backslash", "\\", "invalid character '\\\\' looking for beginning of value"},
      {"NUL", std::string("\0", 1), "invalid character '\\x00' looking for beginning of value"},
      {"after a tab", "\t!", "invalid character '!' looking for beginning of value"},
      {"null", "null", nullptr},
      {"empty array", " [] ", nullptr},
      {"a number", "-0.5e+10", nullptr},
      {"a token", R"({"v":"meta.k8s.io/v1","rv":-1,"start":"ns/x\u0000"})", nullptr},
      {"nested", R"({"a":[{"b":[true,false,null,"\"\\\/\b\f\n\r\t"]}]})", nullptr},
  };
  for (const auto& c : cases) {
    auto error = GoJsonSyntaxError(c.text);
    if (c.error == nullptr) {
      EXPECT_FALSE(error.has_value()) << c.name << ": " << *error;
    } else {
      ASSERT_TRUE(error.has_value()) << c.name;
      EXPECT_EQ(*error, c.error) << c.name;
    }
  }
}

TEST(GoJsonSyntax, NestingDeeperThanGosLimit) {
  EXPECT_FALSE(GoJsonSyntaxError(std::string(10000, '[') + std::string(10000, ']')).has_value());
  EXPECT_EQ(GoJsonSyntaxError(std::string(10001, '[')).value_or(""),
            "invalid character '[' exceeded max depth");
}

}  // namespace
}  // namespace podlimits::codec
