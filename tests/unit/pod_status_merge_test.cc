// The node's pod status merged with the conditions others own, and readiness gates.
#include "nodeagent/pod_status_merge.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "test_support.h"

namespace podlimits::nodeagent {
namespace {

using podlimits::testing::ParseJsonValue;

// The node's computed status: containers ready.
constexpr std::string_view kComputed =
    R"({"phase":"Running","conditions":[)"
    R"({"type":"Initialized","status":"True","lastTransitionTime":"T1"},)"
    R"({"type":"Ready","status":"True","lastTransitionTime":"T1"},)"
    R"({"type":"ContainersReady","status":"True","lastTransitionTime":"T1"},)"
    R"({"type":"PodScheduled","status":"True","lastTransitionTime":"T1"}]})";

std::string Merged(std::string_view pod) {
  codec::Node next = ParseJsonValue(kComputed);
  MergePodStatus(next, ParseJsonValue(pod), "NOW");
  return codec::EncodeJson(*next.Find("conditions"), 0);
}

TEST(PodStatusMergeTest, OthersConditionsAreKeptAheadOfTheKubelets) {
  EXPECT_EQ(Merged(R"({"status":{"conditions":[)"
                   R"({"type":"DisruptionTarget","status":"True","reason":"EvictionByEvictionAPI"},)"
                   R"({"type":"Ready","status":"False"},)"
                   R"({"type":"PodScheduled","status":"True","lastTransitionTime":"T0"}]}})"),
            R"([{"type":"DisruptionTarget","status":"True","reason":"EvictionByEvictionAPI"},)"
            R"({"type":"Initialized","status":"True","lastTransitionTime":"T1"},)"
            R"({"type":"Ready","status":"True","lastTransitionTime":"T1"},)"
            R"({"type":"ContainersReady","status":"True","lastTransitionTime":"T1"},)"
            R"({"type":"PodScheduled","status":"True","lastTransitionTime":"T0"}])");
}

TEST(PodStatusMergeTest, ReadinessGatesHoldReadyBack) {
  struct Case {
    std::string name, conditions, ready;
  };
  const std::string gates =
      R"("spec":{"readinessGates":[{"conditionType":"a.io/lb"},{"conditionType":"b.io/dns"}]})";
  const std::vector<Case> cases = {
      {"no gate conditions", "[]",
       R"({"type":"Ready","status":"False","lastProbeTime":null,"lastTransitionTime":"NOW",)"
       R"("reason":"ReadinessGatesNotReady","message":"corresponding condition of pod readiness )"
       R"(gate \"a.io/lb\" does not exist., corresponding condition of pod readiness gate )"
       R"(\"b.io/dns\" does not exist."})"},
      {"one False, held since T0",
       R"([{"type":"a.io/lb","status":"True"},{"type":"b.io/dns","status":"False"},)"
       R"({"type":"Ready","status":"False","lastTransitionTime":"T0"}])",
       R"({"type":"Ready","status":"False","lastProbeTime":null,"lastTransitionTime":"T0",)"
       R"("reason":"ReadinessGatesNotReady","message":"the status of pod readiness gate )"
       R"(\"b.io/dns\" is not \"True\", but False"})"},
      {"all True", R"([{"type":"a.io/lb","status":"True"},{"type":"b.io/dns","status":"True"}])",
       R"({"type":"Ready","status":"True","lastTransitionTime":"T1"})"},
  };
  for (const auto& c : cases) {
    codec::Node next = ParseJsonValue(kComputed);
    MergePodStatus(next, ParseJsonValue("{" + gates + R"(,"status":{"conditions":)" + c.conditions + "}}"),
                   "NOW");
    std::string ready;
    for (const auto& cond : next.Find("conditions")->items) {
      if (cond.Find("type")->scalar == "Ready") ready = codec::EncodeJson(cond, 0);
    }
    EXPECT_EQ(ready, c.ready) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::nodeagent
