#include "discovery/openapi_schemas.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "api/schema_tables.h"
#include "codec/json_codec.h"

namespace podlimits::apiserver {
namespace {

using codec::Node;

constexpr std::string_view kTime = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
constexpr std::string_view kMicroTime = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime";
constexpr std::string_view kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
constexpr std::string_view kIntOrString = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
constexpr std::string_view kFieldsV1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1";
constexpr std::string_view kRawExtension = "io.k8s.apimachinery.pkg.runtime.RawExtension";

// The definitions whose JSON form is a scalar (or anything): no fields in the schema, a
// definition of their own in the documents.
bool IsWrapper(std::string_view name) {
  return name == kTime || name == kMicroTime || name == kQuantity || name == kIntOrString ||
         name == kFieldsV1 || name == kRawExtension || name == kPatchDefinition;
}

Node Parse(std::string_view json) {
  auto parsed = codec::ParseJsonStream(json);
  // The embedded files are checked by the build's generators and the unit tests; an empty tree
  // would serve empty documents rather than abort the daemon.
  if (!parsed || parsed->empty()) return Node::Object();
  return std::move(parsed->front());
}

// Objects' members sorted by name, as encoding/json writes Go maps: the documents read the same
// whatever order the data files list things in.
void SortMembers(Node& n) {
  if (n.IsObject()) {
    std::stable_sort(n.members.begin(), n.members.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    for (auto& m : n.members) SortMembers(m.value);
  } else if (n.IsArray()) {
    for (Node& item : n.items) SortMembers(item);
  }
}


Node TypeOnly(std::string_view type) {
  Node n = Node::Object();
  n.Set("type", Node::String(std::string(type)));
  return n;
}

// The definition a scalar type word of the schema refers to (time, quantity, ...), or "".
std::string ScalarDefinition(std::string_view type, const Node* docs) {
  if (std::string d = StringOf(docs ? docs->Find("definition") : nullptr); !d.empty()) return d;
  if (type == "time") return std::string(kTime);
  if (type == "quantity") return std::string(kQuantity);
  if (type == "int-or-string") return std::string(kIntOrString);
  return "";
}

// The zero value openapi-gen gives a list's items or a map's values that are not pointers:
// {} for a struct, the scalar's zero; none for a type with its own marshalling.
std::optional<Node> ElementDefault(const Node& spec) {
  if (spec.Find("ref")) return Node::Object();
  const std::string type = StringOf(spec.Find("type"));
  // []byte is a slice in Go: no default, though a string in JSON.
  if (type == "string" && StringOf(spec.Find("format")) == "byte") return std::nullopt;
  if (type == "string") return Node::String("");
  if (type == "integer" || type == "number") return Node::Int(0);
  if (type == "boolean") return Node::Bool(false);
  return std::nullopt;
}

}  // namespace

Node DefinitionRef(std::string_view name, OpenApiVersion version) {
  const std::string_view prefix =
      version == OpenApiVersion::kV3 ? "#/components/schemas/" : "#/definitions/";
  Node ref = Node::Object();
  ref.Set("$ref", Node::String(std::string(prefix) + std::string(name)));
  return ref;
}

OpenApiSchemas::OpenApiSchemas(std::string_view schema_json, std::string_view docs_json)
    : schema_(Parse(schema_json)), docs_(Parse(docs_json)) {}

const OpenApiSchemas& OpenApiSchemas::Embedded() {
  static const OpenApiSchemas schemas(api::EmbeddedObjectSchema(), api::EmbeddedOpenApiDocs());
  return schemas;
}

std::string OpenApiSchemas::DefinitionOf(std::string_view kind) const {
  return StringOf(schema_.FindPath({"roots", kind}));
}

void OpenApiSchemas::Reach(const Node& spec, const Node* docs,
                           std::vector<std::string>& out) const {
  if (const Node* ref = spec.Find("ref")) {
    out.push_back(ref->scalar);
  } else if (const Node* elem = spec.Find("list")) {
    Reach(*elem, nullptr, out);
  } else if (const Node* elem = spec.Find("map")) {
    Reach(*elem, nullptr, out);
  } else if (std::string d = ScalarDefinition(StringOf(spec.Find("type")), docs); !d.empty()) {
    out.push_back(d);
  }
}

std::vector<std::string> OpenApiSchemas::Closure(const std::vector<std::string>& roots) const {
  std::set<std::string> seen;
  std::vector<std::string> pending = roots;
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    const Node* type = schema_.FindPath({"types", name});
    if (!type) continue;
    const Node* fields = type->Find("fields");
    const Node* docs = docs_.FindPath({"definitions", name, "properties"});
    if (!fields) continue;
    for (const auto& f : fields->members) {
      Reach(f.value, docs ? docs->Find(f.key) : nullptr, pending);
    }
  }
  return {seen.begin(), seen.end()};
}

Node OpenApiSchemas::Field(const Node& spec, const Node* docs, OpenApiVersion version,
                           bool element) const {
  Node out = Node::Object();
  bool is_ref = false;
  if (const Node* ref = spec.Find("ref")) {
    out = DefinitionRef(ref->scalar, version);
    is_ref = true;
  } else if (const Node* elem = spec.Find("list")) {
    out.Set("type", Node::String("array"));
    out.Set("items", Field(*elem, nullptr, version, true));
  } else if (const Node* elem = spec.Find("map")) {
    out.Set("type", Node::String("object"));
    out.Set("additionalProperties", Field(*elem, nullptr, version, true));
  } else {
    const std::string type = StringOf(spec.Find("type"));
    if (std::string d = ScalarDefinition(type, docs); !d.empty()) {
      out = DefinitionRef(d, version);
      is_ref = true;
    } else if (type == "any") {
      out.Set("type", Node::String("object"));
    } else {
      out.Set("type", Node::String(type));
      if (const Node* format = spec.Find("format")) out.Set("format", *format);
    }
  }
  if (element && version == OpenApiVersion::kV3) {
    if (auto zero = ElementDefault(spec)) out.Set("default", std::move(*zero));
  }
  if (docs) {
    for (const auto& m : docs->members) {
      if (m.key == "definition") continue;
      if (m.key == "default" && version == OpenApiVersion::kV2) continue;
      out.Set(m.key, m.value);
    }
  }
  // OpenAPI 3.0 ignores a $ref's siblings: kube-openapi's v3 keeps them beside an allOf of one.
  if (is_ref && version == OpenApiVersion::kV3 && out.members.size() > 1) {
    Node wrapped = Node::Object();
    Node all_of = Node::Array();
    Node ref = Node::Object();
    ref.Set("$ref", *out.Find("$ref"));
    all_of.items.push_back(std::move(ref));
    wrapped.Set("allOf", std::move(all_of));
    for (auto& m : out.members) {
      if (m.key != "$ref") wrapped.Set(m.key, std::move(m.value));
    }
    out = std::move(wrapped);
  }
  return out;
}

Node OpenApiSchemas::Wrapper(std::string_view name, OpenApiVersion version) const {
  Node out = Node::Object();
  const bool v3 = version == OpenApiVersion::kV3;
  if (name == kTime || name == kMicroTime) {
    out.Set("type", Node::String("string"));
    out.Set("format", Node::String("date-time"));
  } else if (name == kQuantity) {
    if (v3) {
      Node one_of = Node::Array();
      one_of.items.push_back(TypeOnly("string"));
      one_of.items.push_back(TypeOnly("number"));
      out.Set("oneOf", std::move(one_of));
    } else {
      out.Set("type", Node::String("string"));
    }
  } else if (name == kIntOrString) {
    out.Set("format", Node::String("int-or-string"));
    if (v3) {
      Node one_of = Node::Array();
      one_of.items.push_back(TypeOnly("integer"));
      one_of.items.push_back(TypeOnly("string"));
      out.Set("oneOf", std::move(one_of));
    } else {
      out.Set("type", Node::String("string"));
    }
  } else {
    out.Set("type", Node::String("object"));
  }
  return out;
}

Node OpenApiSchemas::Definition(std::string_view name, OpenApiVersion version,
                                const std::vector<GroupVersionKind>& gvks) const {
  const Node* docs = docs_.FindPath({"definitions", name});
  Node out = Node::Object();
  if (IsWrapper(name)) {
    out = Wrapper(name, version);
  } else {
    out.Set("type", Node::String("object"));
    Node properties = Node::Object();
    const Node* fields = schema_.FindPath({"types", name, "fields"});
    const Node* field_docs = docs ? docs->Find("properties") : nullptr;
    if (fields) {
      for (const auto& f : fields->members) {
        properties.Set(
            f.key, Field(f.value, field_docs ? field_docs->Find(f.key) : nullptr, version, false));
      }
    }
    if (!properties.members.empty()) out.Set("properties", std::move(properties));
    if (const Node* required = docs ? docs->Find("required") : nullptr) {
      // Only the fields the served schema has (a newer upstream may list more).
      Node kept = Node::Array();
      for (const Node& r : required->items) {
        if (fields && fields->Find(r.scalar)) kept.items.push_back(r);
      }
      if (!kept.items.empty()) out.Set("required", std::move(kept));
    }
    if (const Node* map_type = docs ? docs->Find("x-kubernetes-map-type") : nullptr) {
      out.Set("x-kubernetes-map-type", *map_type);
    }
  }
  if (const Node* description = docs ? docs->Find("description") : nullptr) {
    out.Set("description", *description);
  }
  if (!gvks.empty()) {
    Node list = Node::Array();
    for (const GroupVersionKind& gvk : gvks) {
      Node entry = Node::Object();
      entry.Set("group", Node::String(gvk.group));
      entry.Set("kind", Node::String(gvk.kind));
      entry.Set("version", Node::String(gvk.version));
      list.items.push_back(std::move(entry));
    }
    out.Set("x-kubernetes-group-version-kind", std::move(list));
  }
  SortMembers(out);
  return out;
}

}  // namespace podlimits::apiserver
