#include "streaming/spdy_frames.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

namespace podlimits::streaming::spdy {

namespace {

void PutU32(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v >> 24));
  out.push_back(static_cast<char>(v >> 16));
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}

std::uint32_t GetU32(std::string_view in, std::size_t at) {
  auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i])); };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

// The common 8 bytes of a control frame: the control bit, version 3, the type; flags and length.
std::string ControlHeader(FrameType type, std::uint8_t flags, std::size_t length) {
  std::string out;
  PutU32(out, 0x80000000u | (3u << 16) | static_cast<std::uint32_t>(type));
  PutU32(out, (static_cast<std::uint32_t>(flags) << 24) | static_cast<std::uint32_t>(length));
  return out;
}

std::string BuildDictionary() {
  // The spec's dictionary (section 2.6.10.1): header names and common values, each with a
  // 32-bit length, then status lines, dates and content types run together.
  static constexpr std::array<std::string_view, 65> kWords = {
      "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset",
      "accept-encoding", "accept-language", "accept-ranges", "age", "allow", "authorization",
      "cache-control", "connection", "content-base", "content-encoding", "content-language",
      "content-length", "content-location", "content-md5", "content-range", "content-type",
      "date", "etag", "expect", "expires", "from", "host", "if-match", "if-modified-since",
      "if-none-match", "if-range", "if-unmodified-since", "last-modified", "location",
      "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
      "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent",
      "vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK",
      "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin"};
  std::string out;
  for (std::string_view w : kWords) {
    PutU32(out, static_cast<std::uint32_t>(w.size()));
    out += w;
  }
  out +=
      "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
      "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request"
      "401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented"
      "503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 "
      "Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,"
      "application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age="
      "gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";
  return out;
}

// The uncompressed block: the number of pairs, then each name and value with its length.
Result<Headers> ParseHeaderBlock(std::string_view raw) {
  if (raw.size() < 4) return Failure("header block shorter than its count");
  const std::uint32_t count = GetU32(raw, 0);
  if (count > raw.size() / 8) {
    return Failure(fmt::format("header block claims {} pairs in {} bytes", count, raw.size()));
  }
  std::size_t at = 4;
  auto string_at = [&](std::string_view what) -> Result<std::string_view> {
    if (raw.size() - at < 4) return Failure(fmt::format("header block ends in a {} length", what));
    const std::uint32_t n = GetU32(raw, at);
    at += 4;
    if (raw.size() - at < n) return Failure(fmt::format("header block ends in a {}", what));
    std::string_view s = raw.substr(at, n);
    at += n;
    return s;
  };
  Headers out;
  for (std::uint32_t i = 0; i < count; ++i) {
    auto name = string_at("name");
    if (!name) return std::unexpected(name.error());
    auto value = string_at("value");
    if (!value) return std::unexpected(value.error());
    if (name->empty()) return Failure("empty header name");
    if (std::any_of(name->begin(), name->end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); })) {
      return Failure(fmt::format("header name {:?} is not lowercase", *name));
    }
    if (std::any_of(out.begin(), out.end(), [&](const auto& h) { return h.first == *name; })) {
      return Failure(fmt::format("header {:?} appears twice", *name));
    }
    std::string_view rest = *value;
    while (true) {  // several values are joined by NUL
      const std::size_t nul = rest.find('\0');
      out.emplace_back(std::string(*name), std::string(rest.substr(0, nul)));
      if (nul == std::string_view::npos) break;
      rest.remove_prefix(nul + 1);
    }
  }
  if (at != raw.size())
    return Failure(fmt::format("{} bytes after the header block", raw.size() - at));
  return out;
}

}  // namespace

std::string_view HeaderValue(const Headers& headers, std::string_view name) {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return {};
}

std::string_view HeaderDictionary() {
  static const std::string kDictionary = BuildDictionary();
  return kDictionary;
}

struct HeaderCompressor::State {
  z_stream z{};
  bool ok = false;
  ~State() {
    if (ok) deflateEnd(&z);
  }
};

HeaderCompressor::HeaderCompressor() : state_(std::make_unique<State>()) {
  const std::string_view dict = HeaderDictionary();
  state_->ok = deflateInit(&state_->z, Z_DEFAULT_COMPRESSION) == Z_OK;
  if (state_->ok) {
    deflateSetDictionary(&state_->z, reinterpret_cast<const Bytef*>(dict.data()),
                         static_cast<uInt>(dict.size()));
  }
}

HeaderCompressor::~HeaderCompressor() = default;

std::string HeaderCompressor::Compress(const Headers& headers) {
  // A name once, its values joined by NUL, in the order names first appear.
  Headers joined;
  for (const auto& [name, value] : headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto it = std::find_if(joined.begin(), joined.end(), [&](const auto& h) { return h.first == lower; });
    if (it == joined.end()) {
      joined.emplace_back(std::move(lower), value);
    } else {
      it->second += '\0';
      it->second += value;
    }
  }
  std::string raw;
  PutU32(raw, static_cast<std::uint32_t>(joined.size()));
  for (const auto& [name, value] : joined) {
    PutU32(raw, static_cast<std::uint32_t>(name.size()));
    raw += name;
    PutU32(raw, static_cast<std::uint32_t>(value.size()));
    raw += value;
  }
  std::string out;
  if (!state_->ok) return out;  // deflateInit can only fail for want of memory
  z_stream& z = state_->z;
  z.next_in = reinterpret_cast<Bytef*>(raw.data());
  z.avail_in = static_cast<uInt>(raw.size());
  std::array<char, 4096> chunk;
  do {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = chunk.size();
    deflate(&z, Z_SYNC_FLUSH);
    out.append(chunk.data(), chunk.size() - z.avail_out);
  } while (z.avail_out == 0);
  return out;
}

struct HeaderDecompressor::State {
  z_stream z{};
  bool ok = false;
  ~State() {
    if (ok) inflateEnd(&z);
  }
};

HeaderDecompressor::HeaderDecompressor() : state_(std::make_unique<State>()) {
  state_->ok = inflateInit(&state_->z) == Z_OK;
}

HeaderDecompressor::~HeaderDecompressor() = default;

Result<Headers> HeaderDecompressor::Decompress(std::string_view block) {
  if (!state_->ok) return Failure("zlib: cannot start inflating");
  z_stream& z = state_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
  z.avail_in = static_cast<uInt>(block.size());
  std::string raw;
  std::array<char, 4096> chunk;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = chunk.size();
    int rc = inflate(&z, Z_SYNC_FLUSH);
    if (rc == Z_NEED_DICT) {
      const std::string_view dict = HeaderDictionary();
      if (inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()),
                               static_cast<uInt>(dict.size())) != Z_OK) {
        state_->ok = false;
        inflateEnd(&z);
        return Failure("header block compressed with another dictionary");
      }
      continue;
    }
    raw.append(chunk.data(), chunk.size() - z.avail_out);
    if (raw.size() > kMaxHeaderBlock) {
      return Failure(fmt::format("header block inflates past {} bytes", kMaxHeaderBlock));
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // all of it read, nothing more to give
    if (rc == Z_STREAM_END) {
      return Failure("header compression stream ended");
    }
    if (rc != Z_OK) {
      return Failure(fmt::format("header block: zlib: {}", z.msg != nullptr ? z.msg : "error"));
    }
    if (z.avail_in == 0 && z.avail_out != 0) break;
  }
  return ParseHeaderBlock(raw);
}

Result<std::optional<Frame>> FrameReader::Next() {
  while (true) {
    std::string_view in = std::string_view(buffer_).substr(offset_);
    if (in.size() < 8) break;
    const std::uint32_t first = GetU32(in, 0);
    const std::uint32_t second = GetU32(in, 4);
    const auto flags = static_cast<std::uint8_t>(second >> 24);
    const std::size_t length = second & 0xffffff;
    if (length > kMaxPayload) {
      return Failure(fmt::format("frame of {} bytes, more than {}", length, kMaxPayload));
    }
    if (in.size() < 8 + length) break;
    const std::string_view payload = in.substr(8, length);
    offset_ += 8 + length;

    Frame f;
    f.flags = flags;
    if ((first & 0x80000000u) == 0) {
      f.type = FrameType::kData;
      f.stream_id = first & 0x7fffffff;
      if (f.stream_id == 0) return Failure("data frame for stream 0");
      f.data = std::string(payload);
      return f;
    }
    const std::uint32_t version = (first >> 16) & 0x7fff;
    if (version != 3) return Failure(fmt::format("SPDY version {}, not 3", version));
    const auto type = static_cast<std::uint16_t>(first & 0xffff);
    auto need = [&](std::size_t n) -> std::optional<std::string> {
      if (length < n) return fmt::format("control frame of type {} with {} bytes", type, length);
      return std::nullopt;
    };
    auto header_block = [&](std::size_t from) -> std::optional<std::string> {
      auto headers = headers_.Decompress(payload.substr(from));
      if (!headers) return headers.error().Message();
      f.headers = std::move(*headers);
      return std::nullopt;
    };
    std::optional<std::string> bad;
    switch (type) {
      case 1:  // SYN_STREAM: stream id, associated stream id, priority and slot, header block
        f.type = FrameType::kSynStream;
        if (!(bad = need(10))) {
          f.stream_id = GetU32(payload, 0) & 0x7fffffff;
          bad = header_block(10);
        }
        break;
      case 2:  // SYN_REPLY, HEADERS: stream id, header block
      case 8:
        f.type = type == 2 ? FrameType::kSynReply : FrameType::kHeaders;
        if (!(bad = need(4))) {
          f.stream_id = GetU32(payload, 0) & 0x7fffffff;
          bad = header_block(4);
        }
        break;
      case 3:  // RST_STREAM: stream id, status
        f.type = FrameType::kRstStream;
        if (!(bad = need(8))) {
          f.stream_id = GetU32(payload, 0) & 0x7fffffff;
          f.status = GetU32(payload, 4);
        }
        break;
      case 4:  // SETTINGS: read and ignored
        f.type = FrameType::kSettings;
        break;
      case 6:  // PING: id
        f.type = FrameType::kPing;
        if (!(bad = need(4))) f.ping_id = GetU32(payload, 0);
        break;
      case 7:  // GOAWAY: last good stream id, status
        f.type = FrameType::kGoAway;
        if (!(bad = need(8))) {
          f.stream_id = GetU32(payload, 0) & 0x7fffffff;
          f.status = GetU32(payload, 4);
        }
        break;
      case 9:  // WINDOW_UPDATE: read and ignored
        f.type = FrameType::kWindowUpdate;
        if (!(bad = need(8))) f.stream_id = GetU32(payload, 0) & 0x7fffffff;
        break;
      default:  // the spec: a control frame of an unknown type is ignored
        continue;
    }
    if (bad) return Failure(std::move(*bad));
    if (f.stream_id == 0 && f.type != FrameType::kSettings && f.type != FrameType::kPing &&
        f.type != FrameType::kGoAway) {
      return Failure(fmt::format("control frame of type {} for stream 0", type));
    }
    return f;
  }
  // Keep the unread tail only.
  if (offset_ > 0 && offset_ * 2 >= buffer_.size()) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return std::optional<Frame>();
}

std::string FrameWriter::SynStream(std::uint32_t stream_id, const Headers& headers, bool fin) {
  const std::string block = headers_.Compress(headers);
  std::string out = ControlHeader(FrameType::kSynStream, fin ? kFlagFin : 0, 10 + block.size());
  PutU32(out, stream_id & 0x7fffffff);
  PutU32(out, 0);  // associated stream
  out.push_back(0);  // priority
  out.push_back(0);  // slot
  return out + block;
}

std::string FrameWriter::SynReply(std::uint32_t stream_id, const Headers& headers, bool fin) {
  const std::string block = headers_.Compress(headers);
  std::string out = ControlHeader(FrameType::kSynReply, fin ? kFlagFin : 0, 4 + block.size());
  PutU32(out, stream_id & 0x7fffffff);
  return out + block;
}

std::string FrameWriter::Data(std::uint32_t stream_id, std::string_view data, bool fin) {
  std::string out;
  PutU32(out, stream_id & 0x7fffffff);
  PutU32(out, (static_cast<std::uint32_t>(fin ? kFlagFin : 0) << 24) |
                  static_cast<std::uint32_t>(data.size()));
  out += data;
  return out;
}

std::string FrameWriter::RstStream(std::uint32_t stream_id, std::uint32_t status) {
  std::string out = ControlHeader(FrameType::kRstStream, 0, 8);
  PutU32(out, stream_id & 0x7fffffff);
  PutU32(out, status);
  return out;
}

std::string FrameWriter::Ping(std::uint32_t id) {
  std::string out = ControlHeader(FrameType::kPing, 0, 4);
  PutU32(out, id);
  return out;
}

std::string FrameWriter::GoAway(std::uint32_t last_good_stream_id, std::uint32_t status) {
  std::string out = ControlHeader(FrameType::kGoAway, 0, 8);
  PutU32(out, last_good_stream_id & 0x7fffffff);
  PutU32(out, status);
  return out;
}

}  // namespace podlimits::streaming::spdy
