// The listener writes a plain response from one string (plain_response.h) and any other through
// Beast: where the string is used it must be, byte for byte, what Beast would have written.
#include "http/plain_response.h"

#include <gtest/gtest.h>

#include <boost/beast/http/write.hpp>
#include <sstream>

namespace podlimits::http {
namespace {

std::string BeastBytes(const HttpResponse& response, bool keep_alive) {
  std::ostringstream out;
  out << BeastResponse(response, keep_alive);
  return out.str();
}

TEST(PlainResponse, WrittenAsBeastWritesIt) {
  struct Case {
    std::string name;
    HttpResponse response;
    bool keep_alive;
    bool plain;  // the one-string form applies
  };
  const std::vector<Case> cases = {
      {"a review's answer", {200, "application/json", R"({"kind":"AdmissionReview"})"}, true, true},
      {"closing", {200, "application/json", "{}"}, false, true},
      {"an empty body", {200, "text/plain; charset=utf-8", ""}, true, true},
      {"no content type", {406, "", ""}, true, true},
      {"a 400 in Go's words", {400, "text/plain; charset=utf-8", "Bad Request\n"}, false, true},
      {"422, a reason Beast knows", {422, "application/json", "{}"}, true, true},
      {"a status Beast has no reason for", {299, "application/json", "{}"}, true, true},
      {"a 500", {500, "application/json", "{}"}, true, true},
      {"headers of its own", {200, "application/json", "{}", {{"Warning", "299 - \"x\""}}}, true,
       false},
      {"its own Cache-Control",
       {200, "application/json", "{}", {{"Cache-Control", "public, immutable"}}}, true, false},
      {"204", {204, "", ""}, true, false},
      {"304", {304, "", ""}, true, false},
      {"a content type Beast would trim", {200, " application/json", "{}"}, true, false},
  };
  for (const auto& c : cases) {
    const auto plain = PlainResponseBytes(c.response, c.keep_alive);
    ASSERT_EQ(plain.has_value(), c.plain) << c.name;
    if (plain) {
      EXPECT_EQ(*plain, BeastBytes(c.response, c.keep_alive)) << c.name;
    }
  }
}

TEST(PlainResponse, AReviewsAnswerInFull) {
  EXPECT_EQ(PlainResponseBytes({200, "application/json", "{}"}, true),
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            "Cache-Control: no-cache, private\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_EQ(PlainResponseBytes({413, "text/plain; charset=utf-8", "too large\n"}, false),
            "HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Cache-Control: no-cache, private\r\nConnection: close\r\nContent-Length: 10\r\n\r\n"
            "too large\n");
}

}  // namespace
}  // namespace podlimits::http
