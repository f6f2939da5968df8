// Members<kKeys> (api/member_lookup.h), the one-pass lookup of a typed view: for every object it
// must answer exactly as a Node::Find per key does (the first of repeated keys, nothing for a
// key that is absent or for a node that is not an object).
#include "api/member_lookup.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace podlimits::api {
namespace {

constexpr KeyList kKeys{std::to_array<std::string_view>({"name", "image", "nome", "tty"})};

codec::Node ObjectOf(const std::vector<std::pair<std::string, std::string>>& members) {
  codec::Node object = codec::Node::Object();
  // Appended as decoded: a repeated key stays repeated, which Node::Set would not allow.
  for (const auto& [key, value] : members) object.members.push_back({key, codec::Node::String(value)});
  return object;
}

TEST(MembersTest, AnswersAsFindDoesForEveryKey) {
  struct Case {
    const char* what;
    codec::Node object;
  } cases[] = {
      {"empty object", codec::Node::Object()},
      {"every key", ObjectOf({{"name", "a"}, {"image", "b"}, {"nome", "c"}, {"tty", "d"}})},
      {"others only", ObjectOf({{"args", "x"}, {"env", "y"}})},
      {"mixed, out of list order", ObjectOf({{"tty", "1"}, {"args", "x"}, {"name", "n"}})},
      {"repeated key: the first",
       ObjectOf({{"name", "first"}, {"image", "i"}, {"name", "second"}})},
      {"names that share length and first byte", ObjectOf({{"nome", "o"}, {"name", "a"}})},
      {"a member with the empty key", ObjectOf({{"", "empty"}, {"name", "n"}})},
      {"a string, not an object", codec::Node::String("name")},
      {"null", codec::Node::Null()},
  };
  for (const Case& c : cases) {
    const Members<kKeys> f(c.object);
    const std::pair<const char*, const codec::Node*> got[] = {
        {"name", f["name"]}, {"image", f["image"]}, {"nome", f["nome"]}, {"tty", f["tty"]}};
    for (const auto& [key, node] : got) {
      EXPECT_EQ(node, c.object.Find(key)) << c.what << ": key '" << key << "'";
    }
  }
}

TEST(MembersTest, PointsIntoTheObject) {
  codec::Node object = ObjectOf({{"image", "busybox"}, {"name", "app"}});
  const Members<kKeys> f(object);
  ASSERT_NE(f["image"], nullptr);
  EXPECT_EQ(f["image"], &object.members[0].value);
  EXPECT_EQ(f["name"]->scalar, "app");
  EXPECT_EQ(f["tty"], nullptr);
}

}  // namespace
}  // namespace podlimits::api
