// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and core/v1's strategic merge
// patch, applied to stored objects.
#include "apiserver/patch.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

std::string Apply(std::string_view object, PatchType type, std::string_view patch) {
  auto doc = codec::ParseJsonStream(object);
  auto out = ApplyPatch((*doc)[0], type, patch);
  return out ? codec::EncodeJson(*out, 0) : "error: " + out.error().Message();
}

TEST(PatchTest, MergePatch) {
  struct Case {
    std::string name, object, patch, want;
  };
  const std::vector<Case> cases = {
      {"add a label", R"({"metadata":{"name":"a"}})", R"({"metadata":{"labels":{"x":"1"}}})",
       R"({"metadata":{"name":"a","labels":{"x":"1"}}})"},
      {"null removes", R"({"metadata":{"labels":{"x":"1","y":"2"}}})",
       R"({"metadata":{"labels":{"x":null}}})", R"({"metadata":{"labels":{"y":"2"}}})"},
      {"lists are replaced", R"({"a":[1,2,3]})", R"({"a":[4]})", R"({"a":[4]})"},
      {"scalars replace objects", R"({"a":{"b":1}})", R"({"a":"x"})", R"({"a":"x"})"},
      {"not an object", R"({"a":1})", R"([1])", "error: error decoding patch: not a JSON object"},
      {"not JSON", R"({"a":1})", R"({)", "error: error decoding patch: invalid JSON"},
  };
  for (const auto& c : cases) EXPECT_EQ(Apply(c.object, PatchType::kMerge, c.patch), c.want) << c.name;
}

TEST(PatchTest, JsonPatch) {
  struct Case {
    std::string name, object, patch, want;
  };
  const std::vector<Case> cases = {
      {"add", R"({"a":{}})", R"([{"op":"add","path":"/a/b","value":1}])", R"({"a":{"b":1}})"},
      {"add to a list end", R"({"a":[1]})", R"([{"op":"add","path":"/a/-","value":2}])",
       R"({"a":[1,2]})"},
      {"insert", R"({"a":[1,3]})", R"([{"op":"add","path":"/a/1","value":2}])",
       R"({"a":[1,2,3]})"},
      {"replace", R"({"a":1})", R"([{"op":"replace","path":"/a","value":2}])", R"({"a":2})"},
      {"remove", R"({"a":1,"b":2})", R"([{"op":"remove","path":"/a"}])", R"({"b":2})"},
      {"escaped key", R"({"metadata":{"labels":{"app/x":"1"}}})",
       R"([{"op":"remove","path":"/metadata/labels/app~1x"}])", R"({"metadata":{"labels":{}}})"},
      {"move", R"({"a":1})", R"([{"op":"move","from":"/a","path":"/b"}])", R"({"b":1})"},
      {"copy", R"({"a":1})", R"([{"op":"copy","from":"/a","path":"/b"}])", R"({"a":1,"b":1})"},
      {"test passes", R"({"a":1})",
       R"([{"op":"test","path":"/a","value":1},{"op":"replace","path":"/a","value":2}])",
       R"({"a":2})"},
      {"test fails", R"({"a":1})", R"([{"op":"test","path":"/a","value":2}])",
       "error: testing value /a failed: test failed"},
      {"remove missing", R"({"a":1})", R"([{"op":"remove","path":"/nope"}])",
       "error: unable to remove nonexistent key: nope: missing value"},
      {"replace missing", R"({"a":1})", R"([{"op":"replace","path":"/nope","value":1}])",
       "error: replace operation does not apply: doc is missing key: /nope"},
      {"unknown op", R"({"a":1})", R"([{"op":"frob","path":"/a"}])", "error: Unexpected kind: frob"},
  };
  for (const auto& c : cases) EXPECT_EQ(Apply(c.object, PatchType::kJson, c.patch), c.want) << c.name;
}

TEST(PatchTest, StrategicMergePatch) {
  struct Case {
    std::string name, object, patch, want;
  };
  const std::string pod =
      R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"}]},{"name":"b","image":"y"}]}})";
  const std::vector<Case> cases = {
      {"containers merge by name", pod, R"({"spec":{"containers":[{"name":"b","image":"z"}]}})",
       R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"}]},{"name":"b","image":"z"}]}})"},
      {"new element appended", pod, R"({"spec":{"containers":[{"name":"c","image":"w"}]}})",
       R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"}]},{"name":"b","image":"y"},{"name":"c","image":"w"}]}})"},
      {"$patch delete", pod, R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})",
       R"({"spec":{"containers":[{"name":"b","image":"y"}]}})"},
      {"nested merge by name", pod,
       R"({"spec":{"containers":[{"name":"a","env":[{"name":"F","value":"2"}]}]}})",
       R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"},{"name":"F","value":"2"}]},{"name":"b","image":"y"}]}})"},
      {"$setElementOrder ignored", R"({"metadata":{"labels":{"a":"1"}}})",
       R"({"$setElementOrder/containers":[{"name":"a"}],"metadata":{"labels":{"b":"2"}}})",
       R"({"metadata":{"labels":{"a":"1","b":"2"}}})"},
      {"map $patch replace", R"({"data":{"a":"1","b":"2"}})",
       R"({"data":{"$patch":"replace","c":"3"}})", R"({"data":{"c":"3"}})"},
      {"$retainKeys", R"({"v":{"a":1,"b":2}})", R"({"v":{"$retainKeys":["b","c"],"c":3}})",
       R"({"v":{"b":2,"c":3}})"},
      {"finalizers merge as a set", R"({"metadata":{"finalizers":["a"]}})",
       R"({"metadata":{"finalizers":["b","a"]}})", R"({"metadata":{"finalizers":["a","b"]}})"},
      {"$deleteFromPrimitiveList", R"({"metadata":{"finalizers":["a","b"]}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]}})",
       R"({"metadata":{"finalizers":["b"]}})"},
      {"atomic lists replace", R"({"spec":{"limits":[{"type":"Pod"}]}})",
       R"({"spec":{"limits":[{"type":"Container"}]}})", R"({"spec":{"limits":[{"type":"Container"}]}})"},
      {"missing merge key", pod, R"({"spec":{"containers":[{"image":"q"}]}})",
       R"(error: map: {"image":"q"} does not contain declared merge key: name)"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Apply(c.object, PatchType::kStrategic, c.patch), c.want) << c.name;
  }
}

TEST(PatchTest, ContentTypes) {
  EXPECT_EQ(PatchTypeOf("application/merge-patch+json"), PatchType::kMerge);
  EXPECT_EQ(PatchTypeOf("application/json-patch+json"), PatchType::kJson);
  EXPECT_EQ(PatchTypeOf("application/strategic-merge-patch+json; charset=utf-8"),
            PatchType::kStrategic);
  EXPECT_EQ(PatchTypeOf("application/apply-patch+yaml"), std::nullopt);
}

}  // namespace
}  // namespace podlimits::apiserver
