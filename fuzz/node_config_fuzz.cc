// libFuzzer target: arbitrary bytes as a node config file (KubeletConfiguration and
// NodeConfiguration documents): parsing, defaulting and validation must answer with a value or
// an error, never crash.
#include <cstdint>
#include <string_view>

#include "kubelet/config/node_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = podlimits::kubelet::ParseNodeConfig(text, "fuzz.yaml");
  if (!config) (void)config.error().Message();
  return 0;
}
