// ConfigMap and Secret through decoding and the admission chain, with the apiserver's messages.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "admission/chain.h"
#include "api/decode.h"
#include "codec/yaml_codec.h"
#include "validation/config_data.h"

namespace podlimits {
namespace {

admission::Outcome AdmitOne(std::string_view yaml) {
  auto decoded = api::DecodeManifests("test.yaml", yaml);
  auto outcomes = admission::RunChain(std::move(decoded), admission::ChainOptions{});
  EXPECT_EQ(outcomes.size(), 1u);
  return outcomes.empty() ? admission::Outcome{} : outcomes[0];
}

TEST(ConfigData, SecretStringDataMergesIntoDataAndTypeDefaults) {
  auto o = AdmitOne(
      "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
      "data: {user: YWRtaW4=, password: b2xk}\nstringData: {password: s3cret}\n");
  ASSERT_TRUE(o.admitted) << o.message;
  EXPECT_EQ(o.object.FindPath({"data", "password"})->scalar, "czNjcmV0");  // stringData wins
  EXPECT_EQ(o.object.FindPath({"data", "user"})->scalar, "YWRtaW4=");
  EXPECT_EQ(o.object.Find("stringData"), nullptr);  // never stored
  EXPECT_EQ(o.object.Find("type")->scalar, "Opaque");
  EXPECT_EQ(o.object.FindPath({"metadata", "namespace"})->scalar, "default");
}

TEST(ConfigData, Rejections) {
  struct Case {
    const char* name;
    std::string yaml;
    std::string want;
  };
  const std::string cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
  const std::string secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n";
  const Case cases[] = {
      {"bad config key", cm + "data: {\"a b\": x}\n",
       "ConfigMap \"c\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must "
       "consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
       "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"},
      {"dot-dot prefix", cm + "data: {..x: \"1\"}\n",
       "ConfigMap \"c\" is invalid: data[..x]: Invalid value: \"..x\": must not start with '..'"},
      {"key in both bags", cm + "data: {k: v}\nbinaryData: {k: AA==}\n",
       "ConfigMap \"c\" is invalid: data[k]: Invalid value: \"k\": duplicate of key present in "
       "binaryData"},
      {"bad name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n",
       "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase "
       "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
       "must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
       "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"tls secret without its keys", secret + "type: kubernetes.io/tls\n",
       "Secret \"s\" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]"},
      {"basic-auth without either key", secret + "type: kubernetes.io/basic-auth\n",
       "Secret \"s\" is invalid: [data[username]: Required value, data[password]: Required "
       "value]"},
      {"service account token without its annotation",
       secret + "type: kubernetes.io/service-account-token\n",
       "Secret \"s\" is invalid: metadata.annotations[kubernetes.io/service-account.name]: "
       "Required value"},
      {"dockerconfigjson not an object",
       secret + "type: kubernetes.io/dockerconfigjson\nstringData: {.dockerconfigjson: '[1]'}\n",
       "Secret \"s\" is invalid: data[.dockerconfigjson]: Invalid value: \"<secret contents "
       "redacted>\": json: cannot unmarshal array into Go value of type map[string]interface {}"},
  };
  for (const auto& c : cases) {
    auto o = AdmitOne(c.yaml);
    EXPECT_FALSE(o.admitted) << c.name;
    EXPECT_EQ(o.reason, "Invalid") << c.name;
    EXPECT_EQ(o.message, c.want) << c.name;
  }
}

TEST(ConfigData, SecretDataMustBeBase64AsGoDecodesIt) {
  auto o = AdmitOne("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: YWRtaW4=x}\n");
  EXPECT_FALSE(o.admitted);
  EXPECT_EQ(o.reason, "BadRequest");
  EXPECT_EQ(o.message,
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input "
            "byte 8 (line 4)");
  auto strict =
      AdmitOne("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nimmutable: \"yes\"\n");
  EXPECT_FALSE(strict.admitted);
  EXPECT_EQ(strict.reason, "BadRequest");
}

TEST(ConfigData, TotalSizeIsBounded) {
  api::ConfigMap cm;
  cm.metadata.name = "big";
  cm.metadata.namespace_ = "default";
  cm.data["a"] = std::string(validation::kMaxSecretSize, 'x');
  cm.binary_data["b"] = "y";
  auto errs = validation::ValidateConfigMap(cm);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].String(), ": Too long: may not be more than 1048576 bytes");
  api::Secret s;
  s.metadata = cm.metadata;
  s.type = "Opaque";
  s.data["a"] = std::string(validation::kMaxSecretSize + 1, 'x');
  errs = validation::ValidateSecret(s);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].String(), "data: Too long: may not be more than 1048576 bytes");
}

TEST(ConfigData, EnvVarNames) {
  EXPECT_TRUE(validation::IsEnvVarName("MY_ENV.name-1").empty());
  EXPECT_FALSE(validation::IsEnvVarName("1BAD").empty());
  EXPECT_FALSE(validation::IsEnvVarName("a b").empty());
  EXPECT_FALSE(validation::IsEnvVarName("..x").empty());
}

}  // namespace
}  // namespace podlimits
