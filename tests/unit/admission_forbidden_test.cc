// admission.NewForbidden's Status.message, and the LimitRanger rejections (pods and claims)
// that use it.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "admission/forbidden.h"
#include "admission/limit_ranger.h"
#include "api/objects.h"
#include "resource/quantity.h"

namespace podlimits::admission {
namespace {

api::ObjectMeta Meta(std::string name, std::string generate_name) {
  api::ObjectMeta meta;
  meta.name = std::move(name);
  meta.generate_name = std::move(generate_name);
  meta.namespace_ = "default";
  return meta;
}

TEST(ForbiddenMessage, NamesTheObjectAsExtractResourceNameDoes) {
  struct Case {
    std::string name;
    std::string resource;
    api::ObjectMeta meta;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"name", "pods", Meta("web", ""), R"(pods "web" is forbidden: no)"},
      {"name wins over generateName", "pods", Meta("web-x7k2p", "web-"),
       R"(pods "web-x7k2p" is forbidden: no)"},
      {"generateName without a name", "persistentvolumeclaims", Meta("", "data-"),
       R"(persistentvolumeclaims "data-" is forbidden: no)"},
      {"neither", "pods", Meta("", ""), R"(pods "Unknown" is forbidden: no)"},
      {"quoted as Go's %q", "pods", Meta("a\"b", ""), R"(pods "a\"b" is forbidden: no)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ForbiddenMessage(c.resource, c.meta, "no"), c.want);
  }
}

TEST(ForbiddenMessage, PersistentVolumeClaimRejectionsUseIt) {
  api::LimitRangeItem item;
  item.type = "PersistentVolumeClaim";
  item.max.emplace("storage", *resource::Quantity::Parse("1Gi"));
  api::LimitRange limit_range;
  limit_range.metadata = Meta("storage", "");
  limit_range.limits.push_back(item);
  LimitRanger limit_ranger({limit_range}, validation::FeatureGates{});

  struct Case {
    std::string name;
    api::ObjectMeta meta;
    std::string want;
  };
  const std::string err =
      "maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 5Gi";
  const std::vector<Case> cases = {
      {"named", Meta("data", ""), R"(persistentvolumeclaims "data" is forbidden: )" + err},
      {"generated name", Meta("data-q5r2n", "data-"),
       R"(persistentvolumeclaims "data-q5r2n" is forbidden: )" + err},
      {"generateName only", Meta("", "data-"),
       R"(persistentvolumeclaims "data-" is forbidden: )" + err},
      {"nameless", Meta("", ""), R"(persistentvolumeclaims "Unknown" is forbidden: )" + err},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::PersistentVolumeClaim pvc;
    pvc.metadata = c.meta;
    pvc.requests.emplace("storage", *resource::Quantity::Parse("5Gi"));
    EXPECT_EQ(limit_ranger.ValidatePersistentVolumeClaim(pvc), std::optional<std::string>(c.want));
  }
}

}  // namespace
}  // namespace podlimits::admission
