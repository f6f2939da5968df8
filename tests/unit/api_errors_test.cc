// The apiserver's Status errors, byte for byte where kubectl prints them.
#include "listwatch/api_errors.h"

#include <gtest/gtest.h>

namespace podlimits::apiserver {
namespace {

TEST(ApiErrors, MessagesAndCodes) {
  struct Case {
    ApiError error;
    int code;
    std::string reason;
    std::string message;
  };
  const std::vector<Case> cases = {
      {NotFound("pods", "web"), 404, "NotFound", "pods \"web\" not found"},
      {AlreadyExists("configmaps", "app"), 409, "AlreadyExists",
       "configmaps \"app\" already exists"},
      {Conflict("pods", "web", ModifiedConflictReason()), 409, "Conflict",
       "Operation cannot be fulfilled on pods \"web\": the object has been modified; please "
       "apply your changes to the latest version and try again"},
      {Forbidden("pods", "web", "maximum cpu usage per Container is 1, but limit is 2"), 403,
       "Forbidden", "pods \"web\" is forbidden: maximum cpu usage per Container is 1, but limit is 2"},
      {MethodNotSupported("nodes", "delete"), 405, "MethodNotAllowed",
       "delete is not supported on resources of kind \"nodes\""},
      {ResourceExpired("too old resource version: 5 (20)"), 410, "Expired",
       "too old resource version: 5 (20)"},
      {UnsupportedMediaType({"application/json", "application/yaml"}), 415,
       "UnsupportedMediaType",
       "the body of the request was in an unknown format - accepted media types include: "
       "application/json, application/yaml"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_EQ(c.error.code, c.code);
    EXPECT_EQ(c.error.reason, c.reason);
    EXPECT_EQ(c.error.message, c.message);
    EXPECT_EQ(c.error.Response().status, c.code);
  }
}

TEST(ApiErrors, InvalidCarriesCauses) {
  field::ErrorList errs = {field::Required(field::Path("spec").Child("containers"), ""),
                           field::Invalid(field::Path("metadata").Child("name"), std::string("A"),
                                          "must be lowercase")};
  ApiError e = Invalid("Pod", "A", errs);
  EXPECT_EQ(e.code, 422);
  EXPECT_EQ(e.message,
            "Pod \"A\" is invalid: [spec.containers: Required value, metadata.name: Invalid "
            "value: \"A\": must be lowercase]");
  EXPECT_EQ(e.Response().body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Pod \\\"A\\\" is invalid: [spec.containers: Required value, "
            "metadata.name: Invalid value: \\\"A\\\": must be lowercase]\",\"reason\":\"Invalid\","
            "\"details\":{\"name\":\"A\",\"kind\":\"Pod\",\"causes\":[{\"reason\":"
            "\"FieldValueRequired\",\"message\":\"Required value\",\"field\":\"spec.containers\"},"
            "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"A\\\": must be "
            "lowercase\",\"field\":\"metadata.name\"}]},\"code\":422}");
}

}  // namespace
}  // namespace podlimits::apiserver
