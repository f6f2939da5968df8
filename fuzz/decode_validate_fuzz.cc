// libFuzzer target: arbitrary bytes through decode → defaulting → validation → encode, the path
// every manifest takes. Also checks that what podlimits writes, it can read back identically.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/decode.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/pod_strategy.h"
#include "codec/json_codec.h"
#include "codec/yaml_codec.h"
#include "validation/drop_disabled.h"
#include "validation/pod.h"

using namespace podlimits;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto& result : api::DecodeManifests("fuzz", text)) {
    auto* obj = std::get_if<api::DecodedObject>(&result);
    if (!obj || obj->kind != "Pod") continue;
    // Round trip: encoding then decoding a decoded object gives the same tree.
    std::string json = codec::EncodeJson(obj->tree, 0);
    auto again = api::DecodeManifests("again", json);
    if (again.size() != 1 || !std::holds_alternative<api::DecodedObject>(again[0]) ||
        !(std::get<api::DecodedObject>(again[0]).tree == obj->tree)) {
      std::abort();
    }
    auto yaml_again = api::DecodeManifests("again", codec::EncodeYaml(obj->tree));
    if (yaml_again.size() != 1 || !std::holds_alternative<api::DecodedObject>(yaml_again[0]) ||
        !(std::get<api::DecodedObject>(yaml_again[0]).tree == obj->tree)) {
      std::abort();
    }
    validation::FeatureGates gates;
    validation::DropDisabledPodFields(obj->tree, gates);
    api::SetDefaultNamespace(obj->tree);
    api::SetDefaultsPod(obj->tree);
    api::Pod pod = api::PrepareForCreate(obj->tree, {}).pod;
    auto r = validation::ValidatePodCreate(pod, gates);
    if (!r.errors.empty()) (void)validation::InvalidMessage("Pod", pod.metadata, r.errors);
  }
  return 0;
}
