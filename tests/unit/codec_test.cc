#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <thread>

#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "codec/yaml_resolve.h"

namespace podlimits::codec {
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
      // Floats become float64s, written as encoding/json writes them.
      {"1.", Node::Kind::kNumber, "1"},
      {"1e3", Node::Kind::kNumber, "1000"},
      {"0999", Node::Kind::kNumber, "999"},
      {"-00.5", Node::Kind::kNumber, "-0.5"},
      {"+.5", Node::Kind::kNumber, "0.5"},
      {"0.5", Node::Kind::kNumber, "0.5"},
      {"0e5", Node::Kind::kNumber, "0"},
      {"-0.0", Node::Kind::kNumber, "-0"},
      {"-0", Node::Kind::kNumber, "0"},
      {"1.5e-7", Node::Kind::kNumber, "1.5e-7"},
      {"1e21", Node::Kind::kNumber, "1e+21"},
      {"123456789.125", Node::Kind::kNumber, "123456789.125"},
      {"0.1", Node::Kind::kNumber, "0.1"},
      // Out of float64's range: Go's ParseFloat fails and go-yaml keeps the string.
      {"1e400", Node::Kind::kString, "1e400"},
      {".inf", Node::Kind::kNumber, "+Inf"},
      {"-.Inf", Node::Kind::kNumber, "-Inf"},
      {".NaN", Node::Kind::kNumber, "NaN"},
      {"9223372036854775807", Node::Kind::kNumber, "9223372036854775807"},
      {"-9223372036854775808", Node::Kind::kNumber, "-9223372036854775808"},
      {"18446744073709551615", Node::Kind::kNumber, "18446744073709551615"},
      // go-yaml v2 drops '_' before trying numbers, when the scalar could start one.
      {"1_000", Node::Kind::kNumber, "1000"},
      {"0x_1F", Node::Kind::kNumber, "31"},
      {"1_0.5", Node::Kind::kNumber, "10.5"},
      {"_1", Node::Kind::kString, "_1"},
      {"-", Node::Kind::kString, "-"},
      {"2001-12-14", Node::Kind::kString, "2001-12-14"},
      {"500m", Node::Kind::kString, "500m"},
      {"1Gi", Node::Kind::kString, "1Gi"},
      {"busybox", Node::Kind::kString, "busybox"},
      // Strings by their first character alone, and those whose first character could start
      // another form.
      {"RLIMIT_NOFILE", Node::Kind::kString, "RLIMIT_NOFILE"},
      {"x", Node::Kind::kString, "x"},
      {"\xC3\xB1", Node::Kind::kString, "\xC3\xB1"},
      {"open", Node::Kind::kString, "open"},
      {"Nullable", Node::Kind::kString, "Nullable"},
      {"~x", Node::Kind::kString, "~x"},
      {"yesterday", Node::Kind::kString, "yesterday"},
      {"trueish", Node::Kind::kString, "trueish"},
      // Too big for int64 and uint64: go-yaml v2 falls back to a float.
      {"99999999999999999999", Node::Kind::kNumber, "100000000000000000000"},
      {"-9223372036854775809", Node::Kind::kNumber, "-9223372036854776000"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    Node n = ResolvePlainScalar(c.text);
    EXPECT_EQ(n.kind, c.kind);
    EXPECT_EQ(n.scalar, c.scalar);
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

TEST(YamlCodec, DuplicateKeysStayForStrictDecodingToReport) {
  auto docs = ParseYamlStream("metadata:\n  name: a\n  name: b\n");
  ASSERT_TRUE(docs);
  const Node& meta = *(*docs)[0].node.Find("metadata");
  ASSERT_EQ(meta.members.size(), 2u);
  EXPECT_EQ(meta.members[1].value.line, 3u);
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
  EXPECT_EQ(docs.error().message, "document contains excessive aliasing");
}

// libyaml's problem strings are go-yaml v2's, so kubectl users see the words they know.
TEST(YamlCodec, SyntaxErrorsUseGoYamlsWordsAndLines) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
    std::uint32_t line;
  };
  const Case cases[] = {
      {"stray flow entry (yaml-cpp 0.7 looped forever on it)", ",", "did not find expected node content", 1},
      {"flow entry after a comment", "# c\n,,,,\n", "did not find expected node content", 2},
      {"unclosed flow sequence", "a: b\nc: [1, 2\n", "did not find expected ',' or ']'", 3},
      {"mapping value in a plain scalar", "a: b: c\n", "mapping values are not allowed in this context", 1},
      {"tab indentation", "a:\n\tb: c\n", "found character that cannot start any token", 2},
      {"invalid UTF-8 lead byte", "a: 1\nname: neg\x92x\n", "invalid leading UTF-8 octet", 2},
      {"truncated UTF-8", "name: \xE2\x82", "incomplete UTF-8 octet sequence", 1},
      {"NUL byte", std::string("a: b\0c\n", 7), "control characters are not allowed", 1},
      {"unknown alias", "a: *x\n", "unknown anchor 'x' referenced", 1},
      {"recursive alias", "a: &x [1, *x]\n", "anchor 'x' value contains itself", 1},
      {"sequence as key", "? [a]\n: b\n", "mapping key is not a string", 1},
      {".inf as a value", "a: .inf\n", "json: unsupported value: +Inf", 1},
      {"merge of a scalar", "a: &s x\nb: {<<: *s}\n", "map merge requires map or sequence of maps as the value", 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = ParseYamlStream(c.text);
    ASSERT_FALSE(docs);
    EXPECT_EQ(docs.error().message, c.message);
    EXPECT_EQ(docs.error().line, c.line);
  }
}

TEST(YamlCodec, DescribeYamlErrorReadsLikeGoYaml) {
  EXPECT_EQ(DescribeYamlError({"did not find expected key", 3}), "yaml: line 3: did not find expected key");
  EXPECT_EQ(DescribeYamlError({"invalid leading UTF-8 octet", 0}), "yaml: invalid leading UTF-8 octet");
}

TEST(YamlCodec, AnchorsAliasesAndMergeKeys) {
  auto docs = ParseYamlStream(
      "base: &base {cpu: 1, memory: 1Gi}\n"
      "small: {<<: *base, cpu: 500m}\n"
      "first: {cpu: 2, <<: *base}\n"
      "many: {<<: [{a: 1}, {a: 2, b: 2}]}\n"
      "copy: *base\n"
      "quoted: {\"<<\": x}\n");
  ASSERT_TRUE(docs) << docs.error().message;
  const Node& n = (*docs)[0].node;
  EXPECT_EQ(n.FindPath({"small", "cpu"})->scalar, "500m");
  EXPECT_EQ(n.FindPath({"small", "memory"})->scalar, "1Gi");
  EXPECT_EQ(n.FindPath({"first", "cpu"})->scalar, "2");
  EXPECT_EQ(n.FindPath({"many", "a"})->scalar, "1");
  EXPECT_EQ(n.FindPath({"many", "b"})->scalar, "2");
  EXPECT_EQ(*n.Find("copy"), *n.Find("base"));
  // A quoted "<<" is an ordinary key.
  EXPECT_EQ(n.FindPath({"quoted", "<<"})->scalar, "x");
  // A key written twice stays twice, for strict decoding to report.
  auto dup = ParseYamlStream("a: {<<: {x: 1}, x: 2, z: 1, z: 2}\n");
  ASSERT_TRUE(dup);
  const Node& a = *(*dup)[0].node.Find("a");
  ASSERT_EQ(a.members.size(), 3u);
  EXPECT_EQ(a.members[0].key, "x");
  EXPECT_EQ(a.members[0].value.scalar, "2");
  EXPECT_EQ(a.members[1].key, "z");
  EXPECT_EQ(a.members[2].key, "z");
}

TEST(YamlCodec, KeysAreTheTextOfTheirResolvedScalar) {
  auto docs = ParseYamlStream(
      "on: 1\n0x10: a\n\"yes\": c\n1e6: d\n1.50: e\n.inf: f\n0.0001: g\n1_0: h\n&k 7: i\nj: {*k: j}\n");
  ASSERT_TRUE(docs) << docs.error().message;
  const Node& n = (*docs)[0].node;
  std::vector<std::string> keys;
  for (const auto& m : n.members) keys.push_back(m.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"true", "16", "yes", "1e+06", "1.5", ".inf", "0.0001",
                                            "10", "7", "j"}));
  EXPECT_EQ(n.FindPath({"j", "7"})->scalar, "j");
  // A null key has no JSON form.
  auto null_key = ParseYamlStream("a: 1\n~: b\n");
  ASSERT_FALSE(null_key);
  EXPECT_EQ(DescribeYamlError(null_key.error()), "mapping key is null (line 2)");
}

TEST(YamlCodec, EveryStringSurvivesEmitAndParse) {
  const std::string strings[] = {
      "plain", "", " lead", "trail ", "a: b", "#x", "- x", "-x", "--", "<<", "yes", "0999",
      "1_000", "\t", "\x01\x7f", "nel\xC2\x85x", "ls\xE2\x80\xA8x", "bom\xEF\xBB\xBFx",
      "c1\xC2\x9Fx", "\xEF\xBF\xBE", "emoji \xF0\x9F\x98\x80", "caf\xC3\xA9", std::string("nul\0x", 5),
      "quote\"back\\slash", "line\nbreak", "...", "---x", "{a}", "[a]", "a,b", "%x", "@x", "`x",
  };
  for (const auto& s : strings) {
    SCOPED_TRACE(s);
    Node doc = Node::Object();
    doc.Set(s, Node::String(s));
    std::string text = EncodeYaml(doc);
    auto again = ParseYamlStream(text);
    ASSERT_TRUE(again) << text << again.error().message;
    ASSERT_EQ((*again).size(), 1u) << text;
    ASSERT_EQ((*again)[0].node.members.size(), 1u) << text;
    EXPECT_EQ((*again)[0].node.members[0].key, s) << text;
    EXPECT_EQ((*again)[0].node.members[0].value.scalar, s) << text;
  }
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

TEST(JsonCodec, AValueCapCountsEveryValue) {
  struct Case {
    std::string name, text;
    std::size_t cap;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"no cap", "[0,0,0,0]", 0, true},
      {"exactly the cap: the array and its four items", "[0,0,0,0]", 5, true},
      {"one over", "[0,0,0,0]", 4, false},
      {"keys are not values", R"({"a":1,"b":2})", 3, true},
      {"nested containers count", "[[[]]]", 2, false},
      {"every document of a stream counts", "{} {} {}", 2, false},
  };
  for (const auto& c : cases) {
    auto got = ParseJsonStream(c.text, c.cap);
    EXPECT_EQ(got.has_value(), c.ok) << c.name;
    if (!c.ok && !got) {
      EXPECT_EQ(got.error().message, "more than " + std::to_string(c.cap) + " values") << c.name;
    }
  }
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

TEST(JsonCodec, Utf8IsValidatedWhereTheTextIsNotAscii) {
  // ASCII text skips rapidjson's validation (it cannot be invalid); anything else is checked.
  auto ok = ParseJsonStream("{\"name\":\"caf\xc3\xa9\"}");
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)[0].Find("name")->scalar, "caf\xc3\xa9");
  auto bad = ParseJsonStream("{\"name\":\"neg\x92x\"}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "Invalid encoding in string.");
  auto escaped = ParseJsonStream(R"({"name":"\ud800"})");  // a lone surrogate, in ASCII text
  EXPECT_FALSE(escaped);
}

TEST(JsonCodec, StreamsOfObjectsAndErrorsWithLines) {
  auto docs = ParseJsonStream("{\"a\":1}\n{\"b\":2}");
  ASSERT_TRUE(docs);
  EXPECT_EQ(docs->size(), 2u);
  auto bad = ParseJsonStream("{\n\"a\": 1,\n}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 3u);
}

// The parser keeps its scratch per thread between parses: what one parse leaves there (a large
// list, a syntax error half way) must not show in the next, in this thread or another.
TEST(JsonCodec, ParsesAfterALargeOrFailedParseAreUnaffected) {
  std::string big = "[";
  for (int i = 0; i < 10000; ++i) {
    big += std::string(i ? "," : "") + "{\"i\":" + std::to_string(i) + "}";
  }
  big += "]";
  auto large = ParseJsonStream(big);
  ASSERT_TRUE(large);
  ASSERT_EQ((*large)[0].items.size(), 10000u);
  EXPECT_EQ((*large)[0].items[9999].Find("i")->scalar, "9999");
  EXPECT_FALSE(ParseJsonStream(R"({"a": [1, 2, {"b": )"));
  auto small = ParseJsonStream(R"({"c": [3], "d": {"e": "f"}})");
  ASSERT_TRUE(small);
  ASSERT_EQ(small->size(), 1u);
  EXPECT_EQ(EncodeJson((*small)[0], 0), R"({"c":[3],"d":{"e":"f"}})");
  std::string other;
  std::thread([&] {
    auto parsed = ParseJsonStream(R"({"g": "\u00e9"} {"h": null})");
    if (parsed && parsed->size() == 2) other = EncodeJson((*parsed)[0], 0);
  }).join();
  EXPECT_EQ(other, "{\"g\":\"\xC3\xA9\"}");
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

// The builder fills each container from scratch space shared by its depth: siblings, nesting
// and later documents of a stream must not see each other's children.
TEST(JsonCodec, ContainersRoundTripThroughTheBuilder) {
  const char* cases[] = {
      R"({})",
      R"([])",
      R"({"a":{},"b":[],"c":null})",
      R"({"a":{"x":1,"y":{"z":[1,{"k":"v"},[]]}},"b":{"x":2},"c":[{"p":true},{"q":false}]})",
      R"([[1,2],[3,[4,[5]]],{"a":[6]},7])",
      R"({"items":[{"kind":"Pod","metadata":{"name":"a"}},{"kind":"Pod","metadata":{"name":"b"}}]})",
  };
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    std::string stream = std::string(text) + "\n" + text + " " + text;
    auto docs = ParseJsonStream(stream);
    ASSERT_TRUE(docs);
    ASSERT_EQ(docs->size(), 3u);
    for (const Node& doc : *docs) EXPECT_EQ(EncodeJson(doc, 0), text);
  }
}

std::string WrittenBy(const std::function<void(PrettyJsonWriter&)>& write) {
  std::FILE* f = std::tmpfile();
  {
    PrettyJsonWriter w(f, 4);
    write(w);
  }
  std::string out(static_cast<std::size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  out.resize(std::fread(out.data(), 1, out.size(), f));
  std::fclose(f);
  return out;
}

TEST(PrettyJsonWriter, WritesTheBytesOfEncodeJson) {
  const char* cases[] = {
      R"("s")",
      R"({})",
      R"({"a":[],"b":{},"c":[1,"x",true,null,{"d":-0.50}],"e":"\u00e9\n\""})",
  };
  for (const char* text : cases) {
    SCOPED_TRACE(text);
    auto docs = ParseJsonStream(text);
    ASSERT_TRUE(docs);
    const Node& n = (*docs)[0];
    EXPECT_EQ(WrittenBy([&](PrettyJsonWriter& w) { w.Value(n); }), EncodeJson(n, 4));
  }
}

TEST(PrettyJsonWriter, StreamedListEqualsTheEncodedTree) {
  auto docs = ParseJsonStream(R"({"kind":"List","items":[{"a":1},{"b":[2]}],"metadata":{}})");
  ASSERT_TRUE(docs);
  const Node& list = (*docs)[0];
  std::string streamed = WrittenBy([&](PrettyJsonWriter& w) {
    w.StartObject();
    w.Key("kind");
    w.Value(*list.Find("kind"));
    w.Key("items");
    w.StartArray();
    for (const Node& item : list.Find("items")->items) w.Value(item);
    w.EndArray();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.EndObject();
  });
  EXPECT_EQ(streamed, EncodeJson(list, 4));
}

}  // namespace
}  // namespace podlimits::codec

namespace podlimits::codec {
namespace {

TEST(JsonEncodeTest, InvalidUtf8BecomesReplacementCharactersAsGoWritesIt) {
  Node n = Node::Object();
  n.Set("bad\xff", Node::String(std::string("a\xae" "b\xe2\x82", 5)));
  n.Set("ok", Node::String("caf\xc3\xa9"));
  EXPECT_EQ(EncodeJson(n, 0), "{\"bad\xEF\xBF\xBD\":\"a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD\",\"ok\":\"caf\xc3\xa9\"}");
  EXPECT_TRUE(ParseJsonStream(EncodeJson(n, 0)));
}

}  // namespace
}  // namespace podlimits::codec
