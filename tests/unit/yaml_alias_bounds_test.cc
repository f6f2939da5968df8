// The YAML decoder's bounds on what anchors and aliases may produce (issue 29): the bytes their
// copies allocate, at most 64 per byte of the text or 256 KiB, whichever is more, and the depth
// an alias reaches, at most 256 nested mappings and sequences like any other node; and merges
// that take time linear in what they merge. The alias bombs that took `podlimits webhook` and
// `podlimits serve` down are refused, through the decoder and through the two places that met
// them: a ulimits annotation and a YAML body.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "codec/yaml_codec.h"
#include "rest_handler_fixture.h"
#include "webhook/admission_review.h"

namespace podlimits::codec {
namespace {

using ::testing::HasSubstr;

std::string Repeat(std::string_view unit, int times, std::string_view separator = ",") {
  std::string out;
  for (int i = 0; i < times; ++i) {
    if (i > 0) out += separator;
    out += unit;
  }
  return out;
}

// The ulimit annotation's list with one big scalar aliased `aliases` times, on one line: the
// shape of the 62 KB review that got the webhook OOM-killed under 128 MiB.
std::string AliasedScalarList(int scalar_bytes, int aliases) {
  return "- {type: &a " + std::string(scalar_bytes, 'x') + ", soft: [" + Repeat("*a", aliases) +
         "]}\n";
}

// `count` members "k0: VALUE", "k1: VALUE", ... of a flow mapping.
std::string Members(int count, std::string_view value) {
  std::string out;
  for (int i = 0; i < count; ++i) out += fmt::format("{}k{}: {}", i ? ", " : "", i, value);
  return out;
}

// `depth` nested sequences around `inner`.
std::string Nested(int depth, std::string_view inner = "") {
  return std::string(depth, '[') + std::string(inner) + std::string(depth, ']');
}

struct Refusal {
  const char* name;
  std::string text;
  std::string message;  // as DescribeYamlError words it
};

TEST(YamlAliasBounds, BombsAreRefusedWithGoYamlsMessageAndTheirLine) {
  const Refusal cases[] = {
      // 4,000 copies of 50 KB: 200 MB from 62 KB.
      {"the 62 KB annotation", AliasedScalarList(50'000, 4'000),
       "yaml: line 1: document contains excessive aliasing"},
      // 36,000 copies: 1.8 GB from 158 KB.
      {"the 160 KB annotation", AliasedScalarList(50'000, 36'000),
       "yaml: line 1: document contains excessive aliasing"},
      // 78,030 bytes may copy 4,993,920; the anchor's copy is 100,090 (the scalar, and its text
      // for when an alias of it is a key), every alias 50,089: the 98th goes over.
      {"in block style, the line of the alias that went over",
       "- type: &a " + std::string(50'000, 'x') + "\n  hard: 1\n  soft:\n" +
           Repeat("  - *a\n", 4'000, ""),
       "yaml: line 101: document contains excessive aliasing"},
      // Few nodes, many bytes: what the node count alone let through.
      {"a big mapping aliased",
       "a: &a {" + Members(500, std::string(100, 'v')) + "}\nb: [" + Repeat("*a", 2'000) + "]\n",
       "yaml: line 2: document contains excessive aliasing"},
      // Each `<<` copies the mapping it merges, as an alias does.
      {"merge keys",
       "base: &b {" + Members(200, std::string(100, 'v')) + "}\nall: [" +
           Repeat("{<<: *b}", 2'000) + "]\n",
       "yaml: line 2: document contains excessive aliasing"},
      // An alias as a key copies the key's text (1,001 bytes here; libyaml takes no implicit key
      // over 1,024 characters).
      {"aliases as keys",
       "a: {&k " + std::string(1'000, 'k') + ": 0}\nb: [" + Repeat("{*k: 0}", 4'000) + "]\n",
       "yaml: line 2: document contains excessive aliasing"},
      // Every anchor keeps a copy of its node for the aliases that may follow: nested anchors
      // copy what they share once per level, with no alias at all.
      {"nested anchors",
       [] {
         std::string s;
         for (int i = 0; i < 200; ++i) s += fmt::format("&a{} [", i);
         return s + std::string(50'000, 'x') + std::string(200, ']') + "\n";
       }(),
       "yaml: line 1: document contains excessive aliasing"},
      // The copies of a stream's documents add up: all of them are kept. 609,476 bytes may copy
      // 39,006,464; a document copies 2,048,990: the 20th's second alias goes over.
      {"across the documents of a stream",
       Repeat("a: &a " + std::string(20'000, 'x') + "\nb: [" + Repeat("*a", 100) + "]\n", 30,
              "---\n"),
       "yaml: line 59: document contains excessive aliasing"},
      // The billion laughs: 10^7 nodes from 294 bytes. Stopped by the bytes (at the floor, 256
      // KiB) long before the count: `c` holds 1,111 nodes, the first alias of it goes over.
      {"billion laughs",
       [] {
         std::string s = "a: &a [" + Repeat("x", 10) + "]\n";
         for (char c = 'b'; c <= 'h'; ++c) {
           s += fmt::format("{}: &{} [{}]\n", c, c, Repeat(fmt::format("*{}", char(c - 1)), 10));
         }
         return s;
       }(),
       "yaml: line 4: document contains excessive aliasing"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = ParseYamlStream(c.text);
    ASSERT_FALSE(docs);
    EXPECT_EQ(DescribeYamlError(docs.error()), c.message);
  }
}

struct Accepted {
  const char* name;
  std::string text;
  std::vector<std::string> path;  // a node of the first document
  std::string scalar;             // its value
};

TEST(YamlAliasBounds, OrdinaryAnchorsAreAccepted) {
  // A pod whose containers share their resources and environment: what anchors are for.
  std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n"
      "  - name: c0\n    image: busybox\n"
      "    resources: &res\n"
      "      {limits: {cpu: 500m, memory: 128Mi, pid: '1024'}, requests: {cpu: 100m}}\n"
      "    env: &env [{name: A, value: a}, {name: B, value: b}, {name: C, value: c}]\n";
  for (int i = 1; i < 20; ++i) {
    pod += fmt::format("  - {{name: c{}, image: busybox, resources: *res, env: *env}}\n", i);
  }
  const Accepted cases[] = {
      {"a pod's containers sharing resources and env", pod, {"spec", "containers"}, ""},
      // The anchor's copy 2,090 bytes, 150 aliases of 1,089: 165,440 bytes from 1,462, over 64
      // times the text but within the floor.
      {"a small document under the floor",
       "a: &a " + std::string(1'000, 'x') + "\nb: [" + Repeat("*a", 150) + "]\n",
       {"a"},
       std::string(1'000, 'x')},
      // An anchor on a whole dense document: its copy costs 60 bytes per byte of the text (a
      // 120-byte Member for every `a,`), within the 64 a byte may copy.
      {"one anchor on a dense document", "&r {" + Repeat("a", 100'000) + "}\n", {}, ""},
      {"a merge of a big mapping",
       "base: &b {" + Members(200, std::string(100, 'v')) + "}\nall: [" +
           Repeat("{<<: *b, x: 1}", 20) + "]\n",
       {"base", "k199"},
       std::string(100, 'v')},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = ParseYamlStream(c.text);
    ASSERT_TRUE(docs) << DescribeYamlError(docs.error());
    const Node* n = &(*docs)[0].node;
    for (const auto& key : c.path) n = n->Find(key);
    ASSERT_NE(n, nullptr);
    if (!c.scalar.empty()) {
      EXPECT_EQ(n->scalar, c.scalar);
    }
  }
  // The containers came out whole.
  auto docs = ParseYamlStream(pod);
  ASSERT_TRUE(docs);
  const Node& containers = *(*docs)[0].node.FindPath({"spec", "containers"});
  ASSERT_EQ(containers.items.size(), 20u);
  EXPECT_EQ(containers.items[19].FindPath({"resources", "limits", "pid"})->scalar, "1024");
  EXPECT_EQ(containers.items[19].Find("env")->items[2].Find("value")->scalar, "c");
  // Merged keys and the mapping's own.
  auto merged = ParseYamlStream("base: &b {a: 1, b: 2}\nall: [{<<: *b, b: 3}, {<<: *b}]\n");
  ASSERT_TRUE(merged);
  const Node& all = *(*merged)[0].node.Find("all");
  EXPECT_EQ(all.items[0].Find("a")->scalar, "1");
  EXPECT_EQ(all.items[0].Find("b")->scalar, "3");
  EXPECT_EQ(all.items[1].Find("b")->scalar, "2");
}

TEST(YamlAliasBounds, TheFloorIsForSmallDocumentsOnly) {
  // The anchor's copy 2,090 bytes, an alias 1,089. 150 aliases: 165,440 bytes from 1,462
  // (64 times that is 93,568), within 256 KiB; 400 aliases: 437,690 from 2,212 (141,568),
  // beyond both: the 239th alias goes over.
  const auto text = [](int aliases) {
    return "a: &a " + std::string(1'000, 'x') + "\nb: [" + Repeat("*a", aliases) + "]\n";
  };
  EXPECT_TRUE(ParseYamlStream(text(150)));
  auto over = ParseYamlStream(text(400));
  ASSERT_FALSE(over);
  EXPECT_EQ(DescribeYamlError(over.error()), "yaml: line 2: document contains excessive aliasing");
}

TEST(YamlAliasBounds, AnAliasReachesNoDeeperThanTheText) {
  // The root mapping is one level; the anchored tree 200 more; the alias sits inside k more.
  const auto text = [](int k) { return "a: &a " + Nested(200) + "\nb: " + Nested(k, "*a") + "\n"; };
  struct Case {
    const char* name;
    std::string text;
    std::string message;  // "" when accepted
  };
  const Case cases[] = {
      {"256 levels, as many as text may nest", text(55), ""},
      {"257 levels", text(56), "yaml: line 2: exceeded max depth of 256"},
      {"a deep tree aliased at the root", "a: &a " + Nested(255) + "\nb: *a\n", ""},
      {"one level more", "a: &a " + Nested(255) + "\nb: [*a]\n",
       "yaml: line 2: exceeded max depth of 256"},
      // Chained anchors: each would add 200 levels, for the tree walkers (strict decoding, the
      // encoders, a Node's destructor) to recurse through.
      {"a chain of deep anchors",
       [] {
         std::string s = "a0: &a0 " + Nested(200) + "\n";
         for (int i = 1; i < 10; ++i) {
           s += fmt::format("a{}: &a{} {}\n", i, i, Nested(200, fmt::format("*a{}", i - 1)));
         }
         return s;
       }(),
       "yaml: line 2: exceeded max depth of 256"},
      // Written out, the same depth was refused already, with the words it had.
      {"257 levels written out", "a: " + Nested(256) + "\n",
       "yaml: line 1: document nested too deeply"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto docs = ParseYamlStream(c.text);
    if (c.message.empty()) {
      EXPECT_TRUE(docs) << DescribeYamlError(docs.error());
    } else {
      ASSERT_FALSE(docs);
      EXPECT_EQ(DescribeYamlError(docs.error()), c.message);
    }
  }
}

// A merge looks up every key it brings and every key written after it: through an index, not
// the members (searching them, this test took 2.4 s, and a 3 MB text would take a minute).
TEST(YamlAliasBounds, MergesOfBigMappingsAreLinear) {
  std::string own;
  for (int i = 0; i < 50'000; i += 2) own += fmt::format(", k{}: own", i);
  const std::string text =
      "base: &b {" + Members(50'000, "base") + "}\nmerged: {<<: *b" + own + ", k0: again}\n";
  auto docs = ParseYamlStream(text);
  ASSERT_TRUE(docs) << DescribeYamlError(docs.error());
  const Node& merged = *(*docs)[0].node.Find("merged");
  // Every key once, in the merged order, the mapping's own values over the merged ones; a key
  // written twice stays twice for strict decoding.
  ASSERT_EQ(merged.members.size(), 50'001u);
  EXPECT_EQ(merged.members[0].key, "k0");
  EXPECT_EQ(merged.members[0].value.scalar, "own");
  EXPECT_EQ(merged.members[1].value.scalar, "base");
  EXPECT_EQ(merged.members[49'998].value.scalar, "own");
  EXPECT_EQ(merged.members[49'999].value.scalar, "base");
  EXPECT_EQ(merged.members[50'000].key, "k0");
  EXPECT_EQ(merged.members[50'000].value.scalar, "again");
}

// The webhook reads a ulimits annotation as YAML: the bomb is the annotation's error, a denial
// naming it, as any malformed annotation is.
TEST(YamlAliasBounds, TheWebhookDeniesTheAnnotationsBomb) {
  for (int aliases : {4'000, 36'000}) {
    SCOPED_TRACE(aliases);
    std::string list = AliasedScalarList(50'000, aliases);
    list.pop_back();  // the newline, which JSON would have to escape
    const std::string review = fmt::format(
        R"({{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{)"
        R"("uid":"u-1","kind":{{"group":"","version":"v1","kind":"Pod"}},)"
        R"("resource":{{"group":"","version":"v1","resource":"pods"}},"namespace":"ci",)"
        R"("operation":"CREATE","userInfo":{{"username":"alice"}},"object":{{"apiVersion":"v1",)"
        R"("kind":"Pod","metadata":{{"name":"web","namespace":"ci","annotations":{{)"
        R"("ulimits.noderesource.dev/container.app":"{}"}}}},)"
        R"("spec":{{"containers":[{{"name":"app","image":"busybox"}}]}}}}}}}})",
        list);
    const webhook::ReviewAnswer a =
        webhook::AnswerReview(review, webhook::ReviewMode::kValidate, webhook::ReviewPolicy{});
    EXPECT_EQ(a.http_status, 200);
    EXPECT_THAT(a.body, HasSubstr(R"("allowed":false)"));
    EXPECT_THAT(a.body, HasSubstr(R"(metadata.annotations[ulimits.noderesource.dev/)"
                                  R"(container.app]: Invalid value: \"- {type: &a xxx)"));
    EXPECT_THAT(a.body, HasSubstr(R"(: yaml: line 1: document contains excessive aliasing)"));
  }
}

}  // namespace
}  // namespace podlimits::codec

namespace podlimits::apiserver {
namespace {

// `serve` took 130 KB of application/yaml to its death under 512 MiB: the body is a 400 with the
// decoder's message now.
TEST_F(RestHandlerTest, AYamlBodysAliasBombIsABadRequest) {
  const std::string body =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n"
      "  a: &a " +
      std::string(50'000, 'x') + "\n  b: [" + codec::Repeat("*a", 26'000) + "]\n";
  ASSERT_GT(body.size(), 128'000u);
  const http::HttpResponse r = Call("POST", "/api/v1/namespaces/default/configmaps", body,
                              "application/json", "application/yaml");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, ::testing::HasSubstr(
                          R"("message":"error parsing request: error converting YAML to JSON: )"
                          R"(yaml: line 6: document contains excessive aliasing")"));
}

}  // namespace
}  // namespace podlimits::codecserver
