// The schema's build-time tables (api/schema_tables.h) say what its JSON says: every type, field,
// spec and root, read both ways.
#include "api/schema_tables.h"

#include <gtest/gtest.h>

#include <string>

#include "api/schema.h"

namespace podlimits::api {
namespace {

void ExpectSameSpec(const FieldSpec& json, const FieldSpec& tables, const std::string& where) {
  EXPECT_EQ(json.kind, tables.kind) << where;
  EXPECT_EQ(json.scalar, tables.scalar) << where;
  EXPECT_EQ(json.format, tables.format) << where;
  EXPECT_EQ(json.proposed, tables.proposed) << where;
  EXPECT_EQ(json.always, tables.always) << where;
  EXPECT_EQ(json.required, tables.required) << where;
  EXPECT_EQ(json.type, tables.type) << where;
  EXPECT_EQ(json.pb, tables.pb) << where;
  EXPECT_EQ(json.ref == nullptr, tables.ref == nullptr) << where;
  if (json.ref != nullptr && tables.ref != nullptr) {
    EXPECT_EQ(json.ref->id, tables.ref->id) << where;
  }
  ASSERT_EQ(json.elem == nullptr, tables.elem == nullptr) << where;
  if (json.elem) ExpectSameSpec(*json.elem, *tables.elem, where + "[]");
}

void ExpectSameSchema(std::string_view text, const SchemaTables& tables) {
  const Schema from_json(text);
  const Schema from_tables(tables);
  ASSERT_GT(tables.type_count, 0u);
  for (std::size_t i = 0; i < tables.type_count; ++i) {
    const std::string id = tables.types[i].id;
    const TypeDef* a = from_json.Type(id);
    const TypeDef* b = from_tables.Type(id);
    ASSERT_NE(a, nullptr) << id;
    ASSERT_NE(b, nullptr) << id;
    EXPECT_EQ(a->go_name, b->go_name);
    EXPECT_EQ(a->short_name, b->short_name);
    ASSERT_EQ(a->fields.size(), b->fields.size()) << id;
    for (std::size_t f = 0; f < a->fields.size(); ++f) {
      EXPECT_EQ(a->fields[f].name, b->fields[f].name) << id;
      ExpectSameSpec(a->fields[f].spec, b->fields[f].spec, id + "." + a->fields[f].name);
      EXPECT_EQ(b->Field(a->fields[f].name), &b->fields[f]) << id;
    }
  }
  for (std::size_t r = 0; r < tables.root_count; ++r) {
    const std::string kind = tables.roots[r].kind;
    ASSERT_NE(from_json.Root(kind), nullptr) << kind;
    EXPECT_EQ(from_json.Root(kind)->id, from_tables.Root(kind)->id) << kind;
  }
}

TEST(SchemaTables, SameAsTheJson) {
  ExpectSameSchema(EmbeddedObjectSchema(), ObjectSchemaTables());
  ExpectSameSchema(EmbeddedConfigSchema(), ConfigSchemaTables());
}

}  // namespace
}  // namespace podlimits::api
