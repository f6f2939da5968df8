// generateName → metadata.name, as the apiserver's SimpleNameGenerator picks it.
#include "api/name_generator.h"

#include <gtest/gtest.h>

#include <set>

#include "api/decode.h"

namespace podlimits::api {
namespace {

bool FromAlphabet(std::string_view suffix) {
  return suffix.find_first_not_of(kGeneratedNameAlphabet) == std::string_view::npos;
}

TEST(NameGenerator, BaseAndFiveCharacters) {
  struct Case {
    std::string name;
    std::string base;
    std::string kept;  // the part of base the name starts with
  };
  const std::string long_base(70, 'a');
  const std::vector<Case> cases = {
      {"short base kept whole", "web-", "web-"},
      {"empty base", "", ""},
      {"base of exactly 58 bytes kept", std::string(58, 'b'), std::string(58, 'b')},
      {"longer base cut to 58 bytes, so the name fits 63", long_base, long_base.substr(0, 58)},
  };
  NameGenerator generator(7);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string name = generator.GenerateName(c.base);
    ASSERT_EQ(name.size(), c.kept.size() + 5);
    EXPECT_EQ(name.substr(0, c.kept.size()), c.kept);
    EXPECT_TRUE(FromAlphabet(name.substr(c.kept.size()))) << name;
  }
}

TEST(NameGenerator, SeededIsReproducible) {
  NameGenerator a(42), b(42), c(43);
  std::vector<std::string> from_a, from_b, from_c;
  for (int i = 0; i < 5; ++i) {
    from_a.push_back(a.GenerateName("web-"));
    from_b.push_back(b.GenerateName("web-"));
    from_c.push_back(c.GenerateName("web-"));
  }
  EXPECT_EQ(from_a, from_b);
  EXPECT_NE(from_a, from_c);
  // Pinned: mt19937_64 is specified by the standard, so a seed names the same everywhere
  // (the golden examples rely on it).
  EXPECT_EQ(NameGenerator(1).GenerateName("web-"), "web-2rls4");
}

TEST(NameGenerator, EveryLetterOfTheAlphabetIsUsed) {
  NameGenerator generator(3);
  std::set<char> seen;
  for (int i = 0; i < 400; ++i) {
    for (char ch : generator.GenerateName("")) seen.insert(ch);
  }
  EXPECT_EQ(seen.size(), kGeneratedNameAlphabet.size());
  NameGenerator unseeded;
  EXPECT_TRUE(FromAlphabet(unseeded.GenerateName("")));
}

TEST(NameGenerator, GenerateObjectName) {
  struct Case {
    std::string name;
    std::string metadata;  // YAML flow mapping
    bool generated;
    std::string name_prefix;  // the name after the call starts with this
  };
  const std::vector<Case> cases = {
      {"generateName only", "{generateName: web-}", true, "web-"},
      {"empty name counts as unset", "{name: \"\", generateName: web-}", true, "web-"},
      {"a name wins over generateName", "{name: web, generateName: web-}", false, "web"},
      {"neither", "{namespace: x}", false, ""},
      {"empty generateName", "{generateName: \"\"}", false, ""},
  };
  NameGenerator generator(1);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto decoded = DecodeManifests(
        "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: " + c.metadata + "\nspec: {}\n");
    ASSERT_EQ(decoded.size(), 1u);
    auto* obj = std::get_if<DecodedObject>(&decoded[0]);
    ASSERT_NE(obj, nullptr);
    EXPECT_EQ(GenerateObjectName(obj->tree, generator), c.generated);
    const codec::Node* name = obj->tree.FindPath({"metadata", "name"});
    std::string value = name ? name->scalar : "";
    EXPECT_EQ(value.substr(0, c.name_prefix.size()), c.name_prefix);
    EXPECT_EQ(value.size(), c.generated ? c.name_prefix.size() + 5 : c.name_prefix.size());
  }
}

}  // namespace
}  // namespace podlimits::api
