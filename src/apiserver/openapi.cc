#include "apiserver/openapi.h"

#include <openssl/sha.h>

#include <cstdio>
#include <string>

#include "apiserver/served_resources.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

Node QueryParameter(std::string_view name, std::string_view description) {
  Node p = Node::Object();
  p.Set("name", Node::String(std::string(name)));
  p.Set("in", Node::String("query"));
  p.Set("description", Node::String(std::string(description)));
  Node schema = Node::Object();
  schema.Set("type", Node::String("string"));
  schema.Set("uniqueItems", Node::Bool(true));
  p.Set("schema", std::move(schema));
  return p;
}

constexpr std::string_view kFieldValidationDoc =
    "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) "
    "containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any "
    "unknown fields that are silently dropped from the object, and will ignore all but the last "
    "duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - "
    "Warn: This will send a warning via the standard warning response header for each unknown "
    "field that is dropped from the object, and for each duplicate field that is encountered. "
    "The request will still succeed if there are no other errors, and will only persist the "
    "last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the "
    "request with a BadRequest error if any unknown fields would be dropped from the object, or "
    "if any duplicate fields are present. The error returned from the server will contain all "
    "unknown and duplicate fields encountered.";

Node Operation(std::string_view action, std::string_view kind, bool validates) {
  Node op = Node::Object();
  if (validates) {
    Node params = Node::Array();
    params.items.push_back(QueryParameter("fieldValidation", kFieldValidationDoc));
    op.Set("parameters", std::move(params));
  }
  op.Set("x-kubernetes-action", Node::String(std::string(action)));
  Node gvk = Node::Object();
  gvk.Set("group", Node::String(""));
  gvk.Set("version", Node::String("v1"));
  gvk.Set("kind", Node::String(std::string(kind)));
  op.Set("x-kubernetes-group-version-kind", std::move(gvk));
  return op;
}

const std::string& CoreDocument() {
  static const std::string doc = [] {
    Node paths = Node::Object();
    for (const ServedResource& r : ServedResources()) {
      // The core group's document; the Lease clients only read needs none (nothing to validate).
      if (!r.group.empty()) continue;
      const std::string base = r.namespaced
                                   ? "/api/v1/namespaces/{namespace}/" + std::string(r.name)
                                   : "/api/v1/" + std::string(r.name);
      Node collection = Node::Object();
      collection.Set("get", Operation("list", r.kind, false));
      collection.Set("post", Operation("post", r.kind, true));
      paths.Set(base, std::move(collection));
      Node item = Node::Object();
      item.Set("get", Operation("get", r.kind, false));
      item.Set("put", Operation("put", r.kind, true));
      item.Set("delete", Operation("delete", r.kind, false));
      item.Set("patch", Operation("patch", r.kind, true));
      paths.Set(base + "/{name}", std::move(item));
    }
    Node info = Node::Object();
    info.Set("title", Node::String("Kubernetes"));
    info.Set("version", Node::String("v1.32.0+podlimits"));
    Node root = Node::Object();
    root.Set("openapi", Node::String("3.0.0"));
    root.Set("info", std::move(info));
    root.Set("paths", std::move(paths));
    Node components = Node::Object();
    components.Set("schemas", Node::Object());
    root.Set("components", std::move(components));
    return codec::EncodeJson(root, 0);
  }();
  return doc;
}

// The document's hash in the index, as kube-apiserver names it (SHA-512, upper-case hex), so
// kubectl's cache is invalidated when it changes.
std::string DocumentHash(const std::string& doc) {
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(doc.data()), doc.size(), digest);
  std::string hex;
  char buf[3];
  for (unsigned char b : digest) {
    std::snprintf(buf, sizeof buf, "%02X", b);
    hex += buf;
  }
  return hex;
}

}  // namespace

std::optional<http::HttpResponse> OpenApi(const http::HttpRequest& request) {
  if (request.method != "GET") return std::nullopt;
  if (request.path == "/openapi/v3" || request.path == "/openapi/v3/") {
    Node entry = Node::Object();
    entry.Set("serverRelativeURL",
              Node::String("/openapi/v3/api/v1?hash=" + DocumentHash(CoreDocument())));
    Node paths = Node::Object();
    paths.Set("api/v1", std::move(entry));
    Node index = Node::Object();
    index.Set("paths", std::move(paths));
    return http::HttpResponse{200, "application/json", codec::EncodeJson(index, 0), {}};
  }
  if (request.path == "/openapi/v3/api/v1") {
    return http::HttpResponse{200, "application/json", CoreDocument(), {}};
  }
  return std::nullopt;
}

}  // namespace podlimits::apiserver
