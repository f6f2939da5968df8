// Stored objects as items of a list response: kind and apiVersion cut, as a typed list has them.
#include "listwatch/stored_object.h"

#include <gtest/gtest.h>

namespace podlimits::apiserver {
namespace {

TEST(StoredObject, ListItemsLeaveOutKindAndApiVersion) {
  struct Case {
    const char* name;
    std::string stored, want;
  };
  const Case cases[] = {
      {"a stored pod", R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"web"}})",
       R"({"metadata":{"name":"web"}})"},
      {"another group", R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","spec":{}})",
       R"({"spec":{}})"},
      {"not in the stored order: as it is", R"({"apiVersion":"v1","kind":"Pod","spec":{}})",
       R"({"apiVersion":"v1","kind":"Pod","spec":{}})"},
      {"an escape in a value: as it is", R"({"kind":"P\"od","apiVersion":"v1","spec":{}})",
       R"({"kind":"P\"od","apiVersion":"v1","spec":{}})"},
      {"nothing after them: as it is", R"({"kind":"Pod","apiVersion":"v1"})",
       R"({"kind":"Pod","apiVersion":"v1"})"},
      {"not an object", "[]", "[]"},
  };
  for (const auto& c : cases) {
    std::string body = "[";  // appended after what the body already holds
    AppendListItem(body, c.stored);
    EXPECT_EQ(body, "[" + c.want) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::apiserver
