// The NRI plugin's wire without a socket: NRI's mux frames, ttrpc messages and requests and
// responses, NRI's protobuf messages (field numbers of api.proto, written here byte by byte with
// tests/unit/protobuf_writer.h, independently of the code under test), and what a broken or
// hostile input becomes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nri/nri_messages.h"
#include "nri/ttrpc_wire.h"
#include "protobuf_writer.h"

namespace podlimits::nri {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace pb = podlimits::testing::protobuf;

std::string BigEndian(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

TEST(NriMuxTest, FramesArriveInPiecesAndTwoConnectionsInterleave) {
  const std::string wire = BigEndian(1) + BigEndian(3) + "abc" + BigEndian(2) + BigEndian(0) +
                           BigEndian(1) + BigEndian(2) + "de";
  MuxReader r;
  std::vector<std::pair<std::uint32_t, std::string>> got;
  for (char c : wire) {  // one byte at a time, the worst a socket can do
    r.Feed(std::string_view(&c, 1));
    for (;;) {
      auto f = r.Next();
      ASSERT_TRUE(f) << f.error();
      if (!*f) break;
      got.emplace_back((*f)->conn, (*f)->payload);
    }
  }
  EXPECT_THAT(got, ElementsAre(std::pair<std::uint32_t, std::string>{1, "abc"},
                               std::pair<std::uint32_t, std::string>{2, ""},
                               std::pair<std::uint32_t, std::string>{1, "de"}));
  EXPECT_EQ(r.Pending(), 0u);
  EXPECT_EQ(MuxFrames(2, "xyz"), BigEndian(2) + BigEndian(3) + "xyz");
}

TEST(NriMuxTest, BrokenFrames) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* error;
  } cases[] = {
      {"reserved connection 0", BigEndian(0) + BigEndian(1) + "x",
       "NRI mux frame for connection 0, which is reserved"},
      {"oversized", BigEndian(1) + BigEndian(10 + (4u << 20) + 1),
       "NRI mux frame of 4194315 bytes for connection 1: more than the 4194314 a frame may carry"},
  };
  for (const auto& c : cases) {
    MuxReader r;
    r.Feed(c.bytes);
    auto f = r.Next();
    ASSERT_FALSE(f) << c.name;
    EXPECT_EQ(f.error().Message(), c.error) << c.name;
  }
  MuxReader truncated;
  truncated.Feed(BigEndian(1) + BigEndian(10) + "abc");
  auto f = truncated.Next();
  ASSERT_TRUE(f);
  EXPECT_FALSE(*f);
  EXPECT_EQ(truncated.Pending(), 11u);
}

TEST(NriTtrpcTest, MessagesAndTheirLimits) {
  const std::string request = pb::Bytes(1, "nri.pkg.api.v1alpha1.Plugin") +
                              pb::Bytes(2, "Configure") + pb::Bytes(3, "\x12\x01x") +
                              pb::Int(4, 2000000000) + pb::Bytes(5, pb::Bytes(1, "k"));
  const std::string msg = BigEndian(request.size()) + BigEndian(3) + std::string("\x01\x00", 2) + request;
  EXPECT_EQ(TtrpcMessageBytes(3, TtrpcType::kRequest, request), msg);

  TtrpcReader r;
  r.Feed(msg.substr(0, 7));
  auto none = r.Next();
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  r.Feed(msg.substr(7));
  auto m = r.Next();
  ASSERT_TRUE(m && *m);
  EXPECT_EQ((*m)->stream_id, 3u);
  EXPECT_EQ((*m)->type, TtrpcType::kRequest);
  auto req = DecodeTtrpcRequest((*m)->payload);
  ASSERT_TRUE(req) << req.error();
  EXPECT_EQ(req->service, "nri.pkg.api.v1alpha1.Plugin");
  EXPECT_EQ(req->method, "Configure");
  EXPECT_EQ(req->payload, "\x12\x01x");
  EXPECT_EQ(req->timeout_nano, 2000000000);
  EXPECT_EQ(EncodeTtrpcRequest(*req), request.substr(0, request.size() - 5));  // no metadata

  struct Case {
    const char* name;
    std::string header;
    const char* error;
  } bad[] = {
      {"oversized", BigEndian((4u << 20) + 1) + BigEndian(1) + std::string("\x01\x00", 2),
       "ttrpc message length 4194305 exceed maximum message size of 4194304"},
      {"unknown type", BigEndian(0) + BigEndian(5) + std::string("\x07\x00", 2),
       "ttrpc message of unknown type 7 on stream 5"},
  };
  for (const auto& c : bad) {
    TtrpcReader br;
    br.Feed(c.header);
    auto e = br.Next();
    ASSERT_FALSE(e) << c.name;
    EXPECT_EQ(e.error().Message(), c.error) << c.name;
  }
}

TEST(NriTtrpcTest, RequestsThatAreNotRequests) {
  struct Case {
    const char* name;
    std::string payload;
    const char* error;
  } cases[] = {
      {"no method", pb::Bytes(1, "svc"), "ttrpc Request without a service or method"},
      {"truncated string", pb::Bytes(1, "svc").substr(0, 3), "malformed ttrpc Request: truncated field"},
      {"field 0", std::string("\x02\x00", 2), "malformed ttrpc Request: bad field tag"},
      {"a group wire type", std::string("\x0b", 1),
       "malformed ttrpc Request: field 1 cannot be skipped"},
  };
  for (const auto& c : cases) {
    auto r = DecodeTtrpcRequest(c.payload);
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().Message(), c.error) << c.name;
  }
}

TEST(NriTtrpcTest, ResponsesCarryAStatus) {
  // google.rpc.Status {code 9, message "no"}, then the payload.
  const std::string failed = pb::Bytes(1, pb::Int(1, 9) + pb::Bytes(2, "no"));
  EXPECT_EQ(EncodeTtrpcResponse({kCodeFailedPrecondition, "no", {}}), failed);
  EXPECT_EQ(EncodeTtrpcResponse({kCodeOk, {}, "p"}), pb::Bytes(1, "") + pb::Bytes(2, "p"));
  auto decoded = DecodeTtrpcResponse(failed + pb::Bytes(2, "x"));
  ASSERT_TRUE(decoded) << decoded.error();
  EXPECT_EQ(decoded->code, 9);
  EXPECT_EQ(decoded->message, "no");
  EXPECT_EQ(decoded->payload, "x");
}

TEST(NriMessagesTest, ContainerRequestFromApiProtoFieldNumbers) {
  // PodSandbox: id 1, name 2, uid 3, namespace 4, annotations 6 (map entries), linux 8
  // {cgroup_parent 3}; Container: id 1, pod_sandbox_id 2, name 3, annotations 6, linux 11
  // {namespaces 1 {type 1}, cgroups_path 5}, pid 12, rlimits 13 {type 1, hard 2, soft 3}.
  const std::string pod = pb::Bytes(1, "sb1") + pb::Bytes(2, "web") + pb::Bytes(3, "uid-1") +
                          pb::Bytes(4, "default") + pb::Entry(6, "a", "1") +
                          pb::Entry(6, "b", "2") + pb::Bytes(7, "runc") +
                          pb::Bytes(8, pb::Bytes(3, "/kubepods/podx")) + pb::Int(9, 42) +
                          pb::Bytes(10, "10.0.0.1");
  const std::string container =
      pb::Bytes(1, "c1") + pb::Bytes(2, "sb1") + pb::Bytes(3, "app") + pb::Int(4, 1) +
      pb::Entry(6, "c", "3") + pb::Bytes(7, "/bin/sh") +
      pb::Bytes(11, pb::Bytes(1, pb::Bytes(1, "cgroup")) + pb::Bytes(1, pb::Bytes(1, "pid")) +
                        pb::Bytes(5, "/kubepods/podx/c1")) +
      pb::Int(12, 77) + pb::Bytes(13, pb::Bytes(1, "RLIMIT_NOFILE") + pb::Int(2, 2048) + pb::Int(3, 1024));
  auto req = DecodeContainerRequest(pb::Bytes(1, pod) + pb::Bytes(2, container));
  ASSERT_TRUE(req) << req.error();
  EXPECT_EQ(req->pod.id, "sb1");
  EXPECT_EQ(req->pod.name, "web");
  EXPECT_EQ(req->pod.pod_namespace, "default");
  EXPECT_EQ(req->pod.annotations, (StringMap{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(req->pod.runtime_handler, "runc");
  EXPECT_EQ(req->pod.cgroup_parent, "/kubepods/podx");
  EXPECT_EQ(req->container.name, "app");
  EXPECT_EQ(req->container.annotations, (StringMap{{"c", "3"}}));
  ASSERT_EQ(req->container.namespaces.size(), 2u);
  EXPECT_EQ(req->container.namespaces[0].type, "cgroup");
  EXPECT_EQ(req->container.cgroups_path, "/kubepods/podx/c1");
  EXPECT_EQ(req->container.pid, 77u);
  EXPECT_THAT(req->container.rlimits, ElementsAre(PosixRlimit{"RLIMIT_NOFILE", 2048, 1024}));

  // Written back by the encoder, read again: the same message.
  auto again = DecodeContainerRequest(EncodeContainerRequest(req->pod, req->container));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->pod.annotations, req->pod.annotations);
  EXPECT_EQ(again->container.cgroups_path, req->container.cgroups_path);

  auto event = DecodeStateChangeEvent(pb::Int(1, 1) + pb::Bytes(2, pod));
  ASSERT_TRUE(event) << event.error();
  EXPECT_EQ(event->event, Event::kRunPodSandbox);
  EXPECT_EQ(event->pod.name, "web");
}

TEST(NriMessagesTest, BrokenMessagesNameWhatBroke) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* error;
  } cases[] = {
      {"no pod", pb::Bytes(2, ""), "NRI container request without a pod"},
      {"pod name as a varint", pb::Bytes(1, pb::Int(2, 5)),
       "malformed NRI PodSandbox: field 2 is not a string"},
      {"truncated annotation entry", pb::Bytes(1, pb::Bytes(6, pb::Bytes(1, "key")).substr(0, 4)),
       "malformed NRI PodSandbox: field 6 is truncated"},
      {"rlimit hard as a string", pb::Bytes(1, "") + pb::Bytes(2, pb::Bytes(13, pb::Bytes(2, "x"))),
       "malformed NRI POSIXRlimit: field 2 is not a varint"},
      {"cut in the middle", (pb::Bytes(1, pb::Bytes(2, "web"))).substr(0, 3),
       "malformed NRI container request: field 1 is truncated"},
  };
  for (const auto& c : cases) {
    auto r = DecodeContainerRequest(c.bytes);
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().Message(), c.error) << c.name;
  }
}

TEST(NriMessagesTest, WhatThePluginWrites) {
  // RegisterPluginRequest {plugin_name 1, plugin_idx 2}; ConfigureResponse {events 2}.
  EXPECT_EQ(EncodeRegisterPluginRequest("podlimits", "10"),
            pb::Bytes(1, "podlimits") + pb::Bytes(2, "10"));
  EXPECT_EQ(EncodeConfigureResponse(0x449), pb::Int(2, 0x449));
  EXPECT_EQ(EncodeSynchronizeResponse(true), pb::Int(2, 1));
  EXPECT_EQ(EncodeSynchronizeResponse(false), "");
  // CreateContainerResponse {adjust 1: ContainerAdjustment {mounts 3, rlimits 7}}.
  ContainerAdjustment adjust;
  adjust.mounts.push_back({"/sys/fs/cgroup", "cgroup", "cgroup", {"rw"}});
  adjust.rlimits.push_back({"RLIMIT_CORE", 0, 0});
  EXPECT_EQ(EncodeCreateContainerResponse(adjust),
            pb::Bytes(1, pb::Bytes(3, pb::Bytes(1, "/sys/fs/cgroup") + pb::Bytes(2, "cgroup") +
                                          pb::Bytes(3, "cgroup") + pb::Bytes(4, "rw")) +
                             pb::Bytes(7, pb::Bytes(1, "RLIMIT_CORE"))));
  EXPECT_EQ(EncodeCreateContainerResponse({}), "");
  auto back = DecodeCreateContainerResponse(EncodeCreateContainerResponse(adjust));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->mounts, adjust.mounts);
  EXPECT_EQ(back->rlimits, adjust.rlimits);
}

}  // namespace
}  // namespace podlimits::nri
