#include <gtest/gtest.h>

#include "api/json_codec.h"
#include "api/yaml_codec.h"
#include "api/yaml_resolve.h"

namespace podlimits::api {
namespace {

TEST(YamlResolve, PlainScalarsResolveAsGoYamlV2) {
  struct Case {
    const char* text;
    Node::Kind kind;
    const char* scalar;
  };
  const Case cases[] = {
      {"", Node::Kind::kNull, ""},
      {"~", Node::Kind::kNull, ""},
      {"null", Node::Kind::kNull, ""},
      {"true", Node::Kind::kBool, "true"},
      {"yes", Node::Kind::kBool, "true"},
      {"Off", Node::Kind::kBool, "false"},
      {"42", Node::Kind::kNumber, "42"},
      {"-7", Node::Kind::kNumber, "-7"},
      {"+7", Node::Kind::kNumber, "7"},
      {"0x1F", Node::Kind::kNumber, "31"},
      {"0o17", Node::Kind::kNumber, "15"},
      {"017", Node::Kind::kNumber, "15"},
      {"0b101", Node::Kind::kNumber, "5"},
      {"1.5", Node::Kind::kNumber, "1.5"},
      {".5", Node::Kind::kNumber, "0.5"},
      {"1.", Node::Kind::kNumber, "1.0"},
      {"1e3", Node::Kind::kNumber, "1e3"},
      {"500m", Node::Kind::kString, "500m"},
      {"1Gi", Node::Kind::kString, "1Gi"},
      {"busybox", Node::Kind::kString, "busybox"},
      // Too big for int64: go-yaml v2 falls back to a float, still a number.
      {"99999999999999999999", Node::Kind::kNumber, "99999999999999999999"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Node n = ResolvePlainScalar(c.text);
    EXPECT_EQ(n.kind, c.kind);
    EXPECT_EQ(n.scalar, c.scalar);
    EXPECT_TRUE(n.yaml_plain);
  }
}

TEST(YamlCodec, QuotedScalarsStayStrings) {
  auto docs = ParseYamlStream("a: \"1\"\nb: '2'\nc: 3\nd: !!str 4\n");
  ASSERT_TRUE(docs);
  const Node& n = (*docs)[0].node;
  EXPECT_EQ(n.Find("a")->kind, Node::Kind::kString);
  EXPECT_EQ(n.Find("b")->kind, Node::Kind::kString);
  EXPECT_EQ(n.Find("c")->kind, Node::Kind::kNumber);
  EXPECT_EQ(n.Find("d")->kind, Node::Kind::kString);
}

TEST(YamlCodec, DuplicateKeysAreAnErrorWithTheirLine) {
  auto docs = ParseYamlStream("metadata:\n  name: a\n  name: b\n");
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.error().message, "key \"name\" already set in map");
  EXPECT_EQ(docs.error().line, 3u);
}

TEST(YamlCodec, SyntaxErrorsCarryTheirLine) {
  auto docs = ParseYamlStream("a: b\nc: [1, 2\n");
  ASSERT_FALSE(docs);
  EXPECT_GT(docs.error().line, 0u);
}

TEST(YamlCodec, MultiDocumentStreamsKeepEmptyDocumentsOut) {
  auto docs = ParseYamlStream("a: 1\n---\n---\nb: 2\n");
  ASSERT_TRUE(docs);
  int non_null = 0;
  for (const auto& d : *docs) non_null += d.node.IsNull() ? 0 : 1;
  EXPECT_EQ(non_null, 2);
}

TEST(YamlCodec, AliasExpansionIsBounded) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'h'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
    bomb += "]\n";
    prev = c;
  }
  auto docs = ParseYamlStream(bomb);
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.error().message, "document expands to too many nodes");
}

TEST(YamlCodec, EncodeRoundTripsThroughTheParser) {
  const char* text =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: \"true\"\n    b: \"1\"\n"
      "    c: 'x: y'\n    d: \"\"\n    e: \"-\"\n    f: \"line1\\nline2\"\n    g: \"#x\"\n"
      "spec:\n  containers:\n  - args:\n    - -c\n    - echo hi\n    name: c\n  list: []\n  map: "
      "{}\n";
  auto docs = ParseYamlStream(text);
  ASSERT_TRUE(docs);
  std::string encoded = EncodeYaml((*docs)[0].node);
  auto again = ParseYamlStream(encoded);
  ASSERT_TRUE(again) << encoded;
  EXPECT_EQ((*again)[0].node, (*docs)[0].node) << encoded;
  EXPECT_NE(encoded.find("  containers:\n  - args:\n    - -c\n"), std::string::npos) << encoded;
}

TEST(JsonCodec, NumbersKeepTheirLiteral) {
  auto docs = ParseJsonStream(R"({"a": 1.50, "b": -0, "c": 12345678901234567890})");
  ASSERT_TRUE(docs);
  const Node& n = (*docs)[0];
  EXPECT_EQ(n.Find("a")->scalar, "1.50");
  EXPECT_EQ(n.Find("b")->scalar, "-0");
  EXPECT_EQ(n.Find("c")->scalar, "12345678901234567890");
  EXPECT_EQ(EncodeJson(n, 0), R"({"a":1.50,"b":-0,"c":12345678901234567890})");
}

TEST(JsonCodec, StreamsOfObjectsAndErrorsWithLines) {
  auto docs = ParseJsonStream("{\"a\":1}\n{\"b\":2}");
  ASSERT_TRUE(docs);
  EXPECT_EQ(docs->size(), 2u);
  auto bad = ParseJsonStream("{\n\"a\": 1,\n}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 3u);
}

TEST(JsonCodec, DeepNestingIsRejectedNotACrash) {
  std::string deep(100000, '[');
  auto docs = ParseJsonStream(deep);
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.error().message, "nesting too deep");
}

TEST(JsonCodec, DuplicateKeysAreKeptForTheStrictDecoderToReport) {
  auto docs = ParseJsonStream(R"({"a":1,"a":2})");
  ASSERT_TRUE(docs);
  EXPECT_EQ((*docs)[0].members.size(), 2u);
}

}  // namespace
}  // namespace podlimits::api
