// The workload controllers over the REST handler and a fresh store, one round at a time
// (SyncOnce), with the node's part (pods becoming Running and Ready, or finishing) written by the
// test, and the controllers' clock the test's to move (now_).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codec/json_codec.h"
#include "controllers/workload_controllers.h"
#include "listwatch/stored_object.h"
#include "rest_handler_fixture.h"

namespace podlimits::controllers {

class WorkloadControllersTest : public apiserver::RestHandlerTest {
 protected:
  void SetUp() override {
    RestHandlerTest::SetUp();
    controllers_ = std::make_unique<WorkloadControllers>(
        *store_, *rest_, [this] { return now_; });
  }

  std::vector<codec::Node> Items(std::string_view resource) {
    std::vector<codec::Node> out;
    auto listed = store_->List(std::string(resource), "default", false);
    EXPECT_TRUE(listed);
    for (const auto& item : listed->items) out.push_back(*apiserver::ParseStoredObject(item.data));
    return out;
  }

  codec::Node Get(std::string_view path) {
    auto r = Call("GET", std::string(path));
    EXPECT_EQ(r.status, 200) << r.body;
    return (*codec::ParseJsonStream(r.body))[0];
  }

  // The node's part: every pod not being deleted Running and Ready (or in `phase`).
  void RunPods(std::string_view phase = "Running") {
    for (codec::Node pod : Items("pods")) {
      if (pod.FindPath({"metadata", "deletionTimestamp"})) continue;
      codec::Node status = codec::Node::Object();
      status.Set("phase", codec::Node::String(std::string(phase)));
      codec::Node ready = codec::Node::Object();
      ready.Set("type", codec::Node::String("Ready"));
      ready.Set("status", codec::Node::String(phase == "Running" ? "True" : "False"));
      ready.Set("lastTransitionTime", codec::Node::String("2026-11-25T12:00:00Z"));
      codec::Node conditions = codec::Node::Array();
      conditions.items.push_back(std::move(ready));
      status.Set("conditions", std::move(conditions));
      pod.Set("status", std::move(status));
      const std::string name = codec::StringOf(pod.FindPath({"metadata", "name"}));
      auto r = Call("PUT", "/api/v1/namespaces/default/pods/" + name + "/status",
                    codec::EncodeJson(pod, 0));
      EXPECT_EQ(r.status, 200) << r.body;
    }
  }

  // Pods being deleted are gone (the node's part of a graceful delete).
  void ReapPods() {
    for (const codec::Node& pod : Items("pods")) {
      if (!pod.FindPath({"metadata", "deletionTimestamp"})) continue;
      auto got = store_->Get({"pods", "default", codec::StringOf(pod.FindPath({"metadata", "name"}))});
      ASSERT_TRUE(got);
      ASSERT_TRUE(store_->Delete(got->key, got->revision, [&](std::int64_t) { return got->data; }));
    }
  }

  void Rounds(int n) {
    for (int i = 0; i < n; ++i) {
      controllers_->SyncOnce();
      RunPods();
    }
  }

  std::unique_ptr<WorkloadControllers> controllers_;
  // The controllers' time; the API's (creationTimestamp) stays at 2026-11-25T12:00:00Z.
  std::chrono::sys_seconds now_ = *printers::ParseApiTime("2026-11-25T12:00:00Z");
};

}  // namespace podlimits::controllers
