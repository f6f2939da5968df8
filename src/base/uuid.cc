#include "base/uuid.h"

#include <sys/random.h>
#include <sys/types.h>

#include <array>
#include <cerrno>
#include <cstddef>

namespace podlimits {
namespace {

// Random bytes from the kernel: one getrandom(2) call, where reading /dev/urandom was an open, a
// read and a close for every UID and container ID a pod start makes. After boot the pool is ready,
// so it does not block, and a request of up to 256 bytes is never cut short.
std::array<unsigned char, 32> RandomBytes() {
  std::array<unsigned char, 32> bytes{};
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = getrandom(bytes.data() + got, bytes.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

std::string Hex(const unsigned char* data, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 0xf]);
  }
  return out;
}

}  // namespace

std::string NewUuid() {
  auto b = RandomBytes();
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string hex = Hex(b.data(), 16);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

std::string NewContainerId() {
  auto b = RandomBytes();
  return Hex(b.data(), b.size());
}

}  // namespace podlimits
