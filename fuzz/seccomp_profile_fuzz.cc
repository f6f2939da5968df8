// libFuzzer target for seccomp profiles (Localhost profiles are files a node admin writes, the
// RuntimeDefault one comes from a package): any input converts or is refused with an error, and
// a converted filter serialises into a spec, for every capability and architecture case.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cri/seccomp_profile.h"
#include "cri/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using podlimits::cri::SeccompTarget;
  const SeccompTarget targets[] = {
      {"amd64", "SCMP_ARCH_X86_64", {}, "6.1.0"},
      {"arm64", "SCMP_ARCH_AARCH64", {"CAP_SYS_ADMIN", "CAP_SYS_CHROOT"}, "4.8"},
  };
  for (const SeccompTarget& target : targets) {
    auto converted = podlimits::cri::ConvertSeccompProfile(text, "fuzz.json", target);
    if (!converted) {
      if (converted.error().Message().empty()) std::abort();  // every refusal says why
      continue;
    }
    podlimits::cri::Spec spec;
    spec.linux.seccomp = std::move(*converted);
    if (podlimits::cri::SerializeSpec(spec).empty()) std::abort();
  }
  return 0;
}
