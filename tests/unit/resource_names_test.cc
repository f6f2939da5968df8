// Resource-name predicates and validators (pkg/apis/core/helper, validateResourceName,
// validateContainerResourceName), one named case per rule.
#include "validation/resource_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace podlimits::validation {
namespace {

using ::testing::ElementsAreArray;

struct PredicateCase {
  std::string name;
  bool standard, standard_container, native, extended, overcommit, integer, hugepage;
};

TEST(ResourceNamePredicates, UpstreamSets) {
  // clang-format off
  const std::vector<PredicateCase> cases = {
      // name                      std    ctr    native ext    over   int    huge
      {"cpu",                      true , true , true , false, true , false, false},
      {"memory",                   true , true , true , false, true , false, false},
      {"ephemeral-storage",        true , true , true , false, true , false, false},
      {"hugepages-2Mi",            true , true , true , false, false, false, true},
      {"requests.hugepages-1Gi",   true , false, true , false, true , false, false},
      {"requests.cpu",             true , false, true , false, true , false, false},
      {"limits.memory",            true , false, true , false, true , false, false},
      {"limits.storage",           false, false, true , false, true , false, false},
      {"storage",                  true , false, true , false, true , false, false},
      {"requests.storage",         true , false, true , false, true , false, false},
      {"pods",                     true , false, true , false, true , true , false},
      {"services.nodeports",       true , false, true , false, true , true , false},
      {"services.loadbalancers",   true , false, true , false, true , true , false},
      {"configmaps",               true , false, true , false, true , true , false},
      {"example.com/gpu",          false, false, false, true , false, true , false},
      {"nvidia.com/gpu",           false, false, false, true , false, true , false},
      {"kubernetes.io/foo",        false, false, true , false, true , false, false},
      {"foo.kubernetes.io/bar",    false, false, true , false, true , false, false},
      {"requests.example.com/foo", false, false, false, false, false, false, false},
      {"foo",                      false, false, true , false, true , false, false},
      // Without KEP-6063 pid is just an unknown name; callers handle it when the gate is on.
      {"pid",                      false, false, true , false, true , false, false},
  };
  // clang-format on
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(IsStandardResourceName(c.name), c.standard);
    EXPECT_EQ(IsStandardContainerResourceName(c.name), c.standard_container);
    EXPECT_EQ(IsNativeResource(c.name), c.native);
    EXPECT_EQ(IsExtendedResourceName(c.name), c.extended);
    EXPECT_EQ(IsOvercommitAllowed(c.name), c.overcommit);
    EXPECT_EQ(IsIntegerResourceName(c.name), c.integer);
    EXPECT_EQ(IsHugePageResourceName(c.name), c.hugepage);
  }
  EXPECT_TRUE(IsQuotaHugePageResourceName("requests.hugepages-2Mi"));
  EXPECT_TRUE(IsQuotaHugePageResourceName("hugepages-2Mi"));
  EXPECT_FALSE(IsQuotaHugePageResourceName("limits.hugepages-2Mi"));
}

struct NameCase {
  std::string name;
  std::vector<std::string> errors;  // "PATH: BODY" strings
};

const std::string kStandardMsg = "must be a standard resource type or fully qualified";
const std::string kContainerMsg = "must be a standard resource for containers";
const std::string kExtendedMsg = "doesn't follow extended resource name standard";
const std::string kNamePartMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

std::string Err(const std::string& name, const std::string& detail) {
  return "r[" + name + "]: Invalid value: \"" + name + "\": " + detail;
}

std::vector<std::string> Render(const field::ErrorList& errs) {
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.String());
  return out;
}

TEST(ResourceNameValidation, ValidateResourceName) {
  const std::vector<NameCase> cases = {
      {"cpu", {}},
      {"storage", {}},
      {"requests.hugepages-2Mi", {}},
      {"services.nodeports", {}},
      {"example.com/foo", {}},
      {"foo", {Err("foo", kStandardMsg)}},
      {"pid", {Err("pid", kStandardMsg)}},
      // A qualified-name error stops before the standard-name check.
      {"-foo", {Err("-foo", kNamePartMsg)}},
      {"example.com/-foo", {Err("example.com/-foo", kNamePartMsg)}},
      // Current apimachinery: IsQualifiedName is content.IsLabelKey.
      {"a/b/c",
       {Err("a/b/c",
            "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")}},
      {"example.com/" + std::string(64, 'a'),
       {Err("example.com/" + std::string(64, 'a'), "name part must be no more than 63 bytes")}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(Render(ValidateResourceName(c.name, field::Path("r").Key(c.name))),
                ElementsAreArray(c.errors));
  }
}

TEST(ResourceNameValidation, ValidateContainerResourceName) {
  const std::vector<NameCase> cases = {
      {"cpu", {}},
      {"memory", {}},
      {"ephemeral-storage", {}},
      {"hugepages-2Mi", {}},
      {"example.com/gpu", {}},
      {"kubernetes.io/something", {}},
      // Unknown unprefixed names get both messages; standard non-container names one.
      {"foo", {Err("foo", kStandardMsg), Err("foo", kContainerMsg)}},
      {"pid", {Err("pid", kStandardMsg), Err("pid", kContainerMsg)}},
      {"pods", {Err("pods", kContainerMsg)}},
      {"storage", {Err("storage", kContainerMsg)}},
      {"requests.cpu", {Err("requests.cpu", kContainerMsg)}},
      {"requests.example.com/foo", {Err("requests.example.com/foo", kExtendedMsg)}},
      {"-foo", {Err("-foo", kNamePartMsg), Err("-foo", kContainerMsg)}},
      {"example.com/-foo",
       {Err("example.com/-foo", kNamePartMsg), Err("example.com/-foo", kExtendedMsg)}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(Render(ValidateContainerResourceName(c.name, field::Path("r").Key(c.name))),
                ElementsAreArray(c.errors));
  }
}

}  // namespace
}  // namespace podlimits::validation
