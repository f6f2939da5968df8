// Responses in protobuf: the bytes of small objects as gogo-protobuf lays them out, and every
// kind of the schema through encode -> decode (protobuf_object.h) back to the same tree.
#include "api/protobuf_encode.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "api/protobuf_meta_schema.h"
#include "api/protobuf_object.h"
#include "api/protobuf_watch_event.h"
#include "api/schema_tables.h"
#include "codec/json_codec.h"
#include "protobuf_writer.h"

namespace podlimits::api {
namespace {

using codec::Node;
using testing::protobuf::Bytes;
using testing::protobuf::Entry;
using testing::protobuf::Int;

Node Json(std::string_view text) {
  auto parsed = codec::ParseJsonStream(text);
  EXPECT_TRUE(parsed && parsed->size() == 1) << text;
  return parsed && !parsed->empty() ? (*parsed)[0] : Node();
}

// The envelope as the apiserver's serializer writes it: contentEncoding and contentType empty
// but present, as gogo writes every non-pointer string.
std::string Envelope(std::string_view api_version, std::string_view kind, const std::string& raw) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) +
         Bytes(2, raw) + Bytes(3, "") + Bytes(4, "");
}

// The tree with every object's members in key order: the decoder writes them in wire order.
Node Sorted(Node n) {
  for (auto& item : n.items) item = Sorted(std::move(item));
  for (auto& m : n.members) m.value = Sorted(std::move(m.value));
  std::sort(n.members.begin(), n.members.end(),
            [](const codec::Member& a, const codec::Member& b) { return a.key < b.key; });
  return n;
}

TEST(ProtobufEncodeTest, Bytes) {
  struct Case {
    std::string name;
    std::string json;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"ConfigMap: maps in key order, bytes decoded",
       R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","namespace":"default",)"
       R"("resourceVersion":"7","creationTimestamp":"2026-11-25T12:00:00Z","labels":{"b":"2","a":"1"}},)"
       R"("data":{"k":"v","e":""},"binaryData":{"bin":"AAE="}})",
       Envelope("v1", "ConfigMap",
                Bytes(1, Bytes(1, "cfg") + Bytes(3, "default") + Bytes(6, "7") +
                             Bytes(8, Int(1, 1795608000)) + Entry(11, "a", "1") +
                             Entry(11, "b", "2")) +
                    Entry(2, "e", "") + Entry(2, "k", "v") +
                    Entry(3, "bin", std::string("\x00\x01", 2)))},
      {"Deployment: a pointer set to 0 is written, int-or-string, fields in number order",
       R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"},)"
       R"("spec":{"strategy":{"rollingUpdate":{"maxUnavailable":"25%","maxSurge":1}},"replicas":0}})",
       Envelope("apps/v1", "Deployment",
                Bytes(1, Bytes(1, "d")) +
                    Bytes(2, Int(1, 0) +
                                 Bytes(4, Bytes(2, Bytes(1, Int(1, 1) + Bytes(3, "25%")) +
                                                       Bytes(2, Int(1, 0) + Int(2, 1))))))},
      {"Status: the meta/v1 kind of every error",
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
       R"("message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404})",
       Envelope("v1", "Status",
                Bytes(1, "") + Bytes(2, "Failure") + Bytes(3, "pods \"x\" not found") +
                    Bytes(4, "NotFound") + Bytes(5, Bytes(1, "x") + Bytes(3, "pods")) +
                    Int(6, 404))},
      {"MicroTime keeps its fraction, a negative int32 is sign-extended",
       R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"n"},)"
       R"("spec":{"renewTime":"2026-11-25T12:00:00.123456Z","leaseDurationSeconds":-1}})",
       Envelope("coordination.k8s.io/v1", "Lease",
                Bytes(1, Bytes(1, "n")) +
                    Bytes(2, Int(2, ~std::uint64_t{0}) +
                                 Bytes(4, Int(1, 1795608000) + Int(2, 123456000))))},
  };
  for (const auto& c : cases) {
    auto got = EncodeProtobufObject(Json(c.json), Schema::Objects());
    ASSERT_TRUE(got) << c.name << ": " << got.error().Message();
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

TEST(ProtobufEncodeTest, Refusals) {
  struct Case {
    std::string name, json;
  };
  const std::vector<Case> cases = {
      {"a kind without a protobuf form", R"({"kind":"Table","apiVersion":"meta.k8s.io/v1"})"},
      {"a string for an integer",
       R"({"kind":"Pod","apiVersion":"v1","spec":{"terminationGracePeriodSeconds":"5"}})"},
      {"a time that is not RFC 3339",
       R"({"kind":"Pod","apiVersion":"v1","metadata":{"creationTimestamp":"yesterday"}})"},
      {"bytes that are not base64", R"({"kind":"Secret","apiVersion":"v1","data":{"k":"!!"}})"},
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(EncodeProtobufObject(Json(c.json), Schema::Objects())) << c.name;
  }
}

// A value of every field `type` numbers, recursively (to `depth`), each one non-zero so that
// the decoder, which leaves zero values out as omitempty does, gives it back.
Node Sample(const TypeDef& type, int depth);

Node SampleValue(const FieldSpec& spec, int depth) {
  switch (spec.kind) {
    case FieldSpec::Kind::kRef: return Sample(*spec.ref, depth + 1);
    case FieldSpec::Kind::kList: {
      Node list = Node::Array();
      list.items.push_back(SampleValue(*spec.elem, depth));
      return list;
    }
    case FieldSpec::Kind::kMap: {
      Node map = Node::Object();
      map.Set("key", SampleValue(*spec.elem, depth));
      return map;
    }
    case FieldSpec::Kind::kScalar: break;
  }
  const std::string& t = spec.type;
  if (t == "string") return Node::String(spec.format == "byte" ? "AAE=" : "text");
  if (t == "integer") return Node::Int(spec.format == "int32" ? -7 : 1LL << 40);
  if (t == "boolean") return Node::Bool(true);
  if (t == "quantity") return Node::String("250m");
  if (t == "time") return Node::String("2026-11-25T12:00:00Z");
  if (t == "int-or-string") return Node::String("25%");
  return Json(R"({"f:metadata":{"f:name":{}}})");  // "any"
}

Node Sample(const TypeDef& type, int depth) {
  Node object = Node::Object();
  if (depth > 6) return object;
  for (const FieldDef& f : type.fields) {
    if (f.spec.pb == 0) continue;  // no protobuf form (kind, apiVersion, proposed fields)
    object.Set(f.name, SampleValue(f.spec, depth));
  }
  return object;
}

TEST(ProtobufEncodeTest, EveryKindRoundTrips) {
  const Node schema = Json(EmbeddedObjectSchema());
  const Node* roots = schema.Find("roots");
  ASSERT_TRUE(roots && roots->IsObject());
  ASSERT_GT(roots->members.size(), 20u);
  for (const auto& root : roots->members) {
    const TypeDef* type = Schema::Objects().Root(root.key);
    ASSERT_NE(type, nullptr) << root.key;
    Node object = Node::Object();
    object.Set("kind", Node::String(root.key));
    object.Set("apiVersion", Node::String(type->ApiVersion()));
    for (auto& m : Sample(*type, 0).members) object.Set(m.key, std::move(m.value));
    auto encoded = EncodeProtobufObject(object, Schema::Objects());
    ASSERT_TRUE(encoded) << root.key << ": " << encoded.error().Message();
    auto decoded = DecodeProtobufObject(*encoded, Schema::Objects());
    ASSERT_TRUE(decoded) << root.key << ": " << decoded.error().Message();
    const Node got = Sorted(std::move(*decoded));
    const Node want = Sorted(object);
    EXPECT_EQ(got, want) << root.key << "\n got: " << codec::EncodeJson(got, 0)
                         << "\nwant: " << codec::EncodeJson(want, 0);
  }
}

TEST(ProtobufEncodeTest, StatusRoundTrips) {
  const Node status = Json(
      R"({"kind":"Status","apiVersion":"v1","metadata":{"continue":"abc"},"status":"Failure",)"
      R"("message":"m","reason":"Invalid","details":{"name":"p","group":"apps","kind":"Deployment",)"
      R"("uid":"u","causes":[{"reason":"FieldValueInvalid","message":"bad","field":"spec.x"}],)"
      R"("retryAfterSeconds":1},"code":422})");
  auto encoded = EncodeProtobufObject(status, Schema::Objects());
  ASSERT_TRUE(encoded) << encoded.error().Message();
  auto decoded = DecodeProtobufObject(*encoded, MetaProtobufSchema());
  ASSERT_TRUE(decoded) << decoded.error().Message();
  EXPECT_EQ(codec::EncodeJson(Sorted(*decoded), 0), codec::EncodeJson(Sorted(status), 0));
}

TEST(ProtobufWatchEventTest, FramesAsTheStreamSerializerWrites) {
  const Node bookmark = Json(
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"9",)"
      R"("annotations":{"k8s.io/initial-events-end":"true"}}})");
  auto frame = ProtobufWatchFrame("BOOKMARK", bookmark, Schema::Objects());
  ASSERT_TRUE(frame) << frame.error().Message();
  const std::string object = Envelope(
      "v1", "Pod", Bytes(1, Bytes(6, "9") + Entry(12, "k8s.io/initial-events-end", "true")));
  const std::string event = Bytes(1, "BOOKMARK") + Bytes(2, Bytes(1, object));
  ASSERT_LT(event.size(), 256u);
  EXPECT_EQ(*frame, std::string("\0\0\0", 3) + static_cast<char>(event.size()) + event);
  auto split = SplitProtobufWatchFrames(*frame + *frame);
  ASSERT_TRUE(split);
  ASSERT_EQ(split->size(), 2u);
  EXPECT_EQ((*split)[1].type, "BOOKMARK");
  EXPECT_EQ((*split)[1].object, object);
  EXPECT_FALSE(SplitProtobufWatchFrames(frame->substr(0, frame->size() - 1)));
}

}  // namespace
}  // namespace podlimits::api
