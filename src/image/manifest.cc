#include "image/manifest.h"

#include "base/error.h"
#include "fmt/format.h"

namespace podlimits::image {

std::string_view ImageFormatName(ImageFormat format) {
  switch (format) {
    case ImageFormat::kOciLayout:
      return "oci-layout";
    case ImageFormat::kDockerArchive:
      return "docker-archive";
  }
  return "unknown";
}

Result<ResolvedImage> ResolveImage(ImageSource& source, const ImageName& name) {
  if (source.Contains("oci-layout") && source.Contains("index.json")) {
    return ResolveOciLayout(source, name);
  }
  if (source.Contains("manifest.json")) return ResolveDockerArchive(source, name);
  return Failure(fmt::format(
      "load image \"{}\": not an OCI image layout (no oci-layout and index.json) nor a docker "
      "archive (no manifest.json)",
      source.path().string()));
}

std::string_view HostArchitecture() {
#if defined(__x86_64__)
  return "amd64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__arm__)
  return "arm";
#elif defined(__i386__)
  return "386";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return "ppc64le";
#elif defined(__s390x__)
  return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

}  // namespace podlimits::image
