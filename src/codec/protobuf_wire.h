// Protocol Buffers' wire format, field by field: a reader that walks a message's fields and a
// writer that appends them. No schema: callers that know their message's field numbers (the
// NRI plugin's messages, src/nri/nri_messages.h) declare them where they read and write.
// The reader never reads past its input: a truncated varint or a length beyond the end is a
// nullopt, never a crash (fuzz/nri_message_fuzz.cc).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace podlimits::codec::protobuf {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }

  std::optional<std::uint64_t> Varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return std::nullopt;
      const auto byte = static_cast<unsigned char>(data_[pos_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return std::nullopt;
  }
  std::optional<std::string_view> Bytes() {
    auto n = Varint();
    if (!n || *n > data_.size() - pos_) return std::nullopt;
    std::string_view out = data_.substr(pos_, static_cast<std::size_t>(*n));
    pos_ += static_cast<std::size_t>(*n);
    return out;
  }
  std::optional<std::uint64_t> Fixed(std::size_t width) {
    if (data_.size() - pos_ < width) return std::nullopt;
    std::uint64_t v = 0;
    std::memcpy(&v, data_.data() + pos_, width);  // little endian, as the machines are
    pos_ += width;
    return v;
  }
  bool Skip(std::uint32_t wire) {
    switch (wire) {
      case kVarint: return Varint().has_value();
      case kFixed64: return Fixed(8).has_value();
      case kBytes: return Bytes().has_value();
      case kFixed32: return Fixed(4).has_value();
      default: return false;
    }
  }

  // The next field's number and wire type; nullopt at a malformed tag.
  struct Tag {
    std::uint32_t field;
    std::uint32_t wire;
  };
  std::optional<Tag> NextTag() {
    auto tag = Varint();
    if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > 0x1fffffff) return std::nullopt;
    return Tag{static_cast<std::uint32_t>(*tag >> 3), static_cast<std::uint32_t>(*tag & 7)};
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

// Appends fields to `out`. Proto3: a zero or empty scalar is left out, as Go's encoder does.
class WireWriter {
 public:
  void Varint(std::uint64_t v) {
    do {
      unsigned char b = v & 0x7f;
      v >>= 7;
      if (v) b |= 0x80;
      out_.push_back(static_cast<char>(b));
    } while (v);
  }
  void Tag(std::uint32_t field, WireType wire) { Varint(std::uint64_t{field} << 3 | wire); }
  void Uint(std::uint32_t field, std::uint64_t v) {
    if (v == 0) return;
    Tag(field, kVarint);
    Varint(v);
  }
  // int32/int64 are varints of their two's complement (ten bytes when negative).
  void Int(std::uint32_t field, std::int64_t v) { Uint(field, static_cast<std::uint64_t>(v)); }
  void Bool(std::uint32_t field, bool v) { Uint(field, v ? 1 : 0); }
  void String(std::uint32_t field, std::string_view v) {
    if (v.empty()) return;
    Message(field, v);
  }
  // A length-delimited field written even when empty (an embedded message that is present).
  void Message(std::uint32_t field, std::string_view bytes) {
    Tag(field, kBytes);
    Varint(bytes.size());
    out_.append(bytes);
  }
  // A double's bits (or any fixed64), little endian, written whatever the value.
  void Fixed64(std::uint32_t field, std::uint64_t bits) {
    Tag(field, kFixed64);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
  }
  // A map<string, string> entry.
  void MapEntry(std::uint32_t field, std::string_view key, std::string_view value) {
    WireWriter entry;
    entry.String(1, key);
    entry.String(2, value);
    Message(field, entry.out_);
  }
  const std::string& bytes() const& { return out_; }
  std::string bytes() && { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace podlimits::codec::protobuf
