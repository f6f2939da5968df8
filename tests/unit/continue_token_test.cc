// Continue tokens in the apiserver's format. Every expectation is what Go 1.19 answered for the
// same input through storage.DecodeContinue's steps (base64.RawURLEncoding, json.Unmarshal into
// continueToken, path.Clean) and what json.Marshal wrote.
#include "listwatch/continue_token.h"

#include <gtest/gtest.h>

#include "base/base64.h"

namespace podlimits::apiserver {
namespace {

TEST(ContinueToken, EncodedAsTheApiserverEncodesThem) {
  struct Case {
    const char* name;
    std::string start;
    std::int64_t revision;
    const char* token;
  };
  const Case cases[] = {
      {"an all-namespace list's key", std::string("default/web-1\0", 14), 7,
       "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJkZWZhdWx0L3dlYi0xXHUwMDAwIn0"},
      {"the newest revision", std::string("web-1\0", 6), -1,
       "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0Ijoid2ViLTFcdTAwMDAifQ"},
      {"Go's escapes", "ns/a<b>&" + std::string("\0\x01\n", 3) + "\xe2\x80\xa8\xff", 7,
       "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJucy9hXHUwMDNjYlx1MDAzZVx1MDAyNlx1MDAw"
       "MFx1MDAwMVxuXHUyMDI4XHVmZmZkIn0"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(EncodeContinueToken(c.start, c.revision), c.token) << c.name;
  }
}

TEST(ContinueToken, DecodedWithTheirStartAndRevision) {
  struct Case {
    const char* name;
    std::string json;
    std::string start;
    std::int64_t revision;
  };
  const Case cases[] = {
      {"as encoded", R"({"v":"meta.k8s.io/v1","rv":7,"start":"ns/web\u0000"})",
       std::string("ns/web\0", 7), 7},
      {"a leading slash is the prefix's", R"({"v":"meta.k8s.io/v1","rv":7,"start":"/a/b\u0000"})",
       std::string("a/b\0", 4), 7},
      {"field names in any case", R"({"V":"meta.k8s.io/v1","RV":-1,"START":"ns/x\u0000"})",
       std::string("ns/x\0", 5), -1},
      {"the prefix itself", R"({"v":"meta.k8s.io/v1","rv":7,"start":"/"})", "", 7},
      {"null leaves a field as it was", R"({"v":"meta.k8s.io/v1","rv":7,"start":"a","rv":null})",
       "a", 7},
  };
  for (const auto& c : cases) {
    auto token = DecodeContinueToken(Base64RawUrlEncode(c.json));
    ASSERT_TRUE(token.has_value()) << c.name << ": " << token.error().Message();
    EXPECT_EQ(token->start, c.start) << c.name;
    EXPECT_EQ(token->revision, c.revision) << c.name;
  }
}

TEST(ContinueToken, MalformedOnesGetDecodeContinuesErrors) {
  struct Case {
    const char* name;
    std::string token;  // as sent
    const char* error;
  };
  auto json = [](std::string_view text) { return Base64RawUrlEncode(text); };
  const Case cases[] = {
      {"one base64 symbol", "a", "continue key is not valid: illegal base64 data at input byte 0"},
      {"a quantum cut short", "Zm9vY",
       "continue key is not valid: illegal base64 data at input byte 4"},
      {"padded", "Zm8=", "continue key is not valid: illegal base64 data at input byte 3"},
      {"StdEncoding's symbols", "Zm+v",
       "continue key is not valid: illegal base64 data at input byte 2"},
      {"not JSON", json("x"),
       "continue key is not valid: invalid character 'x' looking for beginning of value"},
      {"JSON cut short", json(R"({"v":)"),
       "continue key is not valid: unexpected end of JSON input"},
      {"an array", json("[]"),
       "continue key is not valid: json: cannot unmarshal array into Go value of type "
       "storage.continueToken"},
      {"a version that is a number", json(R"({"v":5})"),
       "continue key is not valid: json: cannot unmarshal number into Go struct field "
       "continueToken.v of type string"},
      {"a revision that is a string", json(R"({"v":"meta.k8s.io/v1","rv":"7","start":"a"})"),
       "continue key is not valid: json: cannot unmarshal string into Go struct field "
       "continueToken.rv of type int64"},
      {"a fractional revision", json(R"({"v":"meta.k8s.io/v1","rv":1.5,"start":"a"})"),
       "continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field "
       "continueToken.rv of type int64"},
      {"a revision past int64",
       json(R"({"v":"meta.k8s.io/v1","rv":99999999999999999999,"start":"a"})"),
       "continue key is not valid: json: cannot unmarshal number 99999999999999999999 into Go "
       "struct field continueToken.rv of type int64"},
      {"a start key that is an array", json(R"({"v":"meta.k8s.io/v1","rv":7,"start":["a"]})"),
       "continue key is not valid: json: cannot unmarshal array into Go struct field "
       "continueToken.start of type string"},
      {"the first of several wrong types", json(R"({"v":true,"rv":{},"start":1})"),
       "continue key is not valid: json: cannot unmarshal bool into Go struct field "
       "continueToken.v of type string"},
      {"another version", json(R"({"v":"meta.k8s.io/v2","rv":7,"start":"a"})"),
       "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2"},
      {"no version", json(R"({"rv":7,"start":"a"})"),
       "continue key is not valid: server does not recognize this encoded version "},
      {"null", json("null"),
       "continue key is not valid: server does not recognize this encoded version "},
      {"revision 0", json(R"({"v":"meta.k8s.io/v1","rv":0,"start":"a"})"),
       "continue key is not valid: incorrect encoded start resourceVersion (version "
       "meta.k8s.io/v1)"},
      {"no revision", json(R"({"v":"meta.k8s.io/v1","start":"a"})"),
       "continue key is not valid: incorrect encoded start resourceVersion (version "
       "meta.k8s.io/v1)"},
      {"an empty start key", json(R"({"v":"meta.k8s.io/v1","rv":7,"start":""})"),
       "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"},
      {"above the prefix", json(R"({"v":"meta.k8s.io/v1","rv":7,"start":"../x"})"),
       "continue key is not valid: ../x"},
      {"an empty element", json(R"({"v":"meta.k8s.io/v1","rv":7,"start":"a//b"})"),
       "continue key is not valid: a//b"},
      {"a trailing slash", json(R"({"v":"meta.k8s.io/v1","rv":7,"start":"a/"})"),
       "continue key is not valid: a/"},
      {"a dot element", json(R"({"v":"meta.k8s.io/v1","rv":7,"start":"a/./b"})"),
       "continue key is not valid: a/./b"},
  };
  for (const auto& c : cases) {
    auto token = DecodeContinueToken(c.token);
    ASSERT_FALSE(token.has_value()) << c.name;
    EXPECT_EQ(token.error().Message(), c.error) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::apiserver
