// Accept negotiation as k8s.io/apiserver's handlers/negotiation does it, over goautoneg's parse:
// cases from negotiate_test.go and autoneg_test.go, and the headers the clients send.
#include "apiserver/output_media_type.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace podlimits::apiserver {
namespace {

constexpr std::string_view kPlain406 =
    "only the following media types are accepted: application/json, application/yaml, "
    "application/vnd.kubernetes.protobuf";
constexpr std::string_view kStream406 =
    "only the following media types are accepted: application/json;stream=watch, "
    "application/vnd.kubernetes.protobuf;stream=watch";

TEST(ParseAcceptTest, GoautonegOrder) {
  // autoneg_test.go's Chrome header: q first, the header's order between equals.
  auto clauses = ParseAccept(
      "application/xml,application/xhtml+xml,text/html;q=0.9,text/plain;q=0.8,image/png,*/*;q=0.5");
  std::vector<std::string> order;
  for (const auto& c : clauses) order.push_back(c.type + "/" + c.subtype);
  EXPECT_EQ(order, (std::vector<std::string>{"application/xml", "application/xhtml+xml",
                                             "image/png", "text/html", "text/plain", "*/*"}));
  EXPECT_FLOAT_EQ(static_cast<float>(clauses[3].q), 0.9f);
}

TEST(ParseAcceptTest, Malformed) {
  struct Case {
    std::string name, header;
    std::vector<std::string> kept;
  };
  const std::vector<Case> cases = {
      {"bare type dropped", "application", {}},
      {"bare star is */*", "*", {"*/*"}},
      {"three parts dropped", "a/b/c,application/json", {"application/json"}},
      {"spaces trimmed", "  application/json ;  as=Table ", {"application/json"}},
      {"empty header", "", {}},
  };
  for (const auto& c : cases) {
    std::vector<std::string> kept;
    for (const auto& clause : ParseAccept(c.header)) kept.push_back(clause.type + "/" + clause.subtype);
    EXPECT_EQ(kept, c.kept) << c.name;
  }
  auto params = ParseAccept("application/json;as=Table;g=meta.k8s.io;v=v1;broken;a=b=c;q=x");
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].params, (std::map<std::string, std::string>{
                                  {"as", "Table"}, {"g", "meta.k8s.io"}, {"v", "v1"}}));
  EXPECT_EQ(params[0].q, 0) << "an unparsable q is 0";
}

TEST(NegotiateOutputMediaTypeTest, Table) {
  struct Case {
    std::string name;
    std::string accept;
    EndpointMediaTypes endpoint;
    std::optional<MediaType> want;  // nullopt: 406
    std::string convert = "";
  };
  const EndpointMediaTypes all;
  const EndpointMediaTypes no_protobuf{.protobuf = false, .table = true};
  const std::vector<Case> cases = {
      {"no Accept is JSON", "", all, MediaType::kJson},
      {"*/* is JSON", "*/*", all, MediaType::kJson},
      {"application/* is JSON", "application/*", all, MediaType::kJson},
      {"json", "application/json", all, MediaType::kJson},
      {"yaml", "application/yaml", all, MediaType::kYaml},
      {"protobuf", "application/vnd.kubernetes.protobuf", all, MediaType::kProtobuf},
      {"client-go's protobuf first",
       "application/vnd.kubernetes.protobuf, application/json", all, MediaType::kProtobuf},
      {"protobuf first, kind without one: JSON",
       "application/vnd.kubernetes.protobuf, application/json", no_protobuf, MediaType::kJson},
      {"only protobuf, kind without one: 406", "application/vnd.kubernetes.protobuf", no_protobuf,
       std::nullopt},
      {"json first wins over protobuf", "application/json, application/vnd.kubernetes.protobuf",
       all, MediaType::kJson},
      {"q orders before the header", "application/json;q=0.5, application/vnd.kubernetes.protobuf",
       all, MediaType::kProtobuf},
      {"q=0 still matches", "application/json;q=0", all, MediaType::kJson},
      {"unrecognized first, then json", "unrecognized/stuff,application/json; pretty=1", all,
       MediaType::kJson},
      {"text/plain: 406", "text/plain", all, std::nullopt},
      {"bare application: 406", "application", all, std::nullopt},
      {"kubectl get's Table",
       "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
       "g=meta.k8s.io,application/json",
       all, MediaType::kJson, "Table"},
      {"Table in protobuf is skipped",
       "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json", all,
       MediaType::kJson},
      {"Table without its group is skipped", "application/json;as=Table,application/yaml", all,
       MediaType::kYaml},
      {"Table of another version is skipped",
       "application/json;as=Table;v=v2;g=meta.k8s.io", all, std::nullopt},
      {"Table where there is none", "application/json;as=Table;v=v1;g=meta.k8s.io",
       EndpointMediaTypes{.protobuf = true, .table = false}, std::nullopt},
      {"metadata client's PartialObjectMetadataList in protobuf",
       "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
       "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
       all, MediaType::kProtobuf, "PartialObjectMetadataList"},
      {"an unknown conversion is skipped", "application/json;as=Pod;g=meta.k8s.io;v=v1", all,
       std::nullopt},
      {"stream=watch on json", "application/json;stream=watch", all, MediaType::kJson},
      {"stream=watch on yaml is skipped", "application/yaml;stream=watch", all, std::nullopt},
      {"another stream is skipped", "application/json;stream=other", all, std::nullopt},
      {"sv=v1 is the meta version", "application/json;sv=v1", all, MediaType::kJson},
      {"another sv is skipped", "application/json;sv=v2,application/yaml", all, MediaType::kYaml},
      {"a specific type before */* of the same q", "*/*,application/yaml", all, MediaType::kYaml},
  };
  for (const auto& c : cases) {
    auto got = NegotiateOutputMediaType(c.accept, c.endpoint);
    if (!c.want) {
      ASSERT_FALSE(got) << c.name;
      EXPECT_EQ(got.error().code, 406) << c.name;
      EXPECT_EQ(got.error().reason, "NotAcceptable") << c.name;
      EXPECT_EQ(got.error().message, kPlain406) << c.name;
      continue;
    }
    ASSERT_TRUE(got) << c.name << ": " << got.error().message;
    EXPECT_EQ(got->type, *c.want) << c.name;
    EXPECT_EQ(got->convert_kind, c.convert) << c.name;
  }
}

TEST(NegotiateWatchMediaTypeTest, Table) {
  struct Case {
    std::string name;
    std::string accept;
    std::optional<MediaType> want;
    std::string_view message = "";  // the 406's
  };
  const std::vector<Case> cases = {
      {"no Accept", "", MediaType::kJson},
      {"client-go protobuf", "application/vnd.kubernetes.protobuf, application/json",
       MediaType::kProtobuf},
      {"protobuf stream=watch", "application/vnd.kubernetes.protobuf;stream=watch",
       MediaType::kProtobuf},
      {"json stream=watch", "application/json;stream=watch", MediaType::kJson},
      {"yaml negotiates, but has no stream form", "application/yaml", std::nullopt, kStream406},
      {"nothing negotiates: the plain list", "text/plain", std::nullopt, kPlain406},
  };
  for (const auto& c : cases) {
    auto got = NegotiateWatchMediaType(c.accept, EndpointMediaTypes{});
    if (!c.want) {
      ASSERT_FALSE(got) << c.name;
      EXPECT_EQ(got.error().message, c.message) << c.name;
      continue;
    }
    ASSERT_TRUE(got) << c.name;
    EXPECT_EQ(got->type, *c.want) << c.name;
  }
}

}  // namespace
}  // namespace podlimits::apiserver
