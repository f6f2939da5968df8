// What the REST handler answers in each negotiated encoding: protobuf for client-go's Accept
// (objects, lists, errors, watches), YAML, JSON for a kind without a protobuf form, and the
// apiserver's 406.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/protobuf_object.h"
#include "api/protobuf_meta_schema.h"
#include "api/protobuf_watch_event.h"
#include "api/schema.h"
#include "codec/json_codec.h"
#include "rest_handler_fixture.h"
#include "stream_collector.h"

namespace podlimits::apiserver {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kClientGo = "application/vnd.kubernetes.protobuf, application/json";
constexpr std::string_view kConfigMap =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}})";

codec::Node Decoded(const std::string& body, const api::Schema& schema = api::Schema::Objects()) {
  auto d = api::DecodeProtobufObject(body, schema);
  EXPECT_TRUE(d) << (d ? "" : d.error().Message());
  return d ? *d : codec::Node();
}

TEST_F(RestHandlerTest, ProtobufWhenAskedFirst) {
  struct Case {
    std::string name, method, path, accept;
    int status;
    std::string content_type;
  };
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", std::string(kConfigMap)).status, 201);
  const std::vector<Case> cases = {
      {"get", "GET", "/api/v1/namespaces/default/configmaps/c", std::string(kClientGo), 200,
       "application/vnd.kubernetes.protobuf"},
      {"list", "GET", "/api/v1/namespaces/default/configmaps", std::string(kClientGo), 200,
       "application/vnd.kubernetes.protobuf"},
      {"NotFound as a protobuf Status", "GET", "/api/v1/namespaces/default/configmaps/x",
       std::string(kClientGo), 404, "application/vnd.kubernetes.protobuf"},
      {"json first", "GET", "/api/v1/namespaces/default/configmaps/c",
       "application/json, application/vnd.kubernetes.protobuf", 200, "application/json"},
      {"yaml", "GET", "/api/v1/namespaces/default/configmaps/c", "application/yaml", 200,
       "application/yaml"},
      {"kubectl's Table stays JSON", "GET", "/api/v1/namespaces/default/configmaps",
       std::string(kTableAccept), 200, "application/json"},
      {"406 for text/plain", "GET", "/api/v1/namespaces/default/configmaps/c", "text/plain", 406,
       "application/json"},
      {"406 before a write", "POST", "/api/v1/namespaces/default/configmaps", "text/plain", 406,
       "application/json"},
  };
  for (const auto& c : cases) {
    auto r = Call(c.method, c.path, c.method == "POST" ? std::string(kConfigMap) : "", c.accept);
    EXPECT_EQ(r.status, c.status) << c.name << ": " << r.body;
    EXPECT_EQ(r.content_type, c.content_type) << c.name;
  }
  // The protobuf answers decode to what the JSON ones hold.
  auto json = Call("GET", "/api/v1/namespaces/default/configmaps/c");
  auto pb = Call("GET", "/api/v1/namespaces/default/configmaps/c", "", std::string(kClientGo));
  EXPECT_EQ(codec::EncodeJson(Decoded(pb.body), 0), json.body);
  auto json_list = Call("GET", "/api/v1/namespaces/default/configmaps");
  auto pb_list = Call("GET", "/api/v1/namespaces/default/configmaps", "", std::string(kClientGo));
  EXPECT_EQ(codec::EncodeJson(Decoded(pb_list.body), 0), json_list.body);
  auto missing = Call("GET", "/api/v1/namespaces/default/configmaps/x", "", std::string(kClientGo));
  EXPECT_EQ(codec::EncodeJson(Decoded(missing.body, api::MetaProtobufSchema()), 0),
            Call("GET", "/api/v1/namespaces/default/configmaps/x").body);
  auto yaml = Call("GET", "/api/v1/namespaces/default/configmaps/c", "", "application/yaml");
  EXPECT_THAT(yaml.body, HasSubstr("kind: ConfigMap\n"));
  auto refused = Call("GET", "/api/v1/namespaces/default/configmaps/c", "", "text/plain");
  EXPECT_EQ(refused.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
            R"("only the following media types are accepted: application/json, application/yaml, )"
            R"(application/vnd.kubernetes.protobuf","reason":"NotAcceptable","code":406})");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/configmaps/c").status, 200)
      << "the refused create wrote nothing, the first one is still there";
}

TEST_F(RestHandlerTest, ProtobufWatchFrames) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", std::string(kConfigMap)).status, 201);
  auto r = Call("GET",
                "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&"
                "resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1",
                "", std::string(kClientGo));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/vnd.kubernetes.protobuf;stream=watch");
  ASSERT_TRUE(r.stream);
  podlimits::testing::StreamCollector collected(
      2, podlimits::testing::StreamCollector::Framing::kLengthPrefixed);
  r.stream(collected);
  std::string stream;
  for (const auto& chunk : collected.lines) stream += chunk;
  auto events = api::SplitProtobufWatchFrames(stream);
  ASSERT_TRUE(events) << events.error().Message();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].type, "ADDED");
  EXPECT_EQ(codec::EncodeJson(Decoded((*events)[0].object), 0),
            Call("GET", "/api/v1/namespaces/default/configmaps/c").body);
  EXPECT_EQ((*events)[1].type, "BOOKMARK");
  const codec::Node bookmark = Decoded((*events)[1].object);
  EXPECT_EQ(codec::StringOf(bookmark.FindPath({"metadata", "annotations", "k8s.io/initial-events-end"})),
            "true");

  auto yaml = Call("GET", "/api/v1/namespaces/default/configmaps?watch=1", "", "application/yaml");
  EXPECT_EQ(yaml.status, 406);
  EXPECT_THAT(yaml.body, HasSubstr("accepted: application/json;stream=watch, "
                                   "application/vnd.kubernetes.protobuf;stream=watch\""));
}

TEST_F(RestHandlerTest, JsonWhereTheKindHasNoProtobufForm) {
  // metrics.k8s.io (no metrics source here: its answer is whatever it is, never protobuf).
  auto r = Call("GET", "/apis/metrics.k8s.io/v1beta1/nodes", "", std::string(kClientGo));
  EXPECT_NE(r.content_type, "application/vnd.kubernetes.protobuf") << r.status;
  auto only = Call("GET", "/apis/metrics.k8s.io/v1beta1/nodes", "",
                   "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(only.status, 406);
}

}  // namespace
}  // namespace podlimits::apiserver
