#include "fieldmanager/type_schema.h"

#include "api/schema_tables.h"
#include "codec/json_codec.h"

namespace podlimits::fieldmanager {

using codec::Node;

namespace {

Node ParseOne(std::string_view json) {
  auto parsed = codec::ParseJsonStream(json);
  return parsed && parsed->size() == 1 ? std::move((*parsed)[0]) : Node::Object();
}

std::string StringAt(const Node* n, std::string_view key) {
  return n ? codec::StringOf(n->Find(key)) : std::string();
}

}  // namespace

const TypeSchema& TypeSchema::Embedded() {
  static const TypeSchema schema(api::EmbeddedObjectSchema(), api::EmbeddedOpenApiDocs());
  return schema;
}

TypeSchema::TypeSchema(std::string_view schema_json, std::string_view docs_json)
    : schema_(ParseOne(schema_json)), docs_(ParseOne(docs_json)) {
  const Node* types = schema_.Find("types");
  if (types == nullptr) return;
  const Node* defs = docs_.Find("definitions");
  for (const auto& m : types->members) {
    TypeRef t;
    t.schema = this;
    t.shape = TypeRef::Shape::kStruct;
    t.type_fields = m.value.Find("fields");
    const Node* def = defs ? defs->Find(m.key) : nullptr;
    t.type_docs = def ? def->Find("properties") : nullptr;
    t.required = def ? def->Find("required") : nullptr;
    t.atomic = StringAt(def, "x-kubernetes-map-type") == "atomic";
    structs_.emplace(m.key, std::move(t));
  }
}

TypeRef TypeSchema::Kind(std::string_view kind) const {
  const Node* roots = schema_.Find("roots");
  const Node* id = roots ? roots->Find(kind) : nullptr;
  if (id == nullptr) return TypeRef{};
  return Struct(id->scalar);
}

TypeRef TypeSchema::Struct(std::string_view type_id) const {
  auto it = structs_.find(type_id);
  if (it == structs_.end()) return TypeRef{.schema = this};
  return it->second;
}

TypeRef TypeSchema::Resolve(const Node& spec, const Node* docs) const {
  TypeRef t;
  t.schema = this;
  t.spec = &spec;
  if (const Node* ref = spec.Find("ref")) {
    t = Struct(ref->scalar);
    t.spec = &spec;
    return t;
  }
  if (spec.Find("list")) {
    t.shape = TypeRef::Shape::kList;
    const std::string list_type = StringAt(docs, "x-kubernetes-list-type");
    if (list_type == "map" || list_type == "set") {
      t.associative = true;
      if (const Node* keys = docs->Find("x-kubernetes-list-map-keys"); keys && keys->IsArray()) {
        for (const Node& k : keys->items) t.keys.push_back(k.scalar);
      }
    } else if (list_type.empty()) {
      const std::string strategy = StringAt(docs, "x-kubernetes-patch-strategy");
      if (strategy == "merge" || strategy == "merge,retainKeys") {
        t.associative = true;
        if (std::string key = StringAt(docs, "x-kubernetes-patch-merge-key"); !key.empty()) {
          t.keys.push_back(std::move(key));
        }
      }
    }
    t.atomic = !t.associative;
    return t;
  }
  if (spec.Find("map")) {
    t.shape = TypeRef::Shape::kMap;
    t.atomic = StringAt(docs, "x-kubernetes-map-type") == "atomic";
    return t;
  }
  t.shape = TypeRef::Shape::kScalar;
  return t;
}

bool TypeRef::Declares(std::string_view name) const {
  return shape == Shape::kStruct && type_fields != nullptr && type_fields->Find(name) != nullptr;
}

TypeRef TypeRef::Field(std::string_view name) const {
  if (!Declares(name)) return TypeRef{.schema = schema};
  const Node* docs = type_docs ? type_docs->Find(name) : nullptr;
  return schema->Resolve(*type_fields->Find(name), docs);
}

TypeRef TypeRef::Element() const {
  if (spec == nullptr) return TypeRef{.schema = schema};
  const Node* elem = spec->Find(shape == Shape::kList ? "list" : "map");
  if (elem == nullptr) return TypeRef{.schema = schema};
  return schema->Resolve(*elem, nullptr);
}

const Node* TypeRef::FieldDefault(std::string_view name) const {
  if (type_docs == nullptr) return nullptr;
  const Node* property = type_docs->Find(name);
  return property ? property->Find("default") : nullptr;
}

bool TypeRef::Requires(std::string_view name) const {
  if (required == nullptr || !required->IsArray()) return false;
  for (const Node& n : required->items) {
    if (n.scalar == name) return true;
  }
  return false;
}

}  // namespace podlimits::fieldmanager
