#include "base/base64.h"

#include <gtest/gtest.h>

namespace podlimits {
namespace {

TEST(Base64, RoundTrips) {
  for (std::string bytes : {std::string(), std::string("f"), std::string("fo"),
                            std::string("foo"), std::string("foob"), std::string("\0\xff\x10", 3)}) {
    auto decoded = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(decoded.has_value()) << bytes;
    EXPECT_EQ(*decoded, bytes);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
}

// The offsets Go's StdEncoding reports (CorruptInputError), which the apiserver prints as
// "illegal base64 data at input byte N".
TEST(Base64, ErrorOffsetsAreGos) {
  struct Case {
    const char* text;
    std::size_t offset;
  };
  const Case cases[] = {
      {"YWRtaW4=x", 8},  // trailing garbage after padding
      {"abc", 0},        // a partial quantum without padding
      {"a", 0},
      {"ab=c", 2},       // "==" expected: Go points at the first '='
      {"ab=", 3},        // not enough padding
      {"a===", 1},       // padding after one symbol
      {"Zm9v!", 4},      // not in the alphabet
      {"Zm9vYmFy====", 8},
  };
  for (const auto& c : cases) {
    auto decoded = Base64Decode(c.text);
    ASSERT_FALSE(decoded.has_value()) << c.text;
    EXPECT_EQ(decoded.error().Message(),
              "illegal base64 data at input byte " + std::to_string(c.offset))
        << c.text;
  }
  // Newlines are skipped, as Go skips them.
  auto wrapped = Base64Decode("Zm9v\nYmFy\r\n");
  ASSERT_TRUE(wrapped.has_value());
  EXPECT_EQ(*wrapped, "foobar");
}

// RawURLEncoding, the continue tokens' form: URL-safe symbols, no padding.
TEST(Base64RawUrl, RoundTripsWithoutPadding) {
  struct Case {
    std::string bytes;
    const char* encoded;
  };
  const Case cases[] = {
      {"", ""},
      {"f", "Zg"},
      {"fo", "Zm8"},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg"},
      {"\xfb\xff", "-_8"},  // the two symbols StdEncoding writes as '+' and '/'
      {R"({"v":"meta.k8s.io/v1","rv":7,"start":"a/b\u0000"})",
       "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJhL2JcdTAwMDAifQ"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Base64RawUrlEncode(c.bytes), c.encoded) << c.encoded;
    auto decoded = Base64RawUrlDecode(c.encoded);
    ASSERT_TRUE(decoded.has_value()) << c.encoded;
    EXPECT_EQ(*decoded, c.bytes);
  }
}

TEST(Base64RawUrl, ErrorOffsetsAreGos) {
  struct Case {
    const char* text;
    std::size_t offset;
  };
  const Case cases[] = {
      {"a", 0},         // a last quantum of one symbol
      {"Zm9vY", 4},
      {"Zm8=", 3},      // padding is not part of this encoding
      {"Zm+v", 2},      // StdEncoding's symbols are not either
      {"Zm/v", 2},
      {"Zm9v YmFy", 4},
  };
  for (const auto& c : cases) {
    auto decoded = Base64RawUrlDecode(c.text);
    ASSERT_FALSE(decoded.has_value()) << c.text;
    EXPECT_EQ(decoded.error().Message(),
              "illegal base64 data at input byte " + std::to_string(c.offset))
        << c.text;
  }
  auto wrapped = Base64RawUrlDecode("Zm9v\nYmFy\r\n");
  ASSERT_TRUE(wrapped.has_value());
  EXPECT_EQ(*wrapped, "foobar");
}

}  // namespace
}  // namespace podlimits
