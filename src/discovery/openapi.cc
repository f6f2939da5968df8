#include "discovery/openapi.h"

#include <openssl/sha.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>

#include "discovery/openapi_protobuf.h"
#include "discovery/openapi_schemas.h"
#include "discovery/served_resources.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

constexpr std::string_view kDeleteOptions = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";

// The patch types serve applies (patch.h); kubectl computes a strategic merge patch from the
// schemas only when the kind's PATCH operation offers that type.
constexpr std::string_view kPatchTypes[] = {"application/json-patch+json",
                                            "application/merge-patch+json",
                                            "application/strategic-merge-patch+json"};

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

// One operation of a path: its action, the kind it acts on, and for writes the fieldValidation
// parameter (kubectl --validate=strict looks for it) and, for PATCH, the patch types.
Node Operation(std::string_view action, const GroupVersionKind& gvk, OpenApiVersion version) {
  const bool writes = action == "post" || action == "put" || action == "patch";
  Node op = Node::Object();
  if (writes) {
    Node params = Node::Array();
    Node field_validation = QueryParameter("fieldValidation", kFieldValidationDoc);
    if (version == OpenApiVersion::kV2) {
      // Swagger 2.0 parameters carry their type themselves.
      field_validation.members.pop_back();
      field_validation.Set("type", Node::String("string"));
      field_validation.Set("uniqueItems", Node::Bool(true));
    }
    params.items.push_back(std::move(field_validation));
    op.Set("parameters", std::move(params));
  }
  if (action == "patch") {
    if (version == OpenApiVersion::kV3) {
      Node content = Node::Object();
      for (std::string_view type : kPatchTypes) {
        Node media = Node::Object();
        media.Set("schema", DefinitionRef(kPatchDefinition, version));
        content.Set(type, std::move(media));
      }
      Node body = Node::Object();
      body.Set("content", std::move(content));
      body.Set("required", Node::Bool(true));
      op.Set("requestBody", std::move(body));
    } else {
      Node consumes = Node::Array();
      for (std::string_view type : kPatchTypes)
        consumes.items.push_back(Node::String(std::string(type)));
      op.Set("consumes", std::move(consumes));
    }
  }
  op.Set("x-kubernetes-action", Node::String(std::string(action)));
  Node g = Node::Object();
  g.Set("group", Node::String(gvk.group));
  g.Set("kind", Node::String(gvk.kind));
  g.Set("version", Node::String(gvk.version));
  op.Set("x-kubernetes-group-version-kind", std::move(g));
  return op;
}

bool Has(const ServedResource& r, std::string_view verb) {
  return std::find(r.verbs.begin(), r.verbs.end(), verb) != r.verbs.end();
}

// "api/v1" or "apis/coordination.k8s.io/v1": the index's key and the documents' path.
std::string DocumentPath(const ServedResource& r) {
  return r.group.empty() ? "api/" + std::string(r.version) : "apis/" + r.GroupVersion();
}

// The paths of one resource, with the verbs it serves, its status subresource and the pods'
// eviction.
void AddPaths(const ServedResource& r, OpenApiVersion version, Node& paths) {
  const GroupVersionKind gvk{std::string(r.group), std::string(r.version), std::string(r.kind)};
  const std::string base = "/" + DocumentPath(r) +
                           (r.namespaced ? "/namespaces/{namespace}/" : "/") + std::string(r.name);
  Node collection = Node::Object();
  if (Has(r, "list")) collection.Set("get", Operation("list", gvk, version));
  if (Has(r, "create")) collection.Set("post", Operation("post", gvk, version));
  paths.Set(base, std::move(collection));
  Node item = Node::Object();
  if (Has(r, "get")) item.Set("get", Operation("get", gvk, version));
  if (Has(r, "update")) item.Set("put", Operation("put", gvk, version));
  if (Has(r, "delete")) item.Set("delete", Operation("delete", gvk, version));
  if (Has(r, "patch")) item.Set("patch", Operation("patch", gvk, version));
  paths.Set(base + "/{name}", std::move(item));
  for (const ServedSubresource& sub : r.subresources) {
    Node ops = Node::Object();
    if (sub.name == "status") {
      ops.Set("get", Operation("get", gvk, version));
      ops.Set("put", Operation("put", gvk, version));
      ops.Set("patch", Operation("patch", gvk, version));
    } else if (sub.name == "scale") {
      const GroupVersionKind scale{std::string(sub.group), std::string(sub.version),
                                   std::string(sub.kind)};
      ops.Set("get", Operation("get", scale, version));
      ops.Set("put", Operation("put", scale, version));
      ops.Set("patch", Operation("patch", scale, version));
    } else if (sub.name == "eviction") {
      ops.Set("post",
              Operation("post",
                        {std::string(sub.group), std::string(sub.version), std::string(sub.kind)},
                        version));
    } else {
      continue;
    }
    paths.Set(base + "/{name}/" + std::string(sub.name), std::move(ops));
  }
}

// The served group versions, core first: their x-kubernetes-group-version-kind entries for
// DeleteOptions (which every group version accepts), with policy/v1 for the eviction.
std::vector<GroupVersionKind> DeleteOptionsKinds() {
  std::vector<GroupVersionKind> out;
  auto add = [&](std::string group, std::string version) {
    for (const auto& g : out) {
      if (g.group == group && g.version == version) return;
    }
    out.push_back({std::move(group), std::move(version), "DeleteOptions"});
  };
  for (const ServedResource& r : ServedResources()) {
    add(std::string(r.group), std::string(r.version));
    for (const ServedSubresource& sub : r.subresources) {
      if (!sub.group.empty()) add(std::string(sub.group), std::string(sub.version));
    }
  }
  return out;
}

// The kinds a set of resources serve, by definition name, each with its group version kind(s).
using KindsByDefinition = std::map<std::string, std::vector<GroupVersionKind>>;

void AddKinds(const ServedResource& r, KindsByDefinition& kinds) {
  const OpenApiSchemas& schemas = OpenApiSchemas::Embedded();
  auto add = [&](std::string_view group, std::string_view version, std::string kind) {
    if (std::string def = schemas.DefinitionOf(kind); !def.empty()) {
      kinds[def].push_back({std::string(group), std::string(version), std::move(kind)});
    }
  };
  add(r.group, r.version, std::string(r.kind));
  add(r.group, r.version, std::string(r.kind) + "List");
  for (const ServedSubresource& sub : r.subresources) {
    if (!sub.group.empty()) add(sub.group, sub.version, std::string(sub.kind));
  }
}

// The schemas the kinds reach, each named kind with its GVKs.
Node Schemas(const KindsByDefinition& kinds, OpenApiVersion version) {
  const OpenApiSchemas& schemas = OpenApiSchemas::Embedded();
  std::vector<std::string> roots = {std::string(kDeleteOptions), std::string(kPatchDefinition)};
  for (const auto& [def, gvks] : kinds) roots.push_back(def);
  Node out = Node::Object();
  static const std::vector<GroupVersionKind> delete_options = DeleteOptionsKinds();
  for (const std::string& name : schemas.Closure(roots)) {
    auto it = kinds.find(name);
    const std::vector<GroupVersionKind> none;
    const auto& gvks = name == kDeleteOptions ? delete_options
                       : it == kinds.end()    ? none
                                              : it->second;
    out.Set(name, schemas.Definition(name, version, gvks));
  }
  return out;
}

Node Info() {
  Node info = Node::Object();
  info.Set("title", Node::String("Kubernetes"));
  info.Set("version", Node::String("v1.32.0+podlimits"));
  return info;
}

// The hash of a document as kube-openapi names it (SHA-512, upper-case hex): the index's
// `?hash=` and the documents' ETag.
}  // namespace

std::string OpenApiHash(std::string_view doc) {
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

namespace {

struct Document {
  std::string json;
  std::string etag;      // OpenApiHash(json)
  std::string protobuf;  // v2 only: gnostic's openapi_v2.Document (same ETag, as kube-openapi's)
};

// The v3 documents by path ("api/v1"), built once: the served resources and the schema are
// compiled in.
const std::map<std::string, Document>& V3Documents() {
  static const std::map<std::string, Document> docs = [] {
    std::map<std::string, Node> paths;
    std::map<std::string, KindsByDefinition> kinds;
    for (const ServedResource& r : ServedResources()) {
      const std::string gv = DocumentPath(r);
      paths.try_emplace(gv, Node::Object());
      AddPaths(r, OpenApiVersion::kV3, paths[gv]);
      AddKinds(r, kinds[gv]);
    }
    std::map<std::string, Document> out;
    for (auto& [gv, p] : paths) {
      Node components = Node::Object();
      components.Set("schemas", Schemas(kinds[gv], OpenApiVersion::kV3));
      Node root = Node::Object();
      root.Set("openapi", Node::String("3.0.0"));
      root.Set("info", Info());
      root.Set("paths", std::move(p));
      root.Set("components", std::move(components));
      std::string json = codec::EncodeJson(root, 0);
      std::string etag = OpenApiHash(json);
      out.emplace(gv, Document{std::move(json), std::move(etag), ""});
    }
    return out;
  }();
  return docs;
}

const Document& V3Index() {
  static const Document index = [] {
    Node paths = Node::Object();
    for (const auto& [gv, doc] : V3Documents()) {
      Node entry = Node::Object();
      entry.Set("serverRelativeURL", Node::String("/openapi/v3/" + gv + "?hash=" + doc.etag));
      paths.Set(gv, std::move(entry));
    }
    Node index = Node::Object();
    index.Set("paths", std::move(paths));
    std::string json = codec::EncodeJson(index, 0);
    std::string etag = OpenApiHash(json);
    return Document{std::move(json), std::move(etag), ""};
  }();
  return index;
}

const Document& V2Document() {
  static const Document doc = [] {
    Node paths = Node::Object();
    KindsByDefinition kinds;
    for (const ServedResource& r : ServedResources()) {
      AddPaths(r, OpenApiVersion::kV2, paths);
      AddKinds(r, kinds);
    }
    Node root = Node::Object();
    root.Set("swagger", Node::String("2.0"));
    root.Set("info", Info());
    root.Set("paths", std::move(paths));
    root.Set("definitions", Schemas(kinds, OpenApiVersion::kV2));
    std::string json = codec::EncodeJson(root, 0);
    std::string etag = OpenApiHash(json);
    return Document{std::move(json), std::move(etag), OpenApiV2Protobuf(root)};
  }();
  return doc;
}

// When the documents were made: their Last-Modified, as http.ServeContent writes it.
std::string HttpDate(std::chrono::system_clock::time_point t, const char* zone) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S ", &tm);
  return std::string(buf) + zone;
}

const std::string& LastModified() {
  static const std::string at = HttpDate(std::chrono::system_clock::now(), "GMT");
  return at;
}

std::string Header(const http::HttpRequest& request, const std::string& name) {
  auto it = request.headers.find(name);
  return it == request.headers.end() ? std::string() : it->second;
}

// A document as http.ServeContent serves it: the ETag, Last-Modified, and 304 when the client's
// If-None-Match names the ETag.
http::HttpResponse Serve(const http::HttpRequest& request, const Document& doc,
                         std::string content_type,
                         std::vector<std::pair<std::string, std::string>> headers,
                         bool protobuf = false) {
  const std::string etag = "\"" + doc.etag + "\"";
  headers.emplace_back("Etag", etag);
  const std::string if_none_match = Header(request, "if-none-match");
  if (!if_none_match.empty() &&
      (if_none_match == "*" || if_none_match.find(etag) != std::string::npos)) {
    return http::HttpResponse{304, "", "", std::move(headers)};
  }
  headers.emplace_back("Last-Modified", LastModified());
  return http::HttpResponse{200, std::move(content_type), protobuf ? doc.protobuf : doc.json,
                            std::move(headers)};
}

// The Accept header's media ranges, most preferred first, as goautoneg orders them (by q, then
// the more specific range first).
struct MediaRange {
  std::string type, subtype;
  double q = 1;
};

std::vector<MediaRange> ParseAccept(std::string accept) {
  if (accept.empty()) accept = "*/*";
  std::vector<MediaRange> out;
  std::size_t start = 0;
  while (start <= accept.size()) {
    std::size_t end = accept.find(',', start);
    if (end == std::string::npos) end = accept.size();
    std::string part = accept.substr(start, end - start);
    start = end + 1;
    MediaRange range;
    std::size_t semi = part.find(';');
    std::string media = part.substr(0, semi);
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
      return s;
    };
    media = trim(media);
    while (semi != std::string::npos) {
      std::size_t next = part.find(';', semi + 1);
      std::string param = trim(part.substr(semi + 1, next - semi - 1));
      if (param.starts_with("q=")) range.q = std::atof(param.c_str() + 2);
      semi = next;
    }
    std::size_t slash = media.find('/');
    if (media.empty()) continue;
    range.type = media.substr(0, slash);
    range.subtype = slash == std::string::npos ? "*" : media.substr(slash + 1);
    out.push_back(range);
  }
  std::stable_sort(out.begin(), out.end(), [](const MediaRange& a, const MediaRange& b) {
    if (a.q != b.q) return a.q > b.q;
    return (a.subtype != "*") > (b.subtype != "*");
  });
  return out;
}

// The media types kube-openapi offers, in its order: JSON, then the gnostic protobuf under its
// deprecated and its current name (both answered with the current one).
enum class Offer { kNone, kJson, kProtobuf };

// The first offer the request's most preferred range matches (goautoneg's order, then the
// offers'), as kube-openapi's handlers pick; `protobuf` says whether there is a protobuf form.
Offer Negotiate(const http::HttpRequest& request, std::string_view protobuf_subtype,
                std::string_view protobuf_deprecated, bool protobuf) {
  for (const MediaRange& r : ParseAccept(Header(request, "accept"))) {
    if (r.q <= 0) continue;
    if (r.type != "application" && r.type != "*") continue;
    if (r.subtype == "json" || r.subtype == "*") return Offer::kJson;
    if (protobuf && (r.subtype == protobuf_subtype || r.subtype == protobuf_deprecated)) {
      return Offer::kProtobuf;
    }
  }
  return Offer::kNone;
}

constexpr std::string_view kV2Protobuf = "com.github.proto-openapi.spec.v2.v1.0+protobuf";
constexpr std::string_view kV2ProtobufDeprecated = "com.github.proto-openapi.spec.v2@v1.0+protobuf";
constexpr std::string_view kV3Protobuf = "com.github.proto-openapi.spec.v3.v1.0+protobuf";
constexpr std::string_view kV3ProtobufDeprecated = "com.github.proto-openapi.spec.v3@v1.0+protobuf";

http::HttpResponse NotAcceptable() {
  return http::HttpResponse{406, "", "", {{"Vary", "Accept"}}};
}

http::HttpResponse V3GroupVersion(const http::HttpRequest& request, const std::string& gv) {
  auto it = V3Documents().find(gv);
  if (it == V3Documents().end()) {
    // kube-aggregator's answer for a group version nobody serves.
    return http::HttpResponse{404, "", "", {}};
  }
  // No protobuf form of the v3 documents (kubectl asks for JSON): a client that accepts only
  // that gets 406.
  if (Negotiate(request, kV3Protobuf, kV3ProtobufDeprecated, false) == Offer::kNone) {
    return NotAcceptable();
  }
  const Document& doc = it->second;
  std::vector<std::pair<std::string, std::string>> headers = {{"Vary", "Accept"}};
  if (auto hash = request.query.find("hash");
      hash != request.query.end() && !hash->second.empty()) {
    if (hash->second != doc.etag) {
      // An old hash: where the current document is (handler3's redirect).
      const std::string location = "/openapi/v3/" + gv + "?hash=" + doc.etag;
      return http::HttpResponse{301,
                                "text/html; charset=utf-8",
                                "<a href=\"" + location + "\">Moved Permanently</a>.\n\n",
                                {{"Vary", "Accept"}, {"Location", location}}};
    }
    // Fetched by its hash, the document never changes: clients may keep it for a year.
    headers.emplace_back("Cache-Control", "public, immutable");
    headers.emplace_back(
        "Expires",
        HttpDate(std::chrono::system_clock::now() + std::chrono::hours(24 * 365), "UTC"));
  }
  return Serve(request, doc, "application/json", std::move(headers));
}

}  // namespace

std::optional<http::HttpResponse> OpenApi(const http::HttpRequest& request) {
  if (request.method != "GET") return std::nullopt;
  if (request.path == "/openapi/v3" || request.path == "/openapi/v3/") {
    return Serve(request, V3Index(), "application/json", {});
  }
  if (request.path.starts_with("/openapi/v3/")) {
    return V3GroupVersion(request, request.path.substr(std::string_view("/openapi/v3/").size()));
  }
  if (request.path == "/openapi/v2") {
    switch (Negotiate(request, kV2Protobuf, kV2ProtobufDeprecated, true)) {
      case Offer::kJson:
        return Serve(request, V2Document(), "application/json", {{"Vary", "Accept"}});
      case Offer::kProtobuf:
        return Serve(request, V2Document(), "application/" + std::string(kV2Protobuf),
                     {{"Vary", "Accept"}}, true);
      case Offer::kNone:
        break;
    }
    return NotAcceptable();
  }
  return std::nullopt;
}

std::string OpenApiV3DocumentHash(std::string_view group_version) {
  auto it = V3Documents().find(std::string(group_version));
  return it == V3Documents().end() ? std::string() : it->second.etag;
}

}  // namespace podlimits::apiserver
