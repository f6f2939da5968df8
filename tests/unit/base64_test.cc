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
    EXPECT_EQ(decoded.error(), c.offset) << c.text;
  }
  // Newlines are skipped, as Go skips them.
  auto wrapped = Base64Decode("Zm9v\nYmFy\r\n");
  ASSERT_TRUE(wrapped.has_value());
  EXPECT_EQ(*wrapped, "foobar");
}

}  // namespace
}  // namespace podlimits
