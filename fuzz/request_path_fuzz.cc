// The API's request path behind TLS: any method, path, query, content type and body reaches the
// REST handler (decoding JSON, YAML and protobuf, patches, admission, the store) and gets an
// answer; never a crash, and every error is a Status object.
//
// Input: "METHOD\nTARGET\nCONTENT-TYPE\nBODY".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "apiserver/rest_handler.h"
#include "codec/json_codec.h"
#include "fuzz_scratch.h"
#include "storage/object_store.h"

namespace {

using podlimits::http::HttpRequest;

std::string_view Line(std::string_view& in) {
  const std::size_t nl = in.find('\n');
  std::string_view out = in.substr(0, nl);
  in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  return out;
}

struct Node {
  podlimits::fuzz::ScratchDir dir{"podlimits-request-fuzz"};
  std::unique_ptr<podlimits::storage::ObjectStore> store;
  std::unique_ptr<podlimits::apiserver::RestHandler> rest;
  Node() {
    auto s = podlimits::storage::ObjectStore::Open(dir.path() / "state.db");
    if (!s) std::abort();
    store = std::move(*s);
    rest = std::make_unique<podlimits::apiserver::RestHandler>(*store,
                                                               podlimits::admission::ChainOptions{});
    if (!rest->EnsureSystemNamespaces()) std::abort();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Node node;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  HttpRequest r;
  r.method = std::string(Line(in));
  r.target = std::string(Line(in));
  const std::size_t q = r.target.find('?');
  r.path = r.target.substr(0, q);
  if (q != std::string::npos) {
    std::string_view query = std::string_view(r.target).substr(q + 1);
    while (!query.empty()) {
      std::string_view pair = query.substr(0, query.find('&'));
      query = pair.size() == query.size() ? std::string_view() : query.substr(pair.size() + 1);
      const std::size_t eq = pair.find('=');
      r.query[std::string(pair.substr(0, eq))] =
          eq == std::string_view::npos ? "" : std::string(pair.substr(eq + 1));
    }
  }
  r.headers["content-type"] = std::string(Line(in));
  r.body = std::string(in);
  r.user = "kubernetes-admin";
  auto response = node.rest->Handle(r);
  if (!response) return 0;
  if (response->stream) return 0;  // a watch or a followed log: its stream is not run here
  if (response->status < 200 || response->status > 599) std::abort();
  if (response->status >= 400) {
    auto status = podlimits::codec::ParseJsonStream(response->body);
    if (!status || status->size() != 1 || !(*status)[0].Find("kind") ||
        (*status)[0].Find("kind")->scalar != "Status") {
      std::abort();
    }
  }
  if (!node.dir.CanaryIntact()) std::abort();
  return 0;
}
