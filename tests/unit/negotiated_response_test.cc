// A handler's JSON answer in the negotiated encoding and conversion, as the apiserver's
// transformResponseObject and WriteObjectNegotiated write it: PartialObjectMetadata(List) or
// the 406 for the wrong one, a Status never converted, errors in the type negotiated for errors,
// and an object the protobuf encoder fails on as a 500 in protobuf, never as JSON.
#include "apiserver/negotiated_response.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/protobuf_encode.h"
#include "api/protobuf_meta_schema.h"
#include "api/protobuf_object.h"
#include "api/schema.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

constexpr std::string_view kPod =
    R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"default",)"
    R"("resourceVersion":"7","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}})";
constexpr std::string_view kPodList =
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"abc",)"
    R"("remainingItemCount":3},"items":[{"metadata":{"name":"a","uid":"u1"},"spec":{}},)"
    R"({"metadata":{"name":"b"},"spec":{}}]})";
constexpr std::string_view kDeploymentList =
    R"({"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"4"},"items":[]})";
constexpr std::string_view kSuccess =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"web"}})";
// data must be a map: the protobuf encoder fails on it.
constexpr std::string_view kUnencodable =
    R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":"not a map"})";
constexpr std::string_view kNotFound =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
    R"("pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404})";

OutputMediaType Media(MediaType type, std::string as = "", std::string version = "v1") {
  OutputMediaType m;
  m.type = type;
  if (!as.empty()) {
    m.convert_kind = std::move(as);
    m.convert_group = "meta.k8s.io";
    m.convert_version = std::move(version);
  }
  return m;
}

// The body as JSON, decoded from protobuf when it is.
std::string AsJson(const http::HttpResponse& r) {
  if (r.content_type != "application/vnd.kubernetes.protobuf") return r.body;
  auto decoded = api::DecodeProtobufObject(r.body, api::Schema::Objects());
  if (!decoded) decoded = api::DecodeProtobufObject(r.body, api::MetaProtobufSchema());
  return decoded ? codec::EncodeJson(*decoded, 0) : "undecodable: " + decoded.error().Message();
}

TEST(EncodeNegotiatedTest, ConvertsAndEncodesAsTheApiserver) {
  struct Case {
    std::string name;
    int status;
    std::string_view body;
    OutputMediaType media;
    std::optional<OutputMediaType> error_media;
    int want_status;
    std::string want_content_type;
    std::string want_json;  // the body, decoded from protobuf when it is protobuf
  };
  const auto json = Media(MediaType::kJson);
  const auto protobuf = Media(MediaType::kProtobuf);
  const std::vector<Case> cases = {
      {"plain JSON goes out as the handler wrote it", 200, kPod, json, json, 200,
       "application/json", std::string(kPod)},
      {"protobuf", 200, kPod, protobuf, protobuf, 200, "application/vnd.kubernetes.protobuf",
       std::string(kPod)},
      {"an object the protobuf encoder fails on is a 500 in protobuf, not JSON", 200,
       kUnencodable, protobuf, protobuf, 500, "application/vnd.kubernetes.protobuf",
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
       R"("message":"encode protobuf: ConfigMap.data: not a map","code":500})"},
      {"PartialObjectMetadata of an object", 200, kPod,
       Media(MediaType::kJson, "PartialObjectMetadata"), json, 200, "application/json",
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web",)"
       R"("namespace":"default","resourceVersion":"7","labels":{"app":"web"}}})"},
      {"PartialObjectMetadata in v1beta1", 201, kPod,
       Media(MediaType::kJson, "PartialObjectMetadata", "v1beta1"), json, 201, "application/json",
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{"name":"web",)"
       R"("namespace":"default","resourceVersion":"7","labels":{"app":"web"}}})"},
      {"PartialObjectMetadata in protobuf", 200, kPod,
       Media(MediaType::kProtobuf, "PartialObjectMetadata"), protobuf, 200,
       "application/vnd.kubernetes.protobuf",
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"web",)"
       R"("namespace":"default","resourceVersion":"7","labels":{"app":"web"}}})"},
      {"PartialObjectMetadata of a list is 406", 200, kPodList,
       Media(MediaType::kJson, "PartialObjectMetadata"), json, 406, "application/json",
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
       R"("you requested PartialObjectMetadata, but the requested object is a list )"
       R"j((*core.PodList)","reason":"NotAcceptable","code":406})j"},
      {"PartialObjectMetadataList of an object is 406", 200, kPod,
       Media(MediaType::kJson, "PartialObjectMetadataList"), json, 406, "application/json",
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
       R"("you requested PartialObjectMetadataList, but the requested object is not a list )"
       R"j((*core.Pod)","reason":"NotAcceptable","code":406})j"},
      {"PartialObjectMetadataList of a list, its ListMeta kept", 200, kPodList,
       Media(MediaType::kJson, "PartialObjectMetadataList"), json, 200, "application/json",
       R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":)"
       R"({"resourceVersion":"9","continue":"abc","remainingItemCount":3},"items":[)"
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","uid":"u1"}},)"
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b"}}]})"},
      {"an empty list's items are null, as Go writes a nil slice", 200, kDeploymentList,
       Media(MediaType::kJson, "PartialObjectMetadataList"), json, 200, "application/json",
       R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":)"
       R"({"resourceVersion":"4"},"items":null})"},
      // TypeMeta has no field number: the items' kind is the list's to say.
      {"PartialObjectMetadataList in protobuf", 200, kPodList,
       Media(MediaType::kProtobuf, "PartialObjectMetadataList"), protobuf, 200,
       "application/vnd.kubernetes.protobuf",
       R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":)"
       R"({"resourceVersion":"9","continue":"abc","remainingItemCount":3},"items":[)"
       R"({"metadata":{"name":"a","uid":"u1"}},{"metadata":{"name":"b"}}]})"},
      {"the 406 of another group names its package", 200, kDeploymentList,
       Media(MediaType::kJson, "PartialObjectMetadata"), json, 406, "application/json",
       R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
       R"("you requested PartialObjectMetadata, but the requested object is a list )"
       R"j((*apps.DeploymentList)","reason":"NotAcceptable","code":406})j"},
      {"a Status is never converted", 200, kSuccess,
       Media(MediaType::kJson, "PartialObjectMetadata"), json, 200, "application/json",
       std::string(kSuccess)},
      {"an error in the type negotiated for errors", 404, kNotFound,
       Media(MediaType::kProtobuf, "PartialObjectMetadata"), protobuf, 404,
       "application/vnd.kubernetes.protobuf", std::string(kNotFound)},
      {"an error with only conversions acceptable: JSON", 404, kNotFound,
       Media(MediaType::kProtobuf, "PartialObjectMetadata"), std::nullopt, 404,
       "application/json", std::string(kNotFound)},
  };
  for (const auto& c : cases) {
    http::HttpResponse r =
        EncodeNegotiated({c.status, "application/json", std::string(c.body), {{"Warning", "w"}}},
                         c.media, c.error_media);
    EXPECT_EQ(r.status, c.want_status) << c.name;
    EXPECT_EQ(r.content_type, c.want_content_type) << c.name;
    EXPECT_EQ(AsJson(r), c.want_json) << c.name;
    EXPECT_EQ(r.headers.size(), 1u) << c.name << ": the handler's headers are kept";
  }
}

// The meta schema's ObjectMeta is the object schema's: a PartialObjectMetadata's message is the
// bytes of its object's with only the metadata.
TEST(EncodeNegotiatedTest, PartialObjectMetadataHasTheObjectsMetadataBytes) {
  auto pod = codec::ParseJsonStream(
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","namespace":"default","uid":"u",)"
      R"("generateName":"w-","resourceVersion":"7","generation":2,"creationTimestamp":"2026-01-02T03:04:05Z",)"
      R"("deletionTimestamp":"2026-01-02T03:04:06Z","deletionGracePeriodSeconds":30,"labels":{"b":"1","a":"2"},)"
      R"("annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",)"
      R"("name":"rs","uid":"r","controller":true,"blockOwnerDeletion":true}],"finalizers":["f"],)"
      R"("managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1",)"
      R"("time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{}},)"
      R"("subresource":"status"}]}})");
  ASSERT_TRUE(pod);
  const codec::Node& object = (*pod)[0];
  auto whole = api::EncodeProtobufMessage(object, *api::Schema::Objects().Root("Pod"));
  const api::TypeDef* partial_type = api::MetaProtobufSchema().Root("PartialObjectMetadata");
  ASSERT_NE(partial_type, nullptr);
  auto partial = api::EncodeProtobufMessage(object, *partial_type);
  ASSERT_TRUE(whole && partial);
  EXPECT_EQ(*partial, *whole);
}

}  // namespace
}  // namespace podlimits::apiserver
