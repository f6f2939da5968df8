// Server-side printing: the Tables kubectl get shows.
#include "printers/table.h"

#include <gtest/gtest.h>

#include "codec/json_codec.h"
#include "printers/human_duration.h"
#include "test_support.h"

namespace podlimits::printers {
namespace {

codec::Node Object(std::string_view yaml) { return podlimits::testing::DecodeOne(yaml).tree; }

std::string Cells(const codec::Node& table) {
  std::string out;
  for (const auto& row : table.Find("rows")->items) {
    for (const auto& cell : row.Find("cells")->items) out += codec::EncodeJson(cell, 0) + " ";
    out += "| ";
  }
  return out;
}

std::string Columns(const codec::Node& table) {
  std::string out;
  for (const auto& c : table.Find("columnDefinitions")->items) out += c.Find("name")->scalar + ",";
  return out;
}

TEST(Table, ColumnsAndCellsPerResource) {
  const auto now = *ParseApiTime("2026-11-25T12:00:00Z");
  auto cm = Object(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default, "
      "creationTimestamp: \"2026-11-25T11:55:00Z\"}\ndata: {a: \"1\", b: \"2\"}\nbinaryData: {c: "
      "eA==}\n");
  auto t = BuildTable("configmaps", {cm}, "42", now);
  EXPECT_EQ(Columns(t), "Name,Data,Age,");
  EXPECT_EQ(Cells(t), "\"app\" 3 \"5m\" | ");
  EXPECT_EQ(t.FindPath({"metadata", "resourceVersion"})->scalar, "42");
  const codec::Node& row = t.Find("rows")->items[0];
  EXPECT_EQ(row.FindPath({"object", "kind"})->scalar, "PartialObjectMetadata");
  EXPECT_EQ(row.FindPath({"object", "metadata", "namespace"})->scalar, "default");

  auto secret = Object(
      "apiVersion: v1\nkind: Secret\nmetadata: {name: s, creationTimestamp: "
      "\"2026-11-23T12:00:00Z\"}\ntype: Opaque\ndata: {k: eA==}\n");
  t = BuildTable("secrets", {secret}, "1", now);
  EXPECT_EQ(Columns(t), "Name,Type,Data,Age,");
  EXPECT_EQ(Cells(t), "\"s\" \"Opaque\" 1 \"2d\" | ");

  auto ns = Object(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: team, creationTimestamp: "
      "\"2026-11-25T11:59:30Z\"}\nstatus: {phase: Active}\n");
  t = BuildTable("namespaces", {ns}, "1", now);
  EXPECT_EQ(Columns(t), "Name,Status,Age,");
  EXPECT_EQ(Cells(t), "\"team\" \"Active\" \"30s\" | ");

  auto lr = Object(
      "apiVersion: v1\nkind: LimitRange\nmetadata: {name: cpu, creationTimestamp: "
      "\"2026-11-25T11:00:00Z\"}\nspec: {limits: []}\n");
  t = BuildTable("limitranges", {lr}, "1", now);
  EXPECT_EQ(Columns(t), "Name,Created At,");
  EXPECT_EQ(Cells(t), "\"cpu\" \"2026-11-25T11:00:00Z\" | ");
  EXPECT_EQ(t.Find("columnDefinitions")->items[1].Find("type")->scalar, "date");
}

// TableOptions.includeObject: what each row's `object` carries. kubectl's --sort-by asks for
// Object and sorts on the field it names, which PartialObjectMetadata does not have.
TEST(Table, RowObjectAsIncludeObjectAsks) {
  const auto now = *ParseApiTime("2026-11-25T12:00:00Z");
  const auto cm = Object(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: ci, creationTimestamp: "
      "\"2026-11-25T11:55:00Z\"}\ndata: {mode: fast}\n");
  struct Case {
    const char* name;
    const char* include_object;
    const char* object;  // the row's object, as JSON
  };
  const Case cases[] = {
      {"empty is Metadata", "",
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"app",)"
       R"("namespace":"ci","creationTimestamp":"2026-11-25T11:55:00Z"}})"},
      {"Metadata", "Metadata",
       R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"app",)"
       R"("namespace":"ci","creationTimestamp":"2026-11-25T11:55:00Z"}})"},
      {"Object: the whole object", "Object",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"ci",)"
       R"("creationTimestamp":"2026-11-25T11:55:00Z"},"data":{"mode":"fast"}})"},
      {"None: null", "None", "null"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto row_object = ParseIncludeObject(c.include_object);
    ASSERT_TRUE(row_object.has_value());
    const codec::Node t = BuildTable("configmaps", {cm}, "1", now, *row_object);
    EXPECT_EQ(codec::EncodeJson(*t.Find("rows")->items[0].Find("object"), 0), c.object);
  }
  for (const char* unknown : {"object", "Everything", "Metadata,Object"}) {
    EXPECT_FALSE(ParseIncludeObject(unknown).has_value()) << unknown;
  }
}

}  // namespace
}  // namespace podlimits::printers
