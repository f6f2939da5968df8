// Write bodies in every content type the apiserver decodes, on every verb that has one (issue
// 31: client-go's typed Update and Delete send protobuf): PUT and DELETE's DeleteOptions in
// JSON, YAML and protobuf, as POST already reads them; 415 for anything else. And the watch
// that starts "now" (sendInitialEvents=false) fixes that revision before it answers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protobuf_writer.h"
#include "rest_handler_fixture.h"
#include "stream_collector.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;
namespace pb = podlimits::testing::protobuf;

constexpr std::string_view kPath = "/api/v1/namespaces/default/configmaps";
constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";

// ConfigMap {metadata=1 {name=1}, data=2} as client-go's typed Update sends it.
std::string ConfigMapProtobuf(std::string_view name, std::string_view value) {
  return pb::Envelope("v1", "ConfigMap",
                      pb::Bytes(1, pb::Bytes(1, name)) + pb::Entry(2, "a", value));
}

// DeleteOptions {gracePeriodSeconds=1, preconditions=2 {uid=1}} in the resource's own group
// version, as client-go's typed Delete sends it.
std::string DeleteOptionsProtobuf(std::string_view api_version, std::string_view uid) {
  return pb::Envelope(api_version, "DeleteOptions",
                      pb::Int(1, 0) + pb::Bytes(2, pb::Bytes(1, uid)));
}

class RequestBodyTest : public RestHandlerTest {
 protected:
  std::string Uid(std::string_view name) {
    auto got = Call("GET", std::string(kPath) + "/" + std::string(name));
    const std::string key = R"("uid":")";
    const auto at = got.body.find(key);
    if (at == std::string::npos) return "";
    return got.body.substr(at + key.size(), 36);
  }
};

TEST_F(RequestBodyTest, PutReadsJsonYamlAndProtobuf) {
  ASSERT_EQ(Call("POST", std::string(kPath),
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"0"}})")
                .status,
            201);
  struct Case {
    const char* name;
    std::string content_type;
    std::string body;
    int status;
    std::string in_body;  // a substring of the answer
  };
  const Case cases[] = {
      {"json", "application/json",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}})", 200,
       R"("data":{"a":"1"})"},
      {"no content type is JSON", "",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"2"}})", 200,
       R"("data":{"a":"2"})"},
      {"yaml", "application/yaml",
       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"3\"\n", 200,
       R"("data":{"a":"3"})"},
      {"protobuf", kProtobuf, ConfigMapProtobuf("cm", "4"), 200, R"("data":{"a":"4"})"},
      {"protobuf that is not", kProtobuf, "{}", 400,
       "provided data does not appear to be a protobuf message"},
      {"yaml that is not", "application/yaml", "a: [", 400, "yaml: "},
      {"cbor", "application/cbor", "x", 415,
       "the body of the request was in an unknown format - accepted media types include: "
       "application/json, application/yaml, application/vnd.kubernetes.protobuf"},
  };
  for (const auto& c : cases) {
    auto r = Call("PUT", std::string(kPath) + "/cm", c.body, "application/json", c.content_type);
    EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.in_body)) << c.name;
  }
}

TEST_F(RequestBodyTest, DeleteReadsDeleteOptionsInJsonYamlAndProtobuf) {
  ASSERT_EQ(Call("POST", std::string(kPath),
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}})")
                .status,
            201);
  const std::string uid = Uid("cm");
  ASSERT_EQ(uid.size(), 36u);
  const std::string wrong = "00000000-0000-0000-0000-000000000000";
  const std::string conflict = "Precondition failed: UID in precondition: " + wrong +
                               ", UID in object meta: " + uid;
  struct Case {
    const char* name;
    std::string content_type;
    std::string body;
    int status;
    std::string in_body;
  };
  // A precondition that does not hold is refused only when the body was read.
  const Case cases[] = {
      {"json", "application/json", R"({"preconditions":{"uid":")" + wrong + R"("}})", 409,
       conflict},
      {"yaml", "application/yaml", "preconditions:\n  uid: " + wrong + "\n", 409, conflict},
      {"protobuf in the resource's group version", kProtobuf, DeleteOptionsProtobuf("v1", wrong),
       409, conflict},
      {"protobuf in meta.k8s.io/v1", kProtobuf, DeleteOptionsProtobuf("meta.k8s.io/v1", wrong),
       409, conflict},
      {"protobuf that is not", kProtobuf, "{}", 400,
       "provided data does not appear to be a protobuf message"},
      {"cbor", "application/cbor", "x", 415, "accepted media types include: application/json, "
                                             "application/yaml, application/vnd.kubernetes.protobuf"},
  };
  for (const auto& c : cases) {
    auto r = Call("DELETE", std::string(kPath) + "/cm", c.body, "application/json", c.content_type);
    EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    EXPECT_THAT(r.body, HasSubstr(c.in_body)) << c.name;
  }
  auto deleted =
      Call("DELETE", std::string(kPath) + "/cm", DeleteOptionsProtobuf("v1", uid), "application/json",
           kProtobuf);
  EXPECT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(Call("GET", std::string(kPath) + "/cm").status, 404);
}

// sendInitialEvents=false from no resourceVersion: the changes after the revision when the
// request was answered, even when the stream starts reading later.
TEST_F(RequestBodyTest, AWatchFromNowStartsWhenAnswered) {
  ASSERT_EQ(Call("POST", std::string(kPath),
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"before"}})")
                .status,
            201);
  auto watch = Call("GET", std::string(kPath) +
                               "?watch=true&sendInitialEvents=false&"
                               "resourceVersionMatch=NotOlderThan&timeoutSeconds=2");
  ASSERT_EQ(watch.status, 200) << watch.body;
  ASSERT_TRUE(watch.stream);
  ASSERT_EQ(Call("POST", std::string(kPath),
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after"}})")
                .status,
            201);
  podlimits::testing::StreamCollector events(1);
  watch.stream(events);
  ASSERT_EQ(events.lines.size(), 1u);
  EXPECT_THAT(events.lines[0], HasSubstr(R"({"type":"ADDED")"));
  EXPECT_THAT(events.lines[0], HasSubstr(R"("name":"after")"));
}

}  // namespace
}  // namespace podlimits::apiserver
