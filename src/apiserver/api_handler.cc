#include "apiserver/api_handler.h"

#include "listwatch/api_errors.h"
#include "discovery/discovery.h"
#include "discovery/openapi.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

http::HttpResponse Version() {
  codec::Node info = codec::Node::Object();
  info.Set("major", codec::Node::String("1"));
  info.Set("minor", codec::Node::String("32"));
  info.Set("gitVersion", codec::Node::String(std::string(kServedGitVersion)));
  info.Set("gitCommit", codec::Node::String(""));
  info.Set("gitTreeState", codec::Node::String(""));
  info.Set("buildDate", codec::Node::String(""));
  info.Set("goVersion", codec::Node::String(""));
  info.Set("compiler", codec::Node::String("gcc"));
  info.Set("platform", codec::Node::String("linux/amd64"));
  return {200, "application/json", codec::EncodeJson(info, 2), {}};
}

// The apiserver's health checks: "ok", or with ?verbose the list of checks.
http::HttpResponse Health(const http::HttpRequest& request, std::string_view name) {
  if (request.query.contains("verbose")) {
    return {200, "text/plain; charset=utf-8",
            "[+]ping ok\n[+]object-store ok\n" + std::string(name) + " check passed\n",
            {}};
  }
  return {200, "text/plain; charset=utf-8", "ok", {}};
}

}  // namespace

http::HttpResponse HandleApiRequest(const http::HttpRequest& request, RestHandler* rest) {
  if (rest != nullptr) {
    if (auto r = rest->Handle(request)) return std::move(*r);
  }
  if (request.method == "GET") {
    if (request.path == "/version") return Version();
    if (request.path == "/healthz") return Health(request, "healthz");
    if (request.path == "/livez") return Health(request, "livez");
    if (request.path == "/readyz") return Health(request, "readyz");
    if (auto d = Discovery(request)) return std::move(*d);
    if (auto o = OpenApi(request)) return std::move(*o);
  }
  return PathNotFound().Response();
}

}  // namespace podlimits::apiserver
