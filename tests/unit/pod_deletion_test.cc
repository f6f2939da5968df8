// Graceful deletion of pods: the grace period a delete gets, and when the object goes at once.
#include "apiserver/pod_deletion.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

codec::Node Pod(const std::string& json) {
  auto nodes = codec::ParseJsonStream(json);
  return std::move((*nodes)[0]);
}

TEST(PodDeletionTest, DecidesAsThePodStrategy) {
  struct Case {
    std::string name, pod;
    std::optional<std::int64_t> grace;
    bool changes, immediate;
    std::int64_t seconds;
  };
  const std::string bound =
      R"({"spec":{"nodeName":"n","terminationGracePeriodSeconds":45},"status":{"phase":"Running"}})";
  const std::vector<Case> cases = {
      {"the pod's own period", bound, std::nullopt, true, false, 45},
      {"the delete's period", bound, 5, true, false, 5},
      {"default 30", R"({"spec":{"nodeName":"n"},"status":{"phase":"Running"}})", std::nullopt,
       true, false, 30},
      {"force", bound, 0, true, true, 0},
      {"negative is one second", bound, -1, true, false, 1},
      {"not bound: at once", R"({"spec":{},"status":{"phase":"Pending"}})", std::nullopt, true,
       true, 0},
      {"succeeded: at once",
       R"({"spec":{"nodeName":"n"},"status":{"phase":"Succeeded"}})", std::nullopt, true, true, 0},
      {"failed: at once", R"({"spec":{"nodeName":"n"},"status":{"phase":"Failed"}})",
       std::nullopt, true, true, 0},
      {"already going sooner",
       R"({"metadata":{"deletionGracePeriodSeconds":10},"spec":{"nodeName":"n"},"status":{"phase":"Running"}})",
       std::nullopt, false, false, 0},
      {"a shorter second delete",
       R"({"metadata":{"deletionGracePeriodSeconds":10},"spec":{"nodeName":"n"},"status":{"phase":"Running"}})",
       3, true, false, 3},
  };
  for (const auto& c : cases) {
    DeleteOptions options;
    options.grace_period_seconds = c.grace;
    auto d = DecidePodDeletion(Pod(c.pod), options);
    ASSERT_EQ(d.has_value(), c.changes) << c.name;
    if (!d) continue;
    EXPECT_EQ(d->immediate, c.immediate) << c.name;
    EXPECT_EQ(d->grace_seconds, c.seconds) << c.name;
  }
}

TEST(PodDeletionTest, ParsesDeleteOptions) {
  auto o = ParseDeleteOptions(
      R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":7,"preconditions":{"uid":"u"}})",
      std::nullopt);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->grace_period_seconds, 7);
  EXPECT_EQ(o->precondition_uid, "u");
  auto q = ParseDeleteOptions("", std::string("12"));
  ASSERT_TRUE(q);
  EXPECT_EQ(q->grace_period_seconds, 12);
  EXPECT_FALSE(ParseDeleteOptions("{not json", std::nullopt));
  EXPECT_FALSE(ParseDeleteOptions("", std::string("soon")));
}

TEST(PodDeletionTest, MarksThePod) {
  codec::Node pod = Pod(R"({"metadata":{"name":"web"}})");
  MarkPodDeleting(pod, 30, std::chrono::sys_seconds(std::chrono::seconds(1'800'000'000)));
  EXPECT_EQ(pod.FindPath({"metadata", "deletionTimestamp"})->scalar, "2027-01-15T08:00:30Z");
  EXPECT_EQ(pod.FindPath({"metadata", "deletionGracePeriodSeconds"})->scalar, "30");
}

}  // namespace
}  // namespace podlimits::apiserver
