#include "api/limit_range_defaults.h"

#include <array>
#include <string_view>
#include <vector>

#include "resource/quantity.h"

namespace podlimits::api {
namespace {

constexpr std::array<std::string_view, 5> kResourceLists = {
    "max", "min", "default", "defaultRequest", "maxLimitRequestRatio",
};

// Copies every entry of `from` that `to_key` lacks into item[to_key], creating that map only when
// there is something to copy.
void FillMissing(codec::Node& item, std::string_view from_key, std::string_view to_key) {
  const codec::Node* from = item.Find(from_key);
  if (!from || !from->IsObject()) return;
  // Copy first: Ensure may reallocate the item's members and invalidate `from`.
  std::vector<codec::Member> source = from->members;
  for (const codec::Member& m : source) {
    codec::Node* to = item.Find(to_key);
    if (to && to->IsObject() && to->Find(m.key)) continue;
    item.Ensure(to_key).Set(m.key, m.value);
  }
}

// SetDefaults_ResourceList: RoundUp(-3) on each value. Upstream keeps a value's string when the
// rounding leaves it unchanged, so only changed values are re-rendered (canonically).
void RoundUpToMilli(codec::Node& list) {
  if (!list.IsObject()) return;
  for (codec::Member& m : list.members) {
    auto q = resource::Quantity::Parse(m.value.scalar);
    if (!q) continue;  // strict decoding already rejected unparsable quantities
    if (!q->RoundUp(-3)) m.value.scalar = q->String();
  }
}

}  // namespace

void SetDefaultsLimitRange(codec::Node& limit_range) {
  codec::Node* spec = limit_range.Find("spec");
  if (!spec) return;
  codec::Node* limits = spec->Find("limits");
  if (!limits || !limits->IsArray()) return;
  for (codec::Node& item : limits->items) {
    if (!item.IsObject()) continue;
    const codec::Node* type = item.Find("type");
    if (type && type->IsString() && type->scalar == "Container") {
      FillMissing(item, "max", "default");
      FillMissing(item, "default", "defaultRequest");
      FillMissing(item, "min", "defaultRequest");
    }
    for (std::string_view key : kResourceLists) {
      if (codec::Node* list = item.Find(key)) RoundUpToMilli(*list);
    }
  }
}

}  // namespace podlimits::api
