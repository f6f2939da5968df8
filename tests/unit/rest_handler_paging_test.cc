// Paged lists (limit and continue) through the REST handler, as kube-apiserver pages them: every
// page at the first page's revision, tokens in upstream's format, remainingItemCount only
// without selectors, upstream's 400, 410, 422 and 504 answers, and Tables paged the same way.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <optional>
#include <string>
#include <vector>

#include "base/base64.h"
#include "codec/json_codec.h"
#include "rest_handler_fixture.h"

namespace podlimits::apiserver {
namespace {

// What a list (or Table, or Status) answer says, read back from its JSON.
struct Answer {
  int status = 0;
  std::vector<std::string> names;  // "ns/name" of each item (or row)
  std::vector<std::string> data;   // each item's data.v ("" when none)
  std::string resource_version;
  std::string continue_token;
  std::optional<std::int64_t> remaining;
  std::string reason, message;  // a Status's
};

Answer Read(const http::HttpResponse& r) {
  Answer a;
  a.status = r.status;
  auto parsed = codec::ParseJsonStream(r.body);
  if (!parsed || parsed->size() != 1) {
    ADD_FAILURE() << "not one JSON value: " << r.body;
    return a;
  }
  const codec::Node& body = (*parsed)[0];
  a.resource_version = codec::StringOf(body.FindPath({"metadata", "resourceVersion"}));
  a.continue_token = codec::StringOf(body.FindPath({"metadata", "continue"}));
  a.remaining = codec::IntOf(body.FindPath({"metadata", "remainingItemCount"}));
  a.reason = codec::StringOf(body.Find("reason"));
  a.message = codec::StringOf(body.Find("message"));
  const codec::Node* items = body.Find("items");
  const bool table = items == nullptr;
  if (table) items = body.Find("rows");
  if (items == nullptr) return a;
  for (const codec::Node& item : items->items) {
    const codec::Node& object = table ? *item.Find("object") : item;
    const std::string ns = codec::StringOf(object.FindPath({"metadata", "namespace"}));
    a.names.push_back(ns + "/" + codec::StringOf(object.FindPath({"metadata", "name"})));
    a.data.push_back(codec::StringOf(object.FindPath({"data", "v"})));
  }
  return a;
}

// The JSON inside a token.
std::string TokenJson(const std::string& token) {
  return Base64RawUrlDecode(token).value_or("?");
}

class RestHandlerPagingTest : public RestHandlerTest {
 protected:
  void SetUp() override {
    RestHandlerTest::SetUp();
    // default: cm-a .. cm-e (a, c and e labelled app=web); kube-system: cm-k.
    for (const char* name : {"cm-a", "cm-b", "cm-c", "cm-d", "cm-e"}) {
      Put("default", name, "1",
          name == std::string("cm-a") || name == std::string("cm-c") ||
              name == std::string("cm-e"));
    }
    Put("kube-system", "cm-k", "1", false);
  }

  void Put(const std::string& ns, const std::string& name, const std::string& v, bool web) {
    const std::string labels = web ? R"(,"labels":{"app":"web"})" : "";
    const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" +
                             name + "\"" + labels + R"(},"data":{"v":")" + v + "\"}}";
    auto created = Call("POST", "/api/v1/namespaces/" + ns + "/configmaps", body);
    if (created.status == 409) {
      created = Call("PUT", "/api/v1/namespaces/" + ns + "/configmaps/" + name, body);
    }
    ASSERT_TRUE(created.status == 201 || created.status == 200) << created.body;
  }

  Answer List(std::string path, std::map<std::string, std::string> query = {},
              std::string accept = "application/json") {
    http::HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    r.headers["accept"] = std::move(accept);
    r.user = "kubernetes-admin";
    auto response = rest_->Handle(r);
    EXPECT_TRUE(response.has_value());
    return Read(response.value_or(http::HttpResponse{}));
  }

  // Every page of a list, following its tokens.
  std::vector<Answer> Pages(const std::string& path, std::map<std::string, std::string> query,
                            const std::string& accept = "application/json") {
    std::vector<Answer> pages;
    while (pages.size() < 20) {
      pages.push_back(List(path, query, accept));
      if (pages.back().status != 200 || pages.back().continue_token.empty()) break;
      query["continue"] = pages.back().continue_token;
    }
    return pages;
  }

  // What the compaction of older versions did: every log entry up to `through` dropped.
  void CompactTheOldWay(std::int64_t through) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "state.db").c_str(), &db), SQLITE_OK);
    const std::string sql =
        "DELETE FROM changes WHERE revision <= " + std::to_string(through) +
        "; INSERT OR REPLACE INTO store_state(key, value) VALUES('compacted', " +
        std::to_string(through) + ")";
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
};

struct PageExpectation {
  std::vector<std::string> names;
  bool has_continue;
  std::optional<std::int64_t> remaining;
};

TEST_F(RestHandlerPagingTest, PagesFollowTheirContinueTokens) {
  struct Case {
    const char* name;
    std::string path;
    std::map<std::string, std::string> query;
    std::vector<PageExpectation> pages;
  };
  const Case cases[] = {
      {"first, middle and last page",
       "/api/v1/namespaces/default/configmaps",
       {{"limit", "2"}},
       {{{"default/cm-a", "default/cm-b"}, true, 3},
        {{"default/cm-c", "default/cm-d"}, true, 1},
        {{"default/cm-e"}, false, std::nullopt}}},
      {"every namespace",
       "/api/v1/configmaps",
       {{"limit", "4"}},
       {{{"default/cm-a", "default/cm-b", "default/cm-c", "default/cm-d"}, true, 2},
        {{"default/cm-e", "kube-system/cm-k"}, false, std::nullopt}}},
      {"a limit as large as the list",
       "/api/v1/namespaces/default/configmaps",
       {{"limit", "5"}},
       {{{"default/cm-a", "default/cm-b", "default/cm-c", "default/cm-d", "default/cm-e"},
         false,
         std::nullopt}}},
      {"no limit, no paging",
       "/api/v1/namespaces/default/configmaps",
       {},
       {{{"default/cm-a", "default/cm-b", "default/cm-c", "default/cm-d", "default/cm-e"},
         false,
         std::nullopt}}},
      {"a limit of 0 or less is none",
       "/api/v1/namespaces/default/configmaps",
       {{"limit", "-1"}},
       {{{"default/cm-a", "default/cm-b", "default/cm-c", "default/cm-d", "default/cm-e"},
         false,
         std::nullopt}}},
      {"resourceVersion=0 pages too",
       "/api/v1/namespaces/default/configmaps",
       {{"limit", "3"}, {"resourceVersion", "0"}},
       {{{"default/cm-a", "default/cm-b", "default/cm-c"}, true, 2},
        {{"default/cm-d", "default/cm-e"}, false, std::nullopt}}},
      // With selectors a page holds `limit` matching objects; a token whenever objects follow
      // the last one looked at (the next page may hold none), and never a count.
      {"a label selector",
       "/api/v1/namespaces/default/configmaps",
       {{"limit", "2"}, {"labelSelector", "app=web"}},
       {{{"default/cm-a", "default/cm-c"}, true, std::nullopt},
        {{"default/cm-e"}, false, std::nullopt}}},
      {"a selector whose match is the first object",
       "/api/v1/namespaces/default/configmaps",
       {{"limit", "1"}, {"fieldSelector", "metadata.name=cm-a"}},
       {{{"default/cm-a"}, true, std::nullopt}, {{}, false, std::nullopt}}},
      {"a selector that matches nothing reads to the end",
       "/api/v1/configmaps",
       {{"limit", "1"}, {"labelSelector", "app=none"}},
       {{{}, false, std::nullopt}}},
      {"a selector on the last page",
       "/api/v1/configmaps",
       {{"limit", "3"}, {"labelSelector", "!app"}},
       {{{"default/cm-b", "default/cm-d", "kube-system/cm-k"}, false, std::nullopt}}},
  };
  for (const auto& c : cases) {
    const auto pages = Pages(c.path, c.query);
    ASSERT_EQ(pages.size(), c.pages.size()) << c.name;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      EXPECT_EQ(pages[i].status, 200) << c.name << " page " << i << ": " << pages[i].message;
      EXPECT_EQ(pages[i].names, c.pages[i].names) << c.name << " page " << i;
      EXPECT_EQ(!pages[i].continue_token.empty(), c.pages[i].has_continue)
          << c.name << " page " << i;
      EXPECT_EQ(pages[i].remaining, c.pages[i].remaining) << c.name << " page " << i;
      // Every page shows the first page's revision.
      EXPECT_EQ(pages[i].resource_version, pages[0].resource_version) << c.name << " page " << i;
    }
  }
}

// More objects than one read holds (kMaxBatch): with selectors the store reads on, in batches,
// paged or not, and every match is found once.
TEST_F(RestHandlerPagingTest, SelectorsReadOnAcrossBatches) {
  constexpr int kMany = 1234;
  for (int i = 0; i < kMany; ++i) {
    const std::string name = fmt::format("many-{:04}", i);
    const std::string labels = i % 100 == 7 ? R"("labels":{"every":"hundredth"},)" : "";
    ASSERT_TRUE(store_->Create({"configmaps", "team", name}, [&](std::int64_t rv) {
      return R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":")" + name +
             R"(","namespace":"team",)" + labels + R"("resourceVersion":")" + std::to_string(rv) +
             R"("}})";
    }));
  }
  std::vector<std::string> expected;
  for (int i = 7; i < kMany; i += 100) expected.push_back(fmt::format("team/many-{:04}", i));
  ASSERT_EQ(expected.size(), 13u);
  auto unpaged = List("/api/v1/namespaces/team/configmaps", {{"labelSelector", "every=hundredth"}});
  EXPECT_EQ(unpaged.names, expected);
  EXPECT_TRUE(unpaged.continue_token.empty());
  std::vector<std::string> seen;
  const auto pages = Pages("/api/v1/namespaces/team/configmaps",
                           {{"limit", "5"}, {"labelSelector", "every=hundredth"}});
  ASSERT_EQ(pages.size(), 3u);
  for (const auto& page : pages) {
    EXPECT_EQ(page.remaining, std::nullopt);
    seen.insert(seen.end(), page.names.begin(), page.names.end());
  }
  EXPECT_EQ(pages[0].names.size(), 5u);
  EXPECT_EQ(pages[1].names.size(), 5u);
  EXPECT_EQ(seen, expected);
  auto none = List("/api/v1/namespaces/team/configmaps",
                   {{"limit", "1"}, {"labelSelector", "every=never"}});
  EXPECT_EQ(none.status, 200);
  EXPECT_TRUE(none.names.empty());
  EXPECT_TRUE(none.continue_token.empty());
  // Without selectors, the count of what follows.
  auto counted = List("/api/v1/namespaces/team/configmaps", {{"limit", "1000"}});
  EXPECT_EQ(counted.names.size(), 1000u);
  EXPECT_EQ(counted.remaining, kMany - 1000);
}

// The token is upstream's: the last key below the list's prefix, then NUL, and the revision.
TEST_F(RestHandlerPagingTest, TokensInTheApiserversFormat) {
  auto in_default = List("/api/v1/namespaces/default/configmaps", {{"limit", "2"}});
  EXPECT_EQ(
      TokenJson(in_default.continue_token),
      R"({"v":"meta.k8s.io/v1","rv":)" + in_default.resource_version + R"(,"start":"cm-b\u0000"})");
  auto everywhere = List("/api/v1/configmaps", {{"limit", "2"}});
  EXPECT_EQ(TokenJson(everywhere.continue_token), R"({"v":"meta.k8s.io/v1","rv":)" +
                                                      everywhere.resource_version +
                                                      R"(,"start":"default/cm-b\u0000"})");
  auto namespaces = List("/api/v1/namespaces", {{"limit", "1"}});
  EXPECT_EQ(namespaces.names, (std::vector<std::string>{"/default"}));
  EXPECT_EQ(TokenJson(namespaces.continue_token), R"({"v":"meta.k8s.io/v1","rv":)" +
                                                      namespaces.resource_version +
                                                      R"(,"start":"default\u0000"})");
}

// A continued list shows every object as it was at the first page's revision, whatever was
// created, updated or deleted between the pages; a new list shows the new state.
TEST_F(RestHandlerPagingTest, EveryPageIsAtTheFirstPagesRevision) {
  const Answer first = List("/api/v1/namespaces/default/configmaps", {{"limit", "2"}});
  ASSERT_EQ(first.names, (std::vector<std::string>{"default/cm-a", "default/cm-b"}));
  Put("default", "cm-bb", "1", false);  // created between the pages, after the first page's last
  Put("default", "cm-c", "2", true);    // updated
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/configmaps/cm-d").status, 200);
  Put("default", "cm-f", "1", false);  // created at the end
  Put("default", "cm-e", "2", true);
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/configmaps/cm-e").status, 200);
  Put("default", "cm-e", "3", true);  // deleted and created again

  auto second = List("/api/v1/namespaces/default/configmaps",
                     {{"limit", "2"}, {"continue", first.continue_token}});
  EXPECT_EQ(second.status, 200) << second.message;
  EXPECT_EQ(second.names, (std::vector<std::string>{"default/cm-c", "default/cm-d"}));
  EXPECT_EQ(second.data, (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(second.remaining, 1);
  EXPECT_EQ(second.resource_version, first.resource_version);
  auto third = List("/api/v1/namespaces/default/configmaps",
                    {{"limit", "2"}, {"continue", second.continue_token}});
  EXPECT_EQ(third.names, (std::vector<std::string>{"default/cm-e"}));
  EXPECT_EQ(third.data, (std::vector<std::string>{"1"}));
  EXPECT_TRUE(third.continue_token.empty());

  auto now = List("/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(now.names, (std::vector<std::string>{"default/cm-a", "default/cm-b", "default/cm-bb",
                                                 "default/cm-c", "default/cm-e", "default/cm-f"}));
  EXPECT_EQ(now.data, (std::vector<std::string>{"1", "1", "1", "2", "3", "1"}));

  // The legacy exact read (a limit and a resourceVersion) and resourceVersionMatch=Exact show
  // the first page's revision too.
  auto legacy = List("/api/v1/namespaces/default/configmaps",
                     {{"limit", "10"}, {"resourceVersion", first.resource_version}});
  EXPECT_EQ(legacy.names, (std::vector<std::string>{"default/cm-a", "default/cm-b", "default/cm-c",
                                                    "default/cm-d", "default/cm-e"}));
  auto exact =
      List("/api/v1/namespaces/default/configmaps",
           {{"resourceVersion", first.resource_version}, {"resourceVersionMatch", "Exact"}});
  EXPECT_EQ(exact.names, legacy.names);
  EXPECT_EQ(exact.resource_version, first.resource_version);
  // Without a limit a resourceVersion is "not older than": the newest.
  auto not_older =
      List("/api/v1/namespaces/default/configmaps", {{"resourceVersion", first.resource_version}});
  EXPECT_EQ(not_older.names, now.names);
}

// Once the log is compacted past a token's revision, the apiserver's 410 Expired with its message
// and a token that goes on at the newest revision from the same key.
TEST_F(RestHandlerPagingTest, AnExpiredTokenIsGoneWithATokenForTheRest) {
  const Answer first = List("/api/v1/configmaps", {{"limit", "2"}});
  ASSERT_FALSE(first.continue_token.empty());
  Put("default", "cm-c", "2", true);
  Put("default", "cm-z", "1", false);
  ASSERT_TRUE(store_->Compact(0));

  const Answer expired =
      List("/api/v1/configmaps", {{"limit", "2"}, {"continue", first.continue_token}});
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(expired.reason, "Expired");
  EXPECT_EQ(expired.message,
            "The provided continue parameter is too old to display a consistent list result. You "
            "can start a new list without the continue parameter, or use the continue token in "
            "this response to retrieve the remainder of the results. Continuing with the provided "
            "token results in an inconsistent list - objects that were created, modified, or "
            "deleted between the time the first chunk was returned and now may show up in the "
            "list.");
  EXPECT_EQ(TokenJson(expired.continue_token),
            R"({"v":"meta.k8s.io/v1","rv":-1,"start":"default/cm-b\u0000"})");
  // The rest, at the newest revision: what changed meanwhile shows.
  const auto rest =
      Pages("/api/v1/configmaps", {{"limit", "2"}, {"continue", expired.continue_token}});
  ASSERT_EQ(rest.size(), 3u);
  EXPECT_EQ(rest[0].names, (std::vector<std::string>{"default/cm-c", "default/cm-d"}));
  EXPECT_EQ(rest[0].data, (std::vector<std::string>{"2", "1"}));
  EXPECT_EQ(rest[1].names, (std::vector<std::string>{"default/cm-e", "default/cm-z"}));
  EXPECT_EQ(rest[2].names, (std::vector<std::string>{"kube-system/cm-k"}));
  EXPECT_NE(rest[0].resource_version, first.resource_version);
  EXPECT_EQ(TokenJson(rest[0].continue_token), R"({"v":"meta.k8s.io/v1","rv":)" +
                                                   rest[0].resource_version +
                                                   R"(,"start":"default/cm-d\u0000"})");

  // An exact read before the compaction: the list's own 410.
  const Answer old =
      List("/api/v1/configmaps", {{"limit", "2"}, {"resourceVersion", first.resource_version}});
  EXPECT_EQ(old.status, 410);
  EXPECT_EQ(old.reason, "Expired");
  EXPECT_EQ(old.message, "The resourceVersion for the provided list is too old.");
  EXPECT_TRUE(old.continue_token.empty());
}

// A store whose log was compacted before it kept each key's last entry: a token whose rest it
// cannot rebuild is Gone the same way; one whose rest it can is served.
TEST_F(RestHandlerPagingTest, ALegacyLogIsGoneWhereItCannotTell) {
  const Answer first = List("/api/v1/namespaces/default/configmaps", {{"limit", "2"}});
  Put("default", "cm-d", "2", false);  // cm-d changes after the first page's revision
  CompactTheOldWay(std::stoll(first.resource_version));
  const Answer gone = List("/api/v1/namespaces/default/configmaps",
                           {{"limit", "1"}, {"continue", first.continue_token}});
  // cm-c's page does not need cm-d: served. cm-d's does: Gone.
  EXPECT_EQ(gone.status, 200) << gone.message;
  EXPECT_EQ(gone.names, (std::vector<std::string>{"default/cm-c"}));
  const Answer next = List("/api/v1/namespaces/default/configmaps",
                           {{"limit", "1"}, {"continue", gone.continue_token}});
  EXPECT_EQ(next.status, 410);
  EXPECT_EQ(next.reason, "Expired");
  EXPECT_THAT(next.message, ::testing::StartsWith("The provided continue parameter is too old"));
  EXPECT_EQ(TokenJson(next.continue_token),
            R"({"v":"meta.k8s.io/v1","rv":-1,"start":"cm-c\u0000"})");
}

TEST_F(RestHandlerPagingTest, UpstreamsAnswersToBadOptions) {
  const Answer first = List("/api/v1/configmaps", {{"limit", "1"}});
  const std::string token = first.continue_token;
  const std::string too_new = std::to_string(std::stoll(first.resource_version) + 100);
  struct Case {
    const char* name;
    std::map<std::string, std::string> query;
    int status;
    const char* reason;
    std::string message;
  };
  const Case cases[] = {
      {"a limit that is not a number",
       {{"limit", "ten"}},
       400,
       "BadRequest",
       "strconv.ParseInt: parsing \"ten\": invalid syntax"},
      {"a limit past int64",
       {{"limit", "9223372036854775808"}},
       400,
       "BadRequest",
       "strconv.ParseInt: parsing \"9223372036854775808\": value out of range"},
      {"a token that is not base64",
       {{"limit", "1"}, {"continue", "not-a-token!"}},
       400,
       "BadRequest",
       "invalid continue token: continue key is not valid: illegal base64 data at input byte 11"},
      {"a token of another version",
       {{"continue", Base64RawUrlEncode(R"({"v":"meta.k8s.io/v0","rv":5,"start":"a"})")}},
       400,
       "BadRequest",
       "invalid continue token: continue key is not valid: server does not recognize this "
       "encoded version meta.k8s.io/v0"},
      {"a token reaching above the prefix",
       {{"continue",
         Base64RawUrlEncode(R"({"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/x"})")}},
       400,
       "BadRequest",
       "invalid continue token: continue key is not valid: ../secrets/x"},
      {"a token and a resourceVersion",
       {{"continue", token}, {"resourceVersion", "5"}},
       400,
       "BadRequest",
       "specifying resource version is not allowed when using continue"},
      {"a token and resourceVersionMatch",
       {{"continue", token}, {"resourceVersion", "5"}, {"resourceVersionMatch", "NotOlderThan"}},
       422,
       "Invalid",
       "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
       "resourceVersionMatch is forbidden when continue is provided"},
      {"resourceVersionMatch alone",
       {{"resourceVersionMatch", "Exact"}},
       422,
       "Invalid",
       "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
       "resourceVersionMatch is forbidden unless resourceVersion is provided"},
      {"Exact at 0 and a bad match",
       {{"resourceVersion", "0"}, {"resourceVersionMatch", "exact"}},
       422,
       "Invalid",
       "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: "
       "\"exact\": supported values: \"Exact\", \"NotOlderThan\", \"\""},
      {"Exact at 0",
       {{"resourceVersion", "0"}, {"resourceVersionMatch", "Exact"}},
       422,
       "Invalid",
       "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
       "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""},
      {"sendInitialEvents",
       {{"sendInitialEvents", "true"}},
       422,
       "Invalid",
       "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents "
       "is forbidden for list"},
      {"a resourceVersion that is not a number",
       {{"resourceVersion", "abc"}},
       400,
       "BadRequest",
       "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: "
       "parsing \"abc\": invalid syntax"},
      {"an exact read the store has not reached",
       {{"limit", "1"}, {"resourceVersion", too_new}},
       504,
       "Timeout",
       "Timeout: Too large resource version: " + too_new + ", current: " + first.resource_version},
  };
  for (const auto& c : cases) {
    const Answer a = List("/api/v1/configmaps", c.query);
    EXPECT_EQ(a.status, c.status) << c.name;
    EXPECT_EQ(a.reason, c.reason) << c.name;
    EXPECT_EQ(a.message, c.message) << c.name;
  }
  // A token with resourceVersion "0" is fine, as upstream.
  EXPECT_EQ(List("/api/v1/configmaps", {{"continue", token}, {"resourceVersion", "0"}}).status,
            200);
}

// kubectl get asks for Tables with limit=500: the Table carries the list's continue and
// remainingItemCount, and its rows page as the items do.
TEST_F(RestHandlerPagingTest, TablesPageAsListsDo) {
  const auto pages = Pages("/api/v1/configmaps", {{"limit", "4"}}, std::string(kTableAccept));
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0].names, (std::vector<std::string>{"default/cm-a", "default/cm-b",
                                                      "default/cm-c", "default/cm-d"}));
  EXPECT_EQ(pages[0].remaining, 2);
  EXPECT_FALSE(pages[0].continue_token.empty());
  EXPECT_EQ(pages[1].names, (std::vector<std::string>{"default/cm-e", "kube-system/cm-k"}));
  EXPECT_TRUE(pages[1].continue_token.empty());
  EXPECT_EQ(pages[1].remaining, std::nullopt);

  http::HttpRequest r;
  r.method = "GET";
  r.path = "/api/v1/configmaps";
  r.query["limit"] = "4";
  r.headers["accept"] = std::string(kTableAccept);
  auto raw = rest_->Handle(r);
  ASSERT_TRUE(raw);
  EXPECT_THAT(raw->body,
              ::testing::StartsWith(R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{)"
                                    R"("resourceVersion":")" +
                                    pages[0].resource_version + R"(","continue":")" +
                                    pages[0].continue_token +
                                    R"(","remainingItemCount":2},"columnDefinitions":)"));
}

// A plain list's metadata in ListMeta's order.
TEST_F(RestHandlerPagingTest, ListMetaInItsOrder) {
  auto r = Call("GET", "/api/v1/namespaces/default/configmaps?limit=2");
  const Answer a = Read(r);
  EXPECT_THAT(r.body,
              ::testing::StartsWith(R"({"kind":"ConfigMapList","apiVersion":"v1",)"
                                    R"("metadata":{"resourceVersion":")" +
                                    a.resource_version + R"(","continue":")" + a.continue_token +
                                    R"(","remainingItemCount":3},"items":[{"metadata":)"));
}

}  // namespace
}  // namespace podlimits::apiserver
