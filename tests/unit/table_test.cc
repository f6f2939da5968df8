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

}  // namespace
}  // namespace podlimits::printers
