// /openapi/v3 and /openapi/v2 as kube-apiserver serves them (kube-openapi's handler3 and handler):
// the schemas' shape, the index's hashes, and the caching and negotiation of the responses.
#include "discovery/openapi.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "discovery/openapi_protobuf.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

http::HttpRequest Get(std::string path, std::string accept = "") {
  http::HttpRequest r;
  r.method = "GET";
  r.path = std::move(path);
  r.target = r.path;
  if (!accept.empty()) r.headers["accept"] = std::move(accept);
  return r;
}

Node ParseBody(const http::HttpResponse& response) {
  auto parsed = codec::ParseJsonStream(response.body);
  EXPECT_TRUE(parsed && parsed->size() == 1) << response.body.substr(0, 200);
  return parsed && !parsed->empty() ? std::move(parsed->front()) : Node::Object();
}

std::string HeaderOf(const http::HttpResponse& response, std::string_view name) {
  for (const auto& [k, v] : response.headers) {
    if (k == name) return v;
  }
  return "";
}

const Node& V3(std::string_view gv) {
  static std::map<std::string, Node, std::less<>> docs;
  auto it = docs.find(gv);
  if (it == docs.end()) {
    it = docs.emplace(std::string(gv), ParseBody(*OpenApi(Get("/openapi/v3/" + std::string(gv)))))
             .first;
  }
  return it->second;
}

const Node& V2() {
  static const Node doc = ParseBody(*OpenApi(Get("/openapi/v2", "application/json")));
  return doc;
}

std::string Index() {
  return OpenApi(Get("/openapi/v3"))->body;
}

struct ShapeCase {
  std::string name;
  std::string document;  // "v2", or the v3 group version
  std::string definition;
  std::string property;  // "" for the definition itself
  std::string member;    // the member of the schema compared
  std::string want;      // its compact JSON
};

// One row per feature of upstream's documents; descriptions are compared where they come from
// the seeds (the Go sources' words are checked by the generator, not here).
TEST(OpenApiSchemas, ShapeAsUpstream) {
  const std::string core = "io.k8s.api.core.v1.";
  const std::string meta = "io.k8s.apimachinery.pkg.apis.meta.v1.";
  const std::vector<ShapeCase> cases = {
      {"a kind names its group version kind", "api/v1", core + "Pod", "",
       "x-kubernetes-group-version-kind", R"([{"group":"","kind":"Pod","version":"v1"}])"},
      {"a list kind too", "api/v1", core + "LimitRangeList", "", "x-kubernetes-group-version-kind",
       R"([{"group":"","kind":"LimitRangeList","version":"v1"}])"},
      {"the eviction is policy/v1's", "api/v1", "io.k8s.api.policy.v1.Eviction", "",
       "x-kubernetes-group-version-kind",
       R"([{"group":"policy","kind":"Eviction","version":"v1"}])"},
      {"the lease in its own group's document", "apis/coordination.k8s.io/v1",
       "io.k8s.api.coordination.v1.Lease", "", "x-kubernetes-group-version-kind",
       R"([{"group":"coordination.k8s.io","kind":"Lease","version":"v1"}])"},
      {"a $ref with siblings is wrapped in allOf", "api/v1", core + "Pod", "metadata", "allOf",
       R"([{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}])"},
      {"a struct held by value defaults to {}", "api/v1", core + "Pod", "spec", "default", "{}"},
      {"list-map and patch keys of containers", "api/v1", core + "PodSpec", "containers",
       "x-kubernetes-list-map-keys", R"(["name"])"},
      {"containers merge by name", "api/v1", core + "PodSpec", "containers",
       "x-kubernetes-patch-strategy", R"("merge")"},
      {"containers' merge key", "api/v1", core + "PodSpec", "containers",
       "x-kubernetes-patch-merge-key", R"("name")"},
      {"items of structs: allOf and default {}", "api/v1", core + "PodSpec", "containers", "items",
       R"({"allOf":[{"$ref":"#/components/schemas/io.k8s.api.core.v1.Container"}],"default":{}})"},
      {"an atomic list", "api/v1", core + "Capabilities", "add", "x-kubernetes-list-type",
       R"("atomic")"},
      {"items of strings default to \"\"", "api/v1", core + "Capabilities", "add", "items",
       R"({"default":"","type":"string"})"},
      {"the seed's ulimits are a list map", "api/v1", core + "SecurityContext", "ulimits",
       "x-kubernetes-list-type", R"("map")"},
      {"keyed by name", "api/v1", core + "SecurityContext", "ulimits", "x-kubernetes-list-map-keys",
       R"(["name"])"},
      {"the seed's words for ulimits", "api/v1", core + "SecurityContext", "ulimits", "description",
       R"("The ulimits to be applied to the container. Each element in this list maps to a system ulimit setting. If unspecified, the container runtime default ulimits will be used. Note that this field cannot be set when spec.os.name is windows.")"},
      {"the seed's Ulimit type", "api/v1", core + "Ulimit", "", "required",
       R"(["name","hard","soft"])"},
      {"int64 with its zero default", "api/v1", core + "Ulimit", "soft", "format", R"("int64")"},
      {"the seed's words for cgroupOptions", "api/v1", core + "CgroupOptions", "mountMode",
       "description",
       R"("MountMode controls whether the cgroup filesystem is mounted as writable. Defaults to \"ReadOnly\" if not specified.")"},
      {"int32", "api/v1", core + "ContainerPort", "containerPort", "format", R"("int32")"},
      {"a +default marker", "api/v1", core + "ContainerPort", "protocol", "default", R"("TCP")"},
      {"an enum's values", "api/v1", core + "PodSpec", "restartPolicy", "enum",
       R"(["Always","Never","OnFailure"])"},
      {"bytes have no default", "api/v1", core + "ConfigMap", "binaryData", "additionalProperties",
       R"({"format":"byte","type":"string"})"},
      {"quantities are a definition", "api/v1", core + "ResourceRequirements", "limits",
       "additionalProperties",
       R"({"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"})"},
      {"Time is a date-time", "api/v1", meta + "Time", "", "format", R"("date-time")"},
      {"Quantity is a string or a number in v3", "api/v1",
       "io.k8s.apimachinery.pkg.api.resource.Quantity", "", "oneOf",
       R"([{"type":"string"},{"type":"number"}])"},
      {"MicroTime where Go says so", "api/v1", core + "Event", "eventTime", "allOf",
       R"([{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"}])"},
      {"required as openapi-gen lists it", "api/v1", core + "PodSpec", "", "required",
       R"(["containers"])"},
      {"v2: a $ref keeps its siblings", "v2", core + "Pod", "metadata", "$ref",
       R"("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")"},
      {"v2: Quantity is a string", "v2", "io.k8s.apimachinery.pkg.api.resource.Quantity", "",
       "type", R"("string")"},
  };
  for (const ShapeCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Node& doc = c.document == "v2" ? V2() : V3(c.document);
    const Node* schema = c.document == "v2" ? doc.FindPath({"definitions", c.definition})
                                            : doc.FindPath({"components", "schemas", c.definition});
    ASSERT_NE(schema, nullptr);
    if (!c.property.empty()) schema = schema->FindPath({"properties", c.property});
    ASSERT_NE(schema, nullptr);
    const Node* member = schema->Find(c.member);
    ASSERT_NE(member, nullptr) << codec::EncodeJson(*schema, 0);
    EXPECT_EQ(codec::EncodeJson(*member, 0), c.want);
  }
}

// v2 documents carry no defaults (kube-apiserver prunes them) and no allOf.
TEST(OpenApiSchemas, V2HasNoDefaultsOrAllOf) {
  const Node* metadata =
      V2().FindPath({"definitions", "io.k8s.api.core.v1.Pod", "properties", "metadata"});
  ASSERT_NE(metadata, nullptr);
  EXPECT_EQ(metadata->Find("default"), nullptr);
  EXPECT_EQ(metadata->Find("allOf"), nullptr);
  EXPECT_NE(metadata->Find("description"), nullptr);
}

// Every $ref of every document names a schema of the same document: the closure is complete.
TEST(OpenApiSchemas, EveryReferenceResolves) {
  auto check = [](const Node& doc, const Node& schemas, std::string_view prefix) {
    std::function<void(const Node&)> walk = [&](const Node& n) {
      if (const Node* ref = n.Find("$ref")) {
        ASSERT_TRUE(ref->scalar.starts_with(prefix)) << ref->scalar;
        EXPECT_NE(schemas.Find(ref->scalar.substr(prefix.size())), nullptr) << ref->scalar;
      }
      for (const auto& m : n.members) walk(m.value);
      for (const Node& item : n.items) walk(item);
    };
    walk(doc);
  };
  for (std::string gv : {"api/v1", "apis/coordination.k8s.io/v1"}) {
    SCOPED_TRACE(gv);
    const Node* schemas = V3(gv).FindPath({"components", "schemas"});
    ASSERT_NE(schemas, nullptr);
    check(V3(gv), *schemas, "#/components/schemas/");
  }
  check(V2(), *V2().Find("definitions"), "#/definitions/");
}

TEST(OpenApi, IndexNamesEveryServedGroupVersionByItsHash) {
  auto index = OpenApi(Get("/openapi/v3"));
  ASSERT_TRUE(index);
  const Node body = ParseBody(*index);
  const Node* paths = body.Find("paths");
  ASSERT_NE(paths, nullptr);
  std::set<std::string> names;
  for (const auto& m : paths->members) {
    names.insert(m.key);
    auto doc = OpenApi(Get("/openapi/v3/" + m.key));
    ASSERT_TRUE(doc);
    // The hash is the served document's own, and its ETag.
    EXPECT_EQ(m.value.Find("serverRelativeURL")->scalar,
              "/openapi/v3/" + m.key + "?hash=" + OpenApiHash(doc->body));
    EXPECT_EQ(OpenApiV3DocumentHash(m.key), OpenApiHash(doc->body));
    EXPECT_EQ(HeaderOf(*doc, "Etag"), "\"" + OpenApiHash(doc->body) + "\"");
  }
  // metrics.k8s.io too, as a cluster lists metrics-server's (its paths; no schemas yet).
  EXPECT_EQ(names, (std::set<std::string>{"api/v1", "apis/apps/v1",
                                          "apis/authentication.k8s.io/v1",
                                          "apis/authorization.k8s.io/v1", "apis/batch/v1",
                                          "apis/coordination.k8s.io/v1",
                                          "apis/metrics.k8s.io/v1beta1"}));
}

TEST(OpenApi, HashIsStableAndFollowsTheContent) {
  struct Case {
    std::string name, a, b;
    bool same;
  };
  const std::vector<Case> cases = {
      {"the same bytes", R"({"paths":{}})", R"({"paths":{}})", true},
      {"one byte changed", R"({"paths":{}})", R"({"paths":{ }})", false},
      {"the index against itself with a space", Index(), Index() + " ", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(OpenApiHash(c.a) == OpenApiHash(c.b), c.same);
    EXPECT_EQ(OpenApiHash(c.a).size(), 128u);
  }
  EXPECT_EQ(
      OpenApiHash(""),
      "CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE47D0D13C5D85F2B0FF8318D2"
      "877EEC2F63B931BD47417A81A538327AF927DA3E");
  // Built once and served the same each time.
  EXPECT_EQ(OpenApi(Get("/openapi/v3"))->body, OpenApi(Get("/openapi/v3"))->body);
}

struct ServeCase {
  std::string name;
  std::string path;
  std::string hash;  // the ?hash= query, "" none; "current" the document's own
  std::string accept;
  std::string if_none_match;  // "current": the document's quoted ETag
  int status;
  std::string content_type;
  std::map<std::string, std::string> headers;  // expected; "" means absent
};

TEST(OpenApi, ServesAsKubeOpenApi) {
  const std::string core_hash = OpenApiV3DocumentHash("api/v1");
  const std::string json = "application/json";
  const std::string v2_protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
  const std::vector<ServeCase> cases = {
      {"the index", "/openapi/v3", "", "", "", 200, json, {{"Cache-Control", ""}}},
      {"a document by its hash is immutable",
       "/openapi/v3/api/v1",
       "current",
       json,
       "",
       200,
       json,
       {{"Cache-Control", "public, immutable"}, {"Vary", "Accept"}}},
      {"without a hash it may change",
       "/openapi/v3/api/v1",
       "",
       json,
       "",
       200,
       json,
       {{"Cache-Control", ""}, {"Expires", ""}}},
      {"an old hash is redirected to the current one",
       "/openapi/v3/api/v1",
       "0A1B",
       json,
       "",
       301,
       "text/html; charset=utf-8",
       {{"Location", "/openapi/v3/api/v1?hash=" + core_hash}, {"Cache-Control", ""}}},
      {"the ETag the client has: not modified",
       "/openapi/v3/api/v1",
       "current",
       json,
       "current",
       304,
       "",
       {{"Etag", "\"" + core_hash + "\""}}},
      {"an unknown group version", "/openapi/v3/apis/storage.k8s.io/v1", "", json, "", 404, "", {}},
      {"kubectl's own Accept",
       "/openapi/v3/api/v1",
       "",
       "application/json, */*",
       "",
       200,
       json,
       {}},
      {"protobuf only: not acceptable",
       "/openapi/v3/api/v1",
       "",
       "application/com.github.proto-openapi.spec.v3.v1.0+protobuf",
       "",
       406,
       "",
       {{"Vary", "Accept"}}},
      {"protobuf preferred, JSON accepted",
       "/openapi/v3/api/v1",
       "",
       "application/com.github.proto-openapi.spec.v3.v1.0+protobuf, application/json;q=0.9",
       "",
       200,
       json,
       {}},
      {"v2 as JSON", "/openapi/v2", "", json, "", 200, json, {{"Vary", "Accept"}}},
      {"v2 without Accept", "/openapi/v2", "", "", "", 200, json, {}},
      {"v2 as client-go asks for it: protobuf",
       "/openapi/v2",
       "",
       v2_protobuf,
       "",
       200,
       "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
       {{"Vary", "Accept"}}},
      {"v2 in YAML: not offered", "/openapi/v2", "", "application/yaml", "", 406, "", {}},
  };
  for (const ServeCase& c : cases) {
    SCOPED_TRACE(c.name);
    http::HttpRequest request = Get(c.path, c.accept);
    if (c.hash == "current") {
      request.query["hash"] = core_hash;
    } else if (!c.hash.empty()) {
      request.query["hash"] = c.hash;
    }
    if (c.if_none_match == "current") request.headers["if-none-match"] = "\"" + core_hash + "\"";
    auto response = OpenApi(request);
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, c.status);
    EXPECT_EQ(response->content_type, c.content_type);
    for (const auto& [name, value] : c.headers) {
      EXPECT_EQ(HeaderOf(*response, name), value) << name;
    }
    if (c.status == 200 && c.hash == "current") {
      EXPECT_TRUE(HeaderOf(*response, "Expires").ends_with(" UTC"))
          << HeaderOf(*response, "Expires");
    }
    if (c.status == 304) {
      EXPECT_EQ(response->body, "");
    }
  }
}

}  // namespace
}  // namespace podlimits::apiserver

namespace podlimits::apiserver {
namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
    out += ' ';
  }
  if (!out.empty()) out.pop_back();
  return out;
}

// gnostic's openapi_v2.Document, field by field (OpenAPIv2.proto's numbers), worked out by hand.
TEST(OpenApiV2Protobuf, WritesGnosticDocument) {
  struct Case {
    std::string name, json, want;
  };
  const std::vector<Case> cases = {
      {"swagger and info", R"({"swagger":"2.0","info":{"title":"K","version":"v"}})",
       // 1: "2.0"; 2: Info{1: "K", 2: "v"}
       "0a 03 32 2e 30 12 06 0a 01 4b 12 01 76"},
      {"a definition with a type and an extension",
       R"({"definitions":{"A":{"type":"object","x-k":"m"}}})",
       // 9: Definitions{1: NamedSchema{1: "A", 2: Schema{22: TypeItem{1: "object"},
       //    31: NamedAny{1: "x-k", 2: Any{2: "\"m\"\n"}}}}}
       "4a 22 0a 20 0a 01 41 12 1b b2 01 08 0a 06 6f 62 6a 65 63 74 fa 01 0d 0a 03 78 2d 6b 12 06 "
       "12 04 22 6d 22 0a"},
      {"a $ref with its description, required, properties",
       R"({"definitions":{"B":{"$ref":"#/x","description":"d","required":["r"],"properties":{"p":{"format":"f"}}}}})",
       // Schema{1: "#/x", 4: "d", 19: "r", 25: Properties{1: NamedSchema{1: "p", 2: {2: "f"}}}}
       "4a 20 0a 1e 0a 01 42 12 19 0a 03 23 2f 78 22 01 64 9a 01 01 72 ca 01 0a 0a 08 0a 01 70 12 "
       "03 12 01 66"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto parsed = codec::ParseJsonStream(c.json);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(Hex(OpenApiV2Protobuf(parsed->front())), c.want);
  }
}

TEST(OpenApiV2Protobuf, ServedWithTheJsonDocumentsETag) {
  auto json = OpenApi(Get("/openapi/v2", "application/json"));
  auto pb =
      OpenApi(Get("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"));
  ASSERT_TRUE(json && pb);
  EXPECT_EQ(HeaderOf(*pb, "Etag"), HeaderOf(*json, "Etag"));
  EXPECT_TRUE(
      pb->body.starts_with(std::string("\x0a\x03"
                                       "2.0",
                                       5)));
  EXPECT_GT(pb->body.size(), 100000u);
}

}  // namespace
}  // namespace podlimits::apiserver
