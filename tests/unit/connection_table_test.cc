// Who gets a connection slot and who gives one up (apiserver/connection_table.h).
#include "http/connection_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace podlimits::http {
namespace {

using Ids = std::vector<ConnectionTable::Id>;

// One step of a scenario: a connection arrives, turns busy, waits again or goes.
struct Step {
  enum Kind { kAdmit, kBusy, kWaiting, kRemove } kind;
  ConnectionTable::Id id;
  std::string source;         // kAdmit
  bool want_admitted = true;  // kAdmit
  Ids want_displaced;         // kAdmit
  bool want_busy = true;      // kBusy
};

Step Admit(ConnectionTable::Id id, std::string source, Ids displaced = {}) {
  return {Step::kAdmit, id, std::move(source), true, std::move(displaced)};
}
Step Refused(ConnectionTable::Id id, std::string source) {
  return {Step::kAdmit, id, std::move(source), false, {}};
}
Step Busy(ConnectionTable::Id id, bool ok = true) {
  return {Step::kBusy, id, "", true, {}, ok};
}
Step Waiting(ConnectionTable::Id id) {
  return {Step::kWaiting, id, "", true, {}};
}
Step Remove(ConnectionTable::Id id) {
  return {Step::kRemove, id, "", true, {}};
}

struct Case {
  std::string name;
  ConnectionCaps caps;
  std::vector<Step> steps;
  std::size_t want_size;
  std::size_t want_waiting;
};

TEST(ConnectionTable, Scenarios) {
  const std::vector<Case> cases = {
      {"under the caps everyone gets in",
       {4, 4},
       {Admit(1, "a"), Admit(2, "b"), Admit(3, "a")},
       3,
       3},
      {"over the global cap the oldest waiting connection of the largest source goes",
       {3, 3},
       {Admit(1, "b"), Admit(2, "a"), Admit(3, "a"), Admit(4, "c", {2})},
       3,
       3},
      {"over the per-source cap the source's own oldest waiting connection goes",
       {10, 2},
       {Admit(1, "a"), Admit(2, "b"), Admit(3, "a"), Admit(4, "a", {1})},
       3,
       3},
      {"busy connections are not displaced",
       {2, 2},
       {Admit(1, "a"), Busy(1), Admit(2, "a"), Admit(3, "a", {2})},
       2,
       1},
      {"when every slot is busy the newcomer is refused",
       {2, 2},
       {Admit(1, "a"), Admit(2, "b"), Busy(1), Busy(2), Refused(3, "c")},
       2,
       0},
      {"the largest source with nothing waiting is passed over",
       {3, 3},
       {Admit(1, "a"), Admit(2, "a"), Busy(1), Busy(2), Admit(3, "b"), Admit(4, "c", {3})},
       3,
       1},
      {"a connection waiting again queues as the newest",
       {2, 2},
       {Admit(1, "a"), Admit(2, "a"), Busy(1), Waiting(1), Admit(3, "a", {2})},
       2,
       2},
      {"a displaced connection learns it when its request arrives",
       {1, 1},
       {Admit(1, "a"), Admit(2, "a", {1}), Busy(1, false), Busy(2)},
       1,
       0},
      {"a removed connection frees its slot",
       {1, 1},
       {Admit(1, "a"), Busy(1), Refused(2, "a"), Remove(1), Admit(3, "a")},
       1,
       1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ConnectionTable table(c.caps);
    for (const Step& step : c.steps) {
      switch (step.kind) {
        case Step::kAdmit: {
          auto got = table.Admit(step.id, step.source);
          EXPECT_EQ(got.admitted, step.want_admitted) << "connection " << step.id;
          EXPECT_EQ(got.displaced, step.want_displaced) << "connection " << step.id;
          break;
        }
        case Step::kBusy:
          EXPECT_EQ(table.Busy(step.id), step.want_busy) << "connection " << step.id;
          break;
        case Step::kWaiting:
          table.Waiting(step.id);
          break;
        case Step::kRemove:
          table.Remove(step.id);
          break;
      }
    }
    EXPECT_EQ(table.size(), c.want_size);
    EXPECT_EQ(table.waiting(), c.want_waiting);
  }
}

TEST(ConnectionTable, DisplaceOneTakesFromTheLargestSource) {
  ConnectionTable table({10, 10});
  table.Admit(1, "a");
  table.Admit(2, "b");
  table.Admit(3, "b");
  EXPECT_EQ(table.DisplaceOne(), Ids{2});
  EXPECT_EQ(table.DisplaceOne(), Ids{3});  // a tie: the source that sorts last goes first
  EXPECT_EQ(table.DisplaceOne(), Ids{1});
  EXPECT_EQ(table.DisplaceOne(), Ids{});
  EXPECT_EQ(table.size(), 0u);
}

}  // namespace
}  // namespace podlimits::http
