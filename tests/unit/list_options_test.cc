// The ListOptions of lists and watches as apimachinery's ValidateListOptions checks them (the
// WatchList feature on, as in kube-apiserver 1.36): each row a query, and the apiserver's answer
// written out. tests/clients/go checks the same messages against apimachinery itself.
#include "listwatch/list_options.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace podlimits::apiserver {
namespace {

constexpr std::string_view kInvalid = "ListOptions.meta.k8s.io \"\" is invalid: ";

http::HttpRequest Query(std::map<std::string, std::string> query) {
  http::HttpRequest r;
  r.method = "GET";
  r.path = "/api/v1/configmaps";
  for (auto& [k, v] : query) r.query[k] = v;
  return r;
}

TEST(ListOptionsTest, UpstreamsAnswers) {
  struct Case {
    const char* name;
    std::map<std::string, std::string> query;
    std::string message;  // "" when served
  };
  const std::string kNeedsNotOlderThan =
      "resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
      "resourceVersionMatch to NotOlderThan";
  const std::string kMatchNeedsInitialEvents =
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless "
      "sendInitialEvents is provided";
  const std::string kMatchWithContinue =
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is "
      "provided";
  const Case cases[] = {
      // Lists.
      {"a plain list", {}, ""},
      {"a list ignores allowWatchBookmarks", {{"allowWatchBookmarks", "true"}}, ""},
      {"a list with sendInitialEvents", {{"sendInitialEvents", "true"}},
       "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
      {"a list with sendInitialEvents=false: set is set", {{"sendInitialEvents", "false"}},
       "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
      {"watch=false is a list", {{"watch", "false"}, {"sendInitialEvents", "1"}},
       "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
      {"a list's match without resourceVersion and with sendInitialEvents",
       {{"resourceVersionMatch", "NotOlderThan"}, {"sendInitialEvents", "true"}},
       "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless "
       "resourceVersion is provided, sendInitialEvents: Forbidden: sendInitialEvents is "
       "forbidden for list]"},
      {"a list's match with continue",
       {{"resourceVersionMatch", "NotOlderThan"}, {"resourceVersion", "1"}, {"continue", "x"}},
       kMatchWithContinue},
      // Watches.
      {"a plain watch", {{"watch", "true"}}, ""},
      {"watch=1 is a watch", {{"watch", "1"}, {"sendInitialEvents", "true"}}, kNeedsNotOlderThan},
      {"a watch ignores limit", {{"watch", "true"}, {"limit", "5"}, {"allowWatchBookmarks", "true"}},
       ""},
      {"client-go's watch-list",
       {{"watch", "true"},
        {"sendInitialEvents", "true"},
        {"resourceVersionMatch", "NotOlderThan"},
        {"allowWatchBookmarks", "true"}},
       ""},
      {"watch-list from a resourceVersion",
       {{"watch", "true"},
        {"sendInitialEvents", "true"},
        {"resourceVersionMatch", "NotOlderThan"},
        {"resourceVersion", "7"}},
       ""},
      {"sendInitialEvents=false with NotOlderThan",
       {{"watch", "true"}, {"sendInitialEvents", "false"}, {"resourceVersionMatch", "NotOlderThan"}},
       ""},
      {"sendInitialEvents without a match",
       {{"watch", "true"}, {"sendInitialEvents", "true"}}, kNeedsNotOlderThan},
      {"sendInitialEvents=false without a match",
       {{"watch", "true"}, {"sendInitialEvents", "false"}}, kNeedsNotOlderThan},
      {"sendInitialEvents with Exact",
       {{"watch", "true"}, {"sendInitialEvents", "true"}, {"resourceVersionMatch", "Exact"}},
       "[" + kNeedsNotOlderThan +
           ", resourceVersionMatch: Unsupported value: \"Exact\": supported values: "
           "\"NotOlderThan\"]"},
      {"a watch's match without sendInitialEvents",
       {{"watch", "true"}, {"resourceVersionMatch", "NotOlderThan"}, {"resourceVersion", "3"}},
       kMatchNeedsInitialEvents},
      {"a watch's match with continue",
       {{"watch", "true"},
        {"sendInitialEvents", "true"},
        {"resourceVersionMatch", "NotOlderThan"},
        {"continue", "x"}},
       kMatchWithContinue},
      {"every watch error at once",
       {{"watch", "true"}, {"resourceVersionMatch", "exact"}, {"continue", "x"}},
       "[" + kMatchNeedsInitialEvents +
           ", resourceVersionMatch: Unsupported value: \"exact\": supported values: "
           "\"NotOlderThan\", " +
           kMatchWithContinue + "]"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseListOptions(Query(c.query));
    if (c.message.empty()) {
      EXPECT_TRUE(parsed) << c.name << ": " << (parsed ? "" : parsed.error().message);
      continue;
    }
    ASSERT_FALSE(parsed) << c.name;
    EXPECT_EQ(parsed.error().code, 422) << c.name;
    EXPECT_EQ(parsed.error().reason, "Invalid") << c.name;
    EXPECT_EQ(parsed.error().message, std::string(kInvalid) + c.message) << c.name;
  }
}

TEST(ListOptionsTest, WatchListFieldsRead) {
  auto parsed = ParseListOptions(Query({{"watch", "TRUE"},
                                        {"sendInitialEvents", "true"},
                                        {"resourceVersionMatch", "NotOlderThan"},
                                        {"allowWatchBookmarks", "yes"}}));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(parsed->watch);
  EXPECT_EQ(parsed->send_initial_events, true);
  EXPECT_TRUE(parsed->allow_watch_bookmarks);  // Go's query bool: anything but false and 0

  auto absent = ParseListOptions(Query({{"watch", "true"}}));
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->send_initial_events.has_value());
  EXPECT_FALSE(absent->allow_watch_bookmarks);
  auto off = ParseListOptions(Query(
      {{"watch", "true"}, {"sendInitialEvents", "False"}, {"resourceVersionMatch", "NotOlderThan"}}));
  ASSERT_TRUE(off);
  EXPECT_EQ(off->send_initial_events, false);
}

}  // namespace
}  // namespace podlimits::apiserver
