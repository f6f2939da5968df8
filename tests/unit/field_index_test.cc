// The schema's field index: every name found at its position, absent names not, the first of a
// repeated name kept (as the unordered_map it replaced kept it). And SameKey, the key comparison
// it shares with Node::Find and Node::Erase.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/schema.h"

namespace podlimits::api {
namespace {

TEST(SameKey, EqualOnlyWhenLengthAndEveryByteAgree) {
  struct Case {
    std::string_view a, b;
    bool same;
  } cases[] = {
      {"", "", true},
      {"a", "a", true},
      {"name", "name", true},
      {"", "a", false},
      {"a", "", false},
      {"a", "b", false},
      {"name", "nome", false},  // the first byte agrees, a later one does not
      {"name", "game", false},  // only the first byte differs
      {"name", "names", false},
      {"names", "name", false},
      {std::string_view("a\0b", 3), std::string_view("a\0c", 3), false},  // bytes after a NUL count
      {std::string_view("a\0b", 3), std::string_view("a\0b", 3), true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(codec::SameKey(c.a, c.b), c.same) << "'" << c.a << "' vs '" << c.b << "'";
  }
  // Node::Find and Node::Erase go through it.
  codec::Node object = codec::Node::Object();
  object.Set("name", codec::Node::String("x"));
  object.Set("nome", codec::Node::String("y"));
  ASSERT_NE(object.Find("nome"), nullptr);
  EXPECT_EQ(object.Find("nome")->scalar, "y");
  EXPECT_EQ(object.Find("nam"), nullptr);
  EXPECT_FALSE(object.Erase("game"));
  EXPECT_TRUE(object.Erase("name"));
  EXPECT_EQ(object.Find("name"), nullptr);
  EXPECT_NE(object.Find("nome"), nullptr);
}

TEST(FieldIndex, FindsEveryNameAndNothingElse) {
  // Enough names for several table sizes, many sharing a length and first and last letters.
  std::vector<std::string> storage;
  for (int i = 0; i < 300; ++i) storage.push_back("f" + std::to_string(i) + "x");
  storage.push_back("name");
  storage.push_back("nome");
  storage.push_back("a");
  std::vector<std::string_view> names(storage.begin(), storage.end());
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                        std::size_t{7}, std::size_t{64}, names.size()}) {
    FieldIndex index;
    std::vector<std::string_view> some(names.end() - static_cast<std::ptrdiff_t>(n), names.end());
    index.Build(some);
    for (std::size_t i = 0; i < some.size(); ++i) EXPECT_EQ(index.Find(some[i]), i) << some[i];
    for (std::string_view absent : {"", "nam", "names", "f1y", "b", "f300x0"}) {
      EXPECT_EQ(index.Find(absent), FieldIndex::kAbsent) << absent << " among " << n;
    }
  }
  FieldIndex empty;
  EXPECT_EQ(empty.Find("name"), FieldIndex::kAbsent);  // never built
}

TEST(FieldIndex, TheFirstOfARepeatedNameWins) {
  FieldIndex index;
  index.Build({"a", "b", "a", ""});
  EXPECT_EQ(index.Find("a"), 0u);
  EXPECT_EQ(index.Find("b"), 1u);
  EXPECT_EQ(index.Find(""), FieldIndex::kAbsent);
}

TEST(FieldIndex, TheSchemasTypesFindTheirOwnFields) {
  const TypeDef* pod_spec = Schema::Objects().Type("io.k8s.api.core.v1.PodSpec");
  ASSERT_NE(pod_spec, nullptr);
  for (std::size_t i = 0; i < pod_spec->fields.size(); ++i) {
    const FieldDef* found = pod_spec->Field(pod_spec->fields[i].name);
    ASSERT_NE(found, nullptr) << pod_spec->fields[i].name;
    EXPECT_EQ(found, &pod_spec->fields[i]);
  }
  EXPECT_EQ(pod_spec->Field("containerz"), nullptr);
}

}  // namespace
}  // namespace podlimits::api
