#include "http/plain_response.h"

#include <fmt/format.h>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/status.hpp>

namespace podlimits::http {

namespace {

bool HasSurroundingBlank(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  return !s.empty() && (blank(s.front()) || blank(s.back()));
}

}  // namespace

boost::beast::http::response<boost::beast::http::string_body> BeastResponse(HttpResponse response,
                                                                            bool keep_alive) {
  namespace bhttp = boost::beast::http;
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(response.status), 11};
  // No Content-Type when the handler has none (a 304 or a 406 without a body, as Go's
  // net/http writes them).
  if (!response.content_type.empty()) res.set(bhttp::field::content_type, response.content_type);
  // kube-apiserver's default, which a handler may replace (the OpenAPI documents fetched by
  // hash are `public, immutable`); every other header may repeat (Warning).
  res.set("Cache-Control", "no-cache, private");
  for (const auto& [k, v] : response.headers) {
    if (boost::beast::iequals(k, "Cache-Control")) {
      res.set(k, v);
    } else {
      res.insert(k, v);
    }
  }
  res.keep_alive(keep_alive);
  res.body() = std::move(response.body);
  res.prepare_payload();
  return res;
}

std::optional<std::string> PlainResponseBytes(const HttpResponse& response, bool keep_alive) {
  // Beast writes no body for these (and refuses one), and trims a field's value.
  if (!response.headers.empty() || response.status < 200 || response.status > 999 ||
      response.status == 204 || response.status == 304 ||
      HasSurroundingBlank(response.content_type)) {
    return std::nullopt;
  }
  const auto reason =
      boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(response.status));
  std::string out;
  out.reserve(160 + response.content_type.size() + response.body.size());
  fmt::format_to(std::back_inserter(out), "HTTP/1.1 {} {}\r\n", response.status,
                 std::string_view(reason.data(), reason.size()));
  if (!response.content_type.empty()) {
    out += "Content-Type: ";
    out += response.content_type;
    out += "\r\n";
  }
  out += "Cache-Control: no-cache, private\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  fmt::format_to(std::back_inserter(out), "Content-Length: {}\r\n\r\n", response.body.size());
  out += response.body;
  return out;
}

}  // namespace podlimits::http
