// kubectl's protobuf bodies decoded into the tree their JSON would give.
#include "api/protobuf_object.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/fs.h"
#include "codec/json_codec.h"
#include "protobuf_writer.h"

namespace podlimits::api {
namespace {

using testing::protobuf::Bytes;
using testing::protobuf::Entry;
using testing::protobuf::Int;

// The `k8s\0` envelope of a core/v1 kind.
std::string Envelope(std::string_view kind, const std::string& raw) {
  return testing::protobuf::Envelope("v1", kind, raw);
}
// ObjectMeta as gogo writes it: every non-pointer string, and the zero creationTimestamp.
std::string Meta(std::string_view name, std::string_view labels = "") {
  return Bytes(1, Bytes(1, name) + Bytes(2, "") + Bytes(3, "") + Bytes(8, "") +
                      std::string(labels));
}

TEST(ProtobufObjectTest, ConfigMapAsKubectlCreateSendsIt) {
  const std::string raw = Meta("cfg", Entry(11, "app", "web")) + Entry(2, "a", "1") +
                          Entry(2, "empty", "") + Entry(3, "bin", std::string("\x00\x01", 2));
  auto object = DecodeProtobufObject(Envelope("ConfigMap", raw), Schema::Objects());
  ASSERT_TRUE(object) << object.error();
  EXPECT_EQ(codec::EncodeJson(*object, 0),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","labels":{"app":"web"}},)"
            R"("data":{"a":"1","empty":""},"binaryData":{"bin":"AAE="}})");
}

TEST(ProtobufObjectTest, PodWithListsQuantitiesAndInts) {
  // Container {name=1, image=2, command=3, resources=8 {limits=1 {cpu: Quantity{string=1}}}}
  const std::string container =
      Bytes(1, "c") + Bytes(2, "busybox") + Bytes(3, "sh") + Bytes(3, "") +
      Bytes(8, Bytes(1, Bytes(1, "cpu") + Bytes(2, Bytes(1, "500m"))));
  // PodSpec {containers=2, restartPolicy=3, terminationGracePeriodSeconds=4}
  const std::string spec = Bytes(2, container) + Bytes(3, "Never") + Int(4, 5);
  auto object = DecodeProtobufObject(Envelope("Pod", Meta("p") + Bytes(2, spec) + Bytes(3, "")),
                                     Schema::Objects());
  ASSERT_TRUE(object) << object.error();
  const codec::Node* c = &object->FindPath({"spec", "containers"})->items[0];
  EXPECT_EQ(c->Find("command")->items.size(), 2u);  // "" kept in a list
  EXPECT_EQ(c->FindPath({"resources", "limits", "cpu"})->scalar, "500m");
  EXPECT_EQ(object->FindPath({"spec", "terminationGracePeriodSeconds"})->scalar, "5");
  EXPECT_EQ(object->FindPath({"spec", "restartPolicy"})->scalar, "Never");
}

// A struct embedded inline (json:",inline") is flat in JSON but a message of its own in
// protobuf, whose fields are numbered inside it: Volume's VolumeSource (field 2), Probe's
// ProbeHandler (1), the LocalObjectReference of a key selector (1), EphemeralContainer's
// EphemeralContainerCommon (1). Their numbers collide with the parent's own (Volume.name and
// VolumeSource.hostPath are both 1): `kubectl debug node/N` was refused with "malformed protobuf
// in v1.HostPathVolumeSource", and a configMapKeyRef's name came out as the bytes of its message.
TEST(ProtobufObjectTest, EmbeddedStructsAreMessagesOfTheirOwn) {
  struct Case {
    std::string name;
    std::string spec;  // PodSpec's fields
    std::string want;  // the pod's spec in JSON
  };
  const std::string app = Bytes(1, "app") + Bytes(2, "busybox");
  const std::vector<Case> cases = {
      {"hostPath volume as kubectl debug node sends it",
       // Volume {name=1, volumeSource=2 {hostPath=1 {path=1}}}
       Bytes(1, Bytes(1, "host-root") + Bytes(2, Bytes(1, Bytes(1, "/")))) + Bytes(2, app),
       R"({"volumes":[{"name":"host-root","hostPath":{"path":"/"}}],)"
       R"("containers":[{"name":"app","image":"busybox"}]})"},
      {"a probe's handler beside its numbers",
       // Probe {handler=1 {httpGet=2 {path=1, port=2 {type=0, intVal=2}}}, initialDelaySeconds=2,
       // periodSeconds=4}
       Bytes(2, app + Bytes(10, Bytes(1, Bytes(2, Bytes(1, "/healthz") +
                                                     Bytes(2, Int(1, 0) + Int(2, 8080)))) +
                                    Int(2, 5) + Int(4, 10))),
       R"({"containers":[{"name":"app","image":"busybox","livenessProbe":)"
       R"({"httpGet":{"path":"/healthz","port":8080},"initialDelaySeconds":5,"periodSeconds":10}}]})"},
      {"a configMapKeyRef's name",
       // EnvVar {name=1, valueFrom=3 {configMapKeyRef=3 {localObjectReference=1 {name=1}, key=2}}}
       Bytes(2, app + Bytes(7, Bytes(1, "X") +
                                   Bytes(3, Bytes(3, Bytes(1, Bytes(1, "cfg")) + Bytes(2, "k"))))),
       R"({"containers":[{"name":"app","image":"busybox","env":[{"name":"X","valueFrom":)"
       R"({"configMapKeyRef":{"name":"cfg","key":"k"}}}]}]})"},
      {"an ephemeral container as kubectl debug adds it",
       // EphemeralContainer {ephemeralContainerCommon=1 {name=1, image=2}, targetContainerName=2}
       Bytes(2, app) + Bytes(34, Bytes(1, Bytes(1, "debugger") + Bytes(2, "busybox")) +
                                     Bytes(2, "app")),
       R"({"containers":[{"name":"app","image":"busybox"}],"ephemeralContainers":)"
       R"([{"name":"debugger","image":"busybox","targetContainerName":"app"}]})"},
      {"the embedded message's fields in any order, after the parent's",
       Bytes(1, Bytes(2, Bytes(1, Bytes(1, "/"))) + Bytes(1, "late-name")) + Bytes(2, app),
       R"({"volumes":[{"hostPath":{"path":"/"},"name":"late-name"}],)"
       R"("containers":[{"name":"app","image":"busybox"}]})"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto object = DecodeProtobufObject(Envelope("Pod", Meta("p") + Bytes(2, c.spec)),
                                       Schema::Objects());
    ASSERT_TRUE(object) << object.error();
    const codec::Node* spec = object->Find("spec");
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(codec::EncodeJson(*spec, 0), c.want);
  }
}

// The same pod as client-go 0.36 itself encodes it (tests/clients/go -fuzz-corpus wrote the
// request path fuzzer's seed): its embedded structs come back where JSON puts them.
TEST(ProtobufObjectTest, AsClientGoEncodesIt) {
  auto input = ReadWholeFile(std::filesystem::path(PODLIMITS_SOURCE_DIR) /
                             "fuzz/corpus/request_path_fuzz/clientgo_update_pod_ephemeral");
  ASSERT_TRUE(input) << input.error();
  std::string_view body = *input;
  for (int line = 0; line < 3; ++line) body.remove_prefix(body.find('\n') + 1);  // method, target, type
  auto object = DecodeProtobufObject(body, Schema::Objects());
  ASSERT_TRUE(object) << object.error();
  const codec::Node* spec = object->Find("spec");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(codec::EncodeJson(*spec->Find("volumes"), 0),
            R"([{"name":"host-root","hostPath":{"path":"/"}},{"name":"scratch","emptyDir":{}}])");
  const codec::Node& app = spec->Find("containers")->items.at(0);
  EXPECT_EQ(codec::EncodeJson(*app.Find("env"), 0),
            R"([{"name":"FROM_CM","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"k","optional":true}}}])");
  EXPECT_EQ(codec::EncodeJson(*app.Find("envFrom"), 0),
            R"([{"secretRef":{"name":"sec","optional":true}}])");
  EXPECT_EQ(codec::EncodeJson(*app.Find("livenessProbe"), 0),
            R"({"httpGet":{"path":"/healthz","port":8080},"initialDelaySeconds":5,"periodSeconds":7})");
  const codec::Node& debugger = spec->Find("ephemeralContainers")->items.at(0);
  EXPECT_EQ(codec::StringOf(debugger.Find("name")), "debugger");
  EXPECT_EQ(codec::StringOf(debugger.Find("image")), "busybox:latest");
  EXPECT_EQ(codec::StringOf(debugger.Find("targetContainerName")), "app");
}

// An embedded struct's message that is not length-delimited, or cut short, is refused.
TEST(ProtobufObjectTest, MalformedEmbeddedMessages) {
  const std::string cut_short = "\x0a\x05/";  // hostPath=1 of 5 bytes, 1 there
  for (const std::string& volume :
       {Bytes(1, "v") + Int(2, 7), Bytes(1, "v") + Bytes(2, cut_short)}) {
    auto object = DecodeProtobufObject(Envelope("Pod", Meta("p") + Bytes(2, Bytes(1, volume))),
                                       Schema::Objects());
    ASSERT_FALSE(object);
    EXPECT_THAT(object.error().Message(), ::testing::HasSubstr("malformed protobuf"));
  }
}

TEST(ProtobufObjectTest, EvictionAsKubectlDrainSendsIt) {
  // policy/v1 Eviction {metadata=1, deleteOptions=2 {gracePeriodSeconds=1, preconditions=2
  // {uid=1}, dryRun=5}}: a group's kind and a meta/v1 message the schema generator added.
  const std::string options = Int(1, 30) + Bytes(2, Bytes(1, "u-1")) + Bytes(5, "All");
  const std::string raw = Bytes(1, Bytes(1, "web") + Bytes(3, "default")) + Bytes(2, options);
  const std::string body = std::string("k8s\0", 4) +
                           Bytes(1, Bytes(1, "policy/v1") + Bytes(2, "Eviction")) + Bytes(2, raw);
  auto object = DecodeProtobufObject(body, Schema::Objects());
  ASSERT_TRUE(object) << object.error();
  EXPECT_EQ(codec::EncodeJson(*object, 0),
            R"({"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web",)"
            R"("namespace":"default"},"deleteOptions":{"gracePeriodSeconds":30,)"
            R"("preconditions":{"uid":"u-1"},"dryRun":["All"]}})");
}

// kubectl auth can-i sends its review in protobuf: a group named PACKAGE.k8s.io, which the Go
// package (authorization) does not spell out.
TEST(ProtobufObjectTest, AccessReviewAsKubectlAuthSendsIt) {
  // SelfSubjectAccessReview {metadata=1, spec=2 {resourceAttributes=1 {namespace=1, verb=2,
  // resource=5}}}.
  const std::string attributes = Bytes(1, "ci") + Bytes(2, "create") + Bytes(5, "pods");
  const std::string raw = Bytes(1, "") + Bytes(2, Bytes(1, attributes));
  const std::string body =
      std::string("k8s\0", 4) +
      Bytes(1, Bytes(1, "authorization.k8s.io/v1") + Bytes(2, "SelfSubjectAccessReview")) +
      Bytes(2, raw);
  auto object = DecodeProtobufObject(body, Schema::Objects());
  ASSERT_TRUE(object) << object.error();
  EXPECT_THAT(codec::EncodeJson(*object, 0),
              ::testing::HasSubstr(R"("spec":{"resourceAttributes":{"namespace":"ci",)"
                                   R"("verb":"create","resource":"pods"}})"));
  struct Case {
    std::string kind, api_version;
  };
  for (const Case& c : std::vector<Case>{{"Pod", "v1"},
                                         {"Eviction", "policy/v1"},
                                         {"Lease", "coordination.k8s.io/v1"},
                                         {"SelfSubjectReview", "authentication.k8s.io/v1"},
                                         {"SelfSubjectRulesReview", "authorization.k8s.io/v1"}}) {
    ASSERT_NE(Schema::Objects().Root(c.kind), nullptr) << c.kind;
    EXPECT_EQ(Schema::Objects().Root(c.kind)->ApiVersion(), c.api_version) << c.kind;
  }
}

TEST(ProtobufObjectTest, Refusals) {
  EXPECT_THAT(DecodeProtobufObject("{}", Schema::Objects()).error().Message(),
              ::testing::HasSubstr("does not appear to be a protobuf message"));
  EXPECT_THAT(DecodeProtobufObject(Envelope("Widget", ""), Schema::Objects()).error().Message(),
              ::testing::HasSubstr("no kind \"Widget\" is registered"));
  EXPECT_FALSE(DecodeProtobufObject(Envelope("ConfigMap", "\x0a\xff"), Schema::Objects()));
  // Truncated envelope.
  EXPECT_FALSE(DecodeProtobufObject(std::string("k8s\0\x12\x10", 6), Schema::Objects()));
}

// A packed field may come in several runs and a map may repeat a key, as Go's unmarshalling
// accepts them: the runs join in order, a repeated key replaces its value where it first was.
// Large ones are linear (a repeated search of the map made 2.8 MB of labels take 110 s).
TEST(ProtobufObjectTest, PackedRunsAndRepeatedMapKeys) {
  // PodSpec {securityContext=14 {supplementalGroups=4 (packed)}}; ObjectMeta labels=11.
  const std::string spec =
      Bytes(14, Bytes(4, "\x01\x02") + Bytes(4, "\x03") + Bytes(4, "\x84\x01"));
  const std::string meta =
      Meta("p", Entry(11, "a", "1") + Entry(11, "b", "2") + Entry(11, "a", "3"));
  auto pod = DecodeProtobufObject(Envelope("Pod", meta + Bytes(2, spec)), Schema::Objects());
  ASSERT_TRUE(pod) << pod.error();
  EXPECT_EQ(codec::EncodeJson(*pod->Find("metadata")->Find("labels"), 0), R"({"a":"3","b":"2"})");
  EXPECT_EQ(codec::EncodeJson(*pod->FindPath({"spec", "securityContext", "supplementalGroups"}), 0),
            "[1,2,3,132]");

  std::string labels;
  for (int i = 0; i < 100'000; ++i) labels += Entry(11, "k" + std::to_string(i), "v");
  labels += Entry(11, "k7", "again");
  auto many = DecodeProtobufObject(Envelope("Pod", Meta("p", labels)), Schema::Objects());
  ASSERT_TRUE(many) << many.error();
  const codec::Node& got = *many->FindPath({"metadata", "labels"});
  ASSERT_EQ(got.members.size(), 100'000u);
  EXPECT_EQ(got.members[7].value.scalar, "again");
  EXPECT_EQ(got.members[99'999].key, "k99999");
}

}  // namespace
}  // namespace podlimits::api
