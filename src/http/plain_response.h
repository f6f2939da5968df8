// A handler's whole response as the listener writes it, in one string, for the common case: no
// headers of the handler's own and a status that carries a body. Beast's response object and
// serializer gave the same bytes at some 13k instructions and ten allocations a response (a
// webhook review's answer, docs/benchmarks.md, issue 32); any other response still goes through
// Beast (https_connection.cc's WriteResponse), so the two agree by construction where they meet,
// and a test holds them to it.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <optional>
#include <string>

#include "http/message.h"

namespace podlimits::http {

// `response` as Beast's message, which the listener writes when PlainResponseBytes declines.
boost::beast::http::response<boost::beast::http::string_body> BeastResponse(HttpResponse response,
                                                                            bool keep_alive);

// The bytes of `response` (status, Content-Type, kube-apiserver's Cache-Control, `Connection:
// close` unless `keep_alive`, Content-Length, the body), or nullopt when it is not the common
// case: headers of its own, a 1xx, 204 or 304 status, a Content-Type with surrounding blanks.
std::optional<std::string> PlainResponseBytes(const HttpResponse& response, bool keep_alive);

}  // namespace podlimits::http
