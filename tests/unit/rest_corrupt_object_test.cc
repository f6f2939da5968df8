// A stored object whose bytes are damaged: every read that would send them, or build on them,
// answers the apiserver's 500 for a corrupt object, naming it; never a response that is not
// JSON, and never a list that silently leaves it out. Other objects are served as before.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/rest_handler.h"
#include "listwatch/stored_object.h"
#include "codec/json_codec.h"
#include "rest_handler_fixture.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

// What a damaged page or a stray write leaves of an object: cut in the middle.
constexpr std::string_view kCut = R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app")";

std::string CorruptStatus(std::string_view key, std::string_view problem) {
  return fmt::format(
      R"({{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":)"
      R"("Internal error occurred: StorageError: corrupt object, Code: 7, Key: {}, )"
      R"(ResourceVersion: 0, AdditionalErrorMsg: object not decodable: {}",)"
      R"("reason":"InternalError","code":500}})",
      key, problem);
}

class CorruptObjectTest : public RestHandlerTest {
 protected:
  void SetUp() override {
    RestHandlerTest::SetUp();
    for (const char* name : {"app", "zed"}) {
      auto created = Call("POST", "/api/v1/namespaces/default/configmaps",
                          fmt::format(R"({{"apiVersion":"v1","kind":"ConfigMap","metadata":)"
                                      R"({{"name":"{}","labels":{{"a":"b"}}}}}})",
                                      name));
      ASSERT_EQ(created.status, 201) << created.body;
    }
    Damage({"configmaps", "default", "app"}, kCut);
  }
  void Damage(const storage::ObjectKey& key, std::string_view bytes) {
    ASSERT_TRUE(store_->Update(key, 0, [&](std::int64_t) { return std::string(bytes); }));
  }
};

TEST_F(CorruptObjectTest, EveryReadOfItIsA500NamingIt) {
  const std::string want = CorruptStatus(
      "/registry/configmaps/default/app",
      "invalid JSON at byte 62: Missing a comma or '}' after an object member.");
  struct Case {
    const char* name;
    std::string method, path, accept;
  };
  const Case cases[] = {
      {"get", "GET", "/api/v1/namespaces/default/configmaps/app", "application/json"},
      {"get as a Table", "GET", "/api/v1/namespaces/default/configmaps/app",
       std::string(kTableAccept)},
      {"list", "GET", "/api/v1/namespaces/default/configmaps", "application/json"},
      {"list of every namespace", "GET", "/api/v1/configmaps", "application/json"},
      {"list as a Table", "GET", "/api/v1/namespaces/default/configmaps",
       std::string(kTableAccept)},
      {"list with a label selector", "GET", "/api/v1/namespaces/default/configmaps?labelSelector=a",
       "application/json"},
      {"list with a field selector", "GET",
       "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name=app", "application/json"},
      {"delete", "DELETE", "/api/v1/namespaces/default/configmaps/app", "application/json"},
      {"update", "PUT", "/api/v1/namespaces/default/configmaps/app", "application/json"},
  };
  for (const auto& c : cases) {
    std::string body;
    if (c.method == "PUT") {
      body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"}})";
    }
    auto r = Call(c.method, c.path, body, c.accept);
    EXPECT_EQ(r.status, 500) << c.name << ": " << r.body;
    EXPECT_EQ(r.body, want) << c.name;
  }
  // The others are served as before.
  auto zed = Call("GET", "/api/v1/namespaces/default/configmaps/zed");
  EXPECT_EQ(zed.status, 200) << zed.body;
  auto only_zed = Call("GET", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name=zed");
  EXPECT_EQ(only_zed.status, 500) << "a list reads every object, so the damaged one fails it";
}

TEST_F(CorruptObjectTest, WhatIsWrongIsSaid) {
  struct Case {
    const char* name;
    std::string bytes;
    std::string problem;
  };
  const Case cases[] = {
      {"cut", std::string(kCut),
       "invalid JSON at byte 62: Missing a comma or '}' after an object member."},
      {"garbage", "\x01\x02garbage", "invalid JSON at byte 0: Invalid value."},
      {"empty", "", "invalid JSON at byte 0: The document is empty."},
      {"two documents", "{}{}", "invalid JSON at byte 2: The document root must not be followed "
                                "by other values."},
      {"a NUL byte after the object", std::string("{}\0{", 4), "invalid JSON at byte 2: a NUL byte"},
      {"not an object", "[1,2]", "not a JSON object"},
      {"invalid UTF-8", "{\"a\":\"\xff\"}", "invalid JSON at byte 6: Invalid encoding in string."},
      {"nested too deep", std::string(300, '[') + std::string(300, ']'),
       "invalid JSON at byte 257: nested deeper than 256"},
  };
  for (const auto& c : cases) {
    Damage({"configmaps", "default", "app"}, c.bytes);
    auto r = Call("GET", "/api/v1/namespaces/default/configmaps");
    EXPECT_EQ(r.status, 500) << c.name;
    EXPECT_EQ(r.body, CorruptStatus("/registry/configmaps/default/app", c.problem)) << c.name;
  }
}

// Admission reads the namespace's LimitRanges: one that is damaged fails the create instead of
// being left out (a pod would then pass limits it breaks).
TEST_F(CorruptObjectTest, ADamagedLimitRangeFailsAdmission) {
  auto created = Call("POST", "/api/v1/namespaces/default/limitranges",
                      R"({"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"pids"},)"
                      R"("spec":{"limits":[{"type":"Container","max":{"cpu":"1"}}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  Damage({"limitranges", "default", "pids"}, "{");
  auto pod = Call("POST", "/api/v1/namespaces/default/pods",
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},)"
                  R"("spec":{"containers":[{"name":"c","image":"busybox"}]}})");
  EXPECT_EQ(pod.status, 500);
  EXPECT_EQ(pod.body, CorruptStatus("/registry/limitranges/default/pids",
                                    "invalid JSON at byte 1: Missing a name for object member."));
}

TEST(CorruptObjectKey, ClusterScopedObjectsHaveNoNamespaceInTheirKey) {
  EXPECT_EQ(CorruptObject("namespaces", "", "team", "x").message,
            "Internal error occurred: StorageError: corrupt object, Code: 7, Key: "
            "/registry/namespaces/team, ResourceVersion: 0, AdditionalErrorMsg: object not "
            "decodable: x");
}

}  // namespace
}  // namespace podlimits::apiserver
