#include "validation/limit_range.h"

#include <fmt/format.h>

#include <cstdint>
#include <set>

#include "codec/json_codec.h"
#include "validation/object_meta.h"
#include "validation/resource_names.h"

namespace podlimits::validation {
namespace {

using resource::Quantity;
using api::ResourceList;

constexpr std::string_view kTypePod = "Pod";
constexpr std::string_view kTypeContainer = "Container";
constexpr std::string_view kTypePersistentVolumeClaim = "PersistentVolumeClaim";
// The seed's pod pid range (KEP-6063): a default limit must be one a pod could carry.
constexpr std::int64_t kMinPodPidLimit = 1024;
constexpr std::int64_t kMaxPodPidLimit = 16384;

// ValidateLimitRange passes the resource.Quantity itself as the bad value, and field.ErrorBody
// renders values that are not Go strings, integers or booleans with json.Marshal; Quantity's
// MarshalJSON writes its canonical string as a JSON string: `Invalid value: "200m"`.
field::BadValue QuantityValue(const Quantity& q) {
  return field::Json{codec::EncodeJson(codec::Node::String(q.String()), 0)};
}

bool IsStandardLimitRangeType(std::string_view type) {
  return type == kTypePod || type == kTypeContainer || type == kTypePersistentVolumeClaim;
}

field::ErrorList ValidateTypeName(std::string_view type, const field::Path& path) {
  field::ErrorList errs;
  for (auto& msg : IsQualifiedName(type)) {
    errs.push_back(field::Invalid(path, std::string(type), std::move(msg)));
  }
  if (!errs.empty()) return errs;
  if (type.find('/') == std::string_view::npos && !IsStandardLimitRangeType(type)) {
    errs.push_back(field::Invalid(path, std::string(type),
                                  "must be a standard limit type or fully qualified"));
  }
  return errs;
}

// One LimitRange item with its path; knows which resource names its type accepts.
class ItemValidator {
 public:
  ItemValidator(const api::LimitRangeItem& item, field::Path path, bool pid_enabled)
      : item_(item), path_(std::move(path)), pid_enabled_(pid_enabled) {}

  field::ErrorList Validate() {
    ValidateNames(item_.max, "max");
    ValidateNames(item_.min, "min");
    if (item_.type == kTypePod) {
      ValidatePodDefaults();
    } else {
      ValidateNames(item_.default_limit, "default");
      ValidateNames(item_.default_request, "defaultRequest");
    }
    if (item_.type == kTypePersistentVolumeClaim && !item_.min.contains("storage") &&
        !item_.max.contains("storage")) {
      errs_.push_back(field::Required(
          path_.Child("limits"),
          "either minimum or maximum storage value is required, but neither was provided"));
    }
    ValidateNames(item_.max_limit_request_ratio, "maxLimitRequestRatio");
    if (IsPidItem()) ValidatePidQuantities();
    for (const std::string& name : keys_) CompareBounds(name);
    return std::move(errs_);
  }

 private:
  bool IsPidItem() const { return pid_enabled_ && item_.type == kTypePod; }

  void ValidateNames(const ResourceList& list, std::string_view field_name) {
    for (const auto& [name, q] : list) {
      ValidateName(name, path_.Child(field_name).Key(name), field_name);
      keys_.insert(name);
    }
  }

  void ValidateName(std::string_view name, const field::Path& path, std::string_view field_name) {
    if (pid_enabled_ && name == kResourcePid) {
      if (item_.type == kTypePod) {
        if (field_name == "maxLimitRequestRatio") {
          errs_.push_back(
              field::Forbidden(path, "may not be specified for pid, which has no request"));
        }
      } else if (item_.type == kTypeContainer) {
        // The message a container's resources.limits[pid] gets in pod validation.
        errs_.push_back(
            field::Invalid(path, std::string(name), "must be a standard resource for containers"));
      } else {
        errs_.push_back(field::Forbidden(path, "may only be specified when `type` is 'Pod'"));
      }
      return;
    }
    // validateLimitRangeResourceName: Pod and Container items hold container resources.
    if (item_.type == kTypePod || item_.type == kTypeContainer) {
      field::Append(errs_, ValidateContainerResourceName(name, path));
    } else {
      field::Append(errs_, ValidateResourceName(name, path));
    }
  }

  // Pod items may not carry defaults; with the pid extension, default.pid is the one exception.
  void ValidatePodDefaults() {
    bool other_defaults = false;
    for (const auto& [name, q] : item_.default_limit) {
      if (IsPidItem() && name == kResourcePid) {
        keys_.insert(name);
      } else {
        other_defaults = true;
      }
    }
    if (other_defaults) {
      errs_.push_back(
          field::Forbidden(path_.Child("default"), "may not be specified when `type` is 'Pod'"));
    }
    if (!item_.default_request.empty()) {
      errs_.push_back(field::Forbidden(path_.Child("defaultRequest"),
                                       "may not be specified when `type` is 'Pod'"));
    }
  }

  void ValidatePidQuantities() {
    auto check = [&](const ResourceList& list, std::string_view field_name, bool is_default) {
      auto it = list.find(std::string(kResourcePid));
      if (it == list.end()) return;
      const Quantity& q = it->second;
      field::Path path = path_.Child(field_name).Key(kResourcePid);
      if (q.Sign() < 0) {
        errs_.push_back(
            field::Invalid(path, QuantityValue(q), "must be greater than or equal to 0"));
      } else if (q.MilliValue() % 1000 != 0) {
        errs_.push_back(field::Invalid(path, QuantityValue(q), "must be an integer"));
      } else if (is_default && (q.Value() < kMinPodPidLimit || q.Value() > kMaxPodPidLimit)) {
        errs_.push_back(field::Invalid(
            path, QuantityValue(q),
            fmt::format("must be between {} and {}, inclusive", kMinPodPidLimit, kMaxPodPidLimit)));
      }
    };
    check(item_.max, "max", false);
    check(item_.min, "min", false);
    check(item_.default_limit, "default", true);
  }

  static const Quantity* Find(const ResourceList& list, const std::string& name) {
    auto it = list.find(name);
    return it == list.end() ? nullptr : &it->second;
  }

  // The chain min <= defaultRequest <= default <= max, the ratio bounds, and default ==
  // defaultRequest for resources that cannot be overcommitted.
  void CompareBounds(const std::string& name) {
    const Quantity* min = Find(item_.min, name);
    const Quantity* max = Find(item_.max, name);
    // A Pod item's defaults were forbidden above; only default.pid takes part in comparisons.
    bool pod = item_.type == kTypePod;
    const Quantity* def =
        pod && !(IsPidItem() && name == kResourcePid) ? nullptr : Find(item_.default_limit, name);
    const Quantity* def_req = pod ? nullptr : Find(item_.default_request, name);
    const Quantity* ratio = Find(item_.max_limit_request_ratio, name);

    auto path = [&](std::string_view field_name) { return path_.Child(field_name).Key(name); };
    if (min && max && min->Cmp(*max) > 0) {
      errs_.push_back(field::Invalid(
          path("min"), QuantityValue(*min),
          fmt::format("min value {} is greater than max value {}", min->String(), max->String())));
    }
    if (def_req && min && min->Cmp(*def_req) > 0) {
      errs_.push_back(field::Invalid(path("defaultRequest"), QuantityValue(*def_req),
                                     fmt::format("min value {} is greater than default request "
                                                 "value {}",
                                                 min->String(), def_req->String())));
    }
    if (def_req && max && def_req->Cmp(*max) > 0) {
      errs_.push_back(field::Invalid(path("defaultRequest"), QuantityValue(*def_req),
                                     fmt::format("default request value {} is greater than max "
                                                 "value {}",
                                                 def_req->String(), max->String())));
    }
    if (def_req && def && def_req->Cmp(*def) > 0) {
      errs_.push_back(field::Invalid(path("defaultRequest"), QuantityValue(*def_req),
                                     fmt::format("default request value {} is greater than "
                                                 "default limit value {}",
                                                 def_req->String(), def->String())));
    }
    if (def && min && min->Cmp(*def) > 0) {
      errs_.push_back(field::Invalid(path("default"), QuantityValue(*min),
                                     fmt::format("min value {} is greater than default value {}",
                                                 min->String(), def->String())));
    }
    if (def && max && def->Cmp(*max) > 0) {
      // Upstream reports the max quantity as the bad value here.
      errs_.push_back(field::Invalid(path("default"), QuantityValue(*max),
                                     fmt::format("default value {} is greater than max value {}",
                                                 def->String(), max->String())));
    }
    if (ratio && ratio->Cmp(Quantity::NewQuantity(1, resource::QuantityFormat::kDecimalSI)) < 0) {
      errs_.push_back(field::Invalid(path("maxLimitRequestRatio"), QuantityValue(*ratio),
                                     fmt::format("ratio {} is less than 1", ratio->String())));
    }
    if (ratio && min && max) CompareRatioWithBounds(name, *ratio, *min, *max);
    if (!IsOvercommitAllowed(name) && def && def_req && def->Cmp(*def_req) != 0) {
      errs_.push_back(field::Invalid(path("defaultRequest"), QuantityValue(*def_req),
                                     fmt::format("default value {} must equal to defaultRequest "
                                                 "value {} in {}",
                                                 def->String(), def_req->String(), name)));
    }
  }

  // Upstream compares in float64 here (unlike LimitRanger's exact ratio check), in milli units
  // when every operand is small enough and in whole units otherwise; reproduced as is, including
  // the %f rendering of max/min.
  void CompareRatioWithBounds(const std::string& name, const Quantity& ratio, const Quantity& min,
                              const Quantity& max) {
    double ratio_value = static_cast<double>(ratio.Value());
    std::int64_t min_value = min.Value();
    std::int64_t max_value = max.Value();
    if (ratio.Value() < resource::kMaxMilliValue && min_value < resource::kMaxMilliValue &&
        max_value < resource::kMaxMilliValue) {
      ratio_value = static_cast<double>(ratio.MilliValue()) / 1000;
      min_value = min.MilliValue();
      max_value = max.MilliValue();
    }
    double max_ratio = static_cast<double>(max_value) / static_cast<double>(min_value);
    if (ratio_value > max_ratio) {
      errs_.push_back(field::Invalid(
          path_.Child("maxLimitRequestRatio").Key(name), QuantityValue(ratio),
          fmt::format("ratio {} is greater than max/min = {:.6f}", ratio.String(), max_ratio)));
    }
  }

  const api::LimitRangeItem& item_;
  field::Path path_;
  bool pid_enabled_;
  std::set<std::string> keys_;
  field::ErrorList errs_;
};

}  // namespace

field::ErrorList ValidateLimitRange(const api::LimitRange& limit_range, const FeatureGates& gates) {
  field::ErrorList errs = ValidateObjectMeta(limit_range.metadata, /*namespaced=*/true,
                                             NameRule::kDNSSubdomain, field::Path("metadata"));
  bool pid_enabled = gates.per_pod_pid_limit && gates.pod_level_resources;
  std::set<std::string> seen_types;
  field::Path limits_path = field::Path("spec").Child("limits");
  for (std::size_t i = 0; i < limit_range.limits.size(); ++i) {
    const api::LimitRangeItem& item = limit_range.limits[i];
    field::Path item_path = limits_path.Index(i);
    field::Append(errs, ValidateTypeName(item.type, item_path.Child("type")));
    if (!seen_types.insert(item.type).second) {
      errs.push_back(field::Duplicate(item_path.Child("type"), item.type));
    }
    field::Append(errs, ItemValidator(item, item_path, pid_enabled).Validate());
  }
  return errs;
}

std::string LimitRangeInvalidMessage(std::string_view name, const field::ErrorList& errors) {
  return fmt::format("LimitRange {} is invalid: {}", field::GoQuote(name),
                     field::Aggregate(errors));
}

}  // namespace podlimits::validation
