#include "validation/time_zone.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace podlimits::validation {
namespace {

Error Unknown(std::string_view name) {
  return Error{.detail = "unknown time zone " + std::string(name)};
}

std::int64_t BigEndian(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  if (bytes == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

struct Counts {
  std::int64_t isut, isstd, leap, time, type, chars;
};

// The header at `p` (44 bytes, checked by the caller).
Counts ReadCounts(const unsigned char* p) {
  return {BigEndian(p + 20, 4), BigEndian(p + 24, 4), BigEndian(p + 28, 4),
          BigEndian(p + 32, 4), BigEndian(p + 36, 4), BigEndian(p + 40, 4)};
}

// The size of a data block whose transition times take `time_size` bytes.
std::int64_t BlockSize(const Counts& c, int time_size) {
  return c.time * time_size + c.time + c.type * 6 + c.chars + c.leap * (time_size + 4) + c.isstd +
         c.isut;
}

}  // namespace

TimeZone::Offset TimeZone::Lookup(std::int64_t unix_seconds) const {
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), unix_seconds);
  Offset out;
  if (it == transitions_.begin()) {
    out.seconds = initial_;
    if (!transitions_.empty()) out.end = transitions_.front();
    return out;
  }
  const std::size_t i = static_cast<std::size_t>(it - transitions_.begin()) - 1;
  out.seconds = offsets_[i];
  out.start = transitions_[i];
  if (i + 1 < transitions_.size()) out.end = transitions_[i + 1];
  return out;
}

Result<TimeZone> LoadTimeZone(std::string_view name, const std::filesystem::path& zoneinfo) {
  TimeZone zone;
  if (name.empty() || name == "UTC") return zone;
  if (name.find("..") != std::string_view::npos || name.starts_with('/') ||
      name.starts_with('\\')) {
    return std::unexpected(Error{.detail = "time: invalid location name"});
  }
  std::ifstream in(zoneinfo / std::string(name), std::ios::binary);
  if (!in) return std::unexpected(Unknown(name));
  const std::vector<unsigned char> data((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  if (data.size() < 44 || std::string_view(reinterpret_cast<const char*>(data.data()), 4) != "TZif") {
    return std::unexpected(Unknown(name));
  }
  const unsigned char* p = data.data();
  Counts c = ReadCounts(p);
  int time_size = 4;
  std::size_t at = 44;
  if (p[4] >= '2') {
    // Version 2+: skip the 32-bit block for the 64-bit one after it.
    at += static_cast<std::size_t>(BlockSize(c, 4));
    if (data.size() < at + 44) return std::unexpected(Unknown(name));
    c = ReadCounts(p + at);
    at += 44;
    time_size = 8;
  }
  if (c.type < 1 || data.size() < at + static_cast<std::size_t>(BlockSize(c, time_size))) {
    return std::unexpected(Unknown(name));
  }
  const unsigned char* times = p + at;
  const unsigned char* indices = times + c.time * time_size;
  const unsigned char* types = indices + c.time;
  auto offset_of = [&](std::int64_t type) {
    return static_cast<std::int32_t>(BigEndian(types + type * 6, 4));
  };
  for (std::int64_t i = 0; i < c.time; ++i) {
    const std::int64_t type = indices[i];
    if (type >= c.type) return std::unexpected(Unknown(name));
    zone.transitions_.push_back(BigEndian(times + i * time_size, time_size));
    zone.offsets_.push_back(offset_of(type));
  }
  // RFC 8536: local time type 0 applies before the first transition.
  zone.initial_ = offset_of(0);
  zone.name_ = std::string(name);
  return zone;
}

}  // namespace podlimits::validation
