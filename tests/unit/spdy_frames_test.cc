// SPDY/3.1 framing: frames kubectl's spdystream would send (compressed by another zlib user,
// Python's, with the spec's dictionary), the frames the server writes read back, and the
// streams that are not SPDY.
#include "streaming/spdy_frames.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace podlimits::streaming::spdy {
namespace {

using namespace std::string_literals;

std::vector<Frame> ReadAll(FrameReader& reader) {
  std::vector<Frame> out;
  while (true) {
    auto next = reader.Next();
    EXPECT_TRUE(next) << next.error();
    if (!next || !*next) return out;
    out.push_back(std::move(**next));
  }
}

TEST(SpdyFrames, TheDictionaryIsTheSpecs) {
  const std::string_view d = HeaderDictionary();
  EXPECT_EQ(d.size(), 1423u);
  // zlib names a dictionary by its Adler-32: the id spdystream's streams carry.
  EXPECT_EQ(adler32(1, reinterpret_cast<const Bytef*>(d.data()), static_cast<uInt>(d.size())),
            0xe3c6a7c2u);
}

// Two SYN_STREAMs as kubectl opens a forwarded connection (error stream, then data stream),
// their header blocks one zlib stream, written by Python's zlib with the dictionary.
const std::string kTwoSynStreams =
    "\x80\x03\x00\x01\x00\x00\x00\x3d\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x78\xf9\xe3\xc6"
    "\xa7\xc2\x02\x25\x3a\x70\x3a\x2b\x29\x4a\x4d\xcc\x85\x16\x25\xac\xa9\xa0\x80\x86\x14\xcb"
    "\x45\xe0\x1c\x60\x61\x60\x61\x00\xa4\x39\x8b\x20\xd1\x98\x09\x4a\xde\x8c\x06\x00\x00\x00"
    "\x00\xff\xff\x80\x03\x00\x01\x00\x00\x00\x18\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\xc2"
    "\xaa\x19\x54\x0e\x25\x12\xd6\x0b\x00\x00\x00\xff\xff"s;

TEST(SpdyFrames, ReadsAnotherImplementationsSynStreams) {
  FrameReader reader;
  reader.Feed(kTwoSynStreams);
  auto frames = ReadAll(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].type, FrameType::kSynStream);
  EXPECT_EQ(frames[0].stream_id, 1u);
  EXPECT_EQ(HeaderValue(frames[0].headers, "streamtype"), "error");
  EXPECT_EQ(HeaderValue(frames[0].headers, "port"), "8080");
  EXPECT_EQ(HeaderValue(frames[0].headers, "requestid"), "0");
  EXPECT_EQ(frames[1].stream_id, 3u);
  EXPECT_EQ(HeaderValue(frames[1].headers, "streamtype"), "data");
}

TEST(SpdyFrames, ReadsFramesThatArriveAByteAtATime) {
  FrameReader reader;
  std::vector<Frame> frames;
  const std::string bytes = kTwoSynStreams + FrameWriter::Data(3, "hello", true) + FrameWriter::Ping(1);
  for (char c : bytes) {
    reader.Feed(std::string_view(&c, 1));
    for (Frame& f : ReadAll(reader)) frames.push_back(std::move(f));
  }
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(HeaderValue(frames[1].headers, "port"), "8080");
  EXPECT_EQ(frames[2].type, FrameType::kData);
  EXPECT_EQ(frames[2].data, "hello");
  EXPECT_TRUE(frames[2].fin());
  EXPECT_EQ(frames[3].type, FrameType::kPing);
  EXPECT_EQ(frames[3].ping_id, 1u);
}

TEST(SpdyFrames, WhatTheWriterWritesReadsBack) {
  FrameWriter writer;
  FrameReader reader;
  reader.Feed(writer.SynReply(1, {}, false));
  reader.Feed(writer.SynReply(3, {{"Port", "80"}, {"x", "a\0b"s}, {"X", "c"}}, true));
  reader.Feed(FrameWriter::Data(3, std::string(70000, 'z'), false));
  reader.Feed(FrameWriter::RstStream(3, kCancel));
  reader.Feed(FrameWriter::GoAway(3, 0));
  auto frames = ReadAll(reader);
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_EQ(frames[0].type, FrameType::kSynReply);
  EXPECT_TRUE(frames[0].headers.empty());
  EXPECT_FALSE(frames[0].fin());
  EXPECT_TRUE(frames[1].fin());
  // Names are lowercased; a repeated name goes once with its values joined by NUL, which
  // splits them again.
  EXPECT_EQ(frames[1].headers, (Headers{{"port", "80"}, {"x", "a"}, {"x", "b"}, {"x", "c"}}));
  EXPECT_EQ(frames[2].data.size(), 70000u);
  EXPECT_EQ(frames[3].type, FrameType::kRstStream);
  EXPECT_EQ(frames[3].status, kCancel);
  EXPECT_EQ(frames[4].type, FrameType::kGoAway);
  EXPECT_EQ(frames[4].stream_id, 3u);
}

TEST(SpdyFrames, IgnoresUnknownControlFramesAndReadsFlowControl) {
  FrameReader reader;
  // A control frame of type 10 (SPDY/3 has none), then WINDOW_UPDATE and SETTINGS.
  reader.Feed("\x80\x03\x00\x0a\x00\x00\x00\x02zz"s);
  reader.Feed("\x80\x03\x00\x09\x00\x00\x00\x08\x00\x00\x00\x01\x00\x01\x00\x00"s);
  reader.Feed("\x80\x03\x00\x04\x00\x00\x00\x04\x00\x00\x00\x00"s);
  auto frames = ReadAll(reader);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].type, FrameType::kWindowUpdate);
  EXPECT_EQ(frames[1].type, FrameType::kSettings);
}

TEST(SpdyFrames, RefusesWhatIsNotSpdy3) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"HTTP/1.1 in place of SPDY", "GET / HTTP/1.1\r\n\r\n", "frame of 2115668 bytes, more than"},
      {"SPDY/2", "\x80\x02\x00\x01\x00\x00\x00\x00"s, "SPDY version 2, not 3"},
      {"a frame past the limit", "\x00\x00\x00\x01\x00\xff\xff\xff"s, "frame of 16777215 bytes"},
      {"a short RST_STREAM", "\x80\x03\x00\x03\x00\x00\x00\x04\x00\x00\x00\x01"s,
       "control frame of type 3 with 4 bytes"},
      {"RST_STREAM of stream 0", "\x80\x03\x00\x03\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x05"s,
       "control frame of type 3 for stream 0"},
      {"a header block that is not zlib",
       "\x80\x03\x00\x02\x00\x00\x00\x08\x00\x00\x00\x01garb"s, "header block: zlib"},
  };
  for (const Case& c : cases) {
    FrameReader reader;
    reader.Feed(c.bytes);
    auto next = reader.Next();
    ASSERT_FALSE(next) << c.name;
    EXPECT_NE(next.error().Message().find(c.error), std::string::npos)
        << c.name << ": " << next.error();
  }
}

TEST(SpdyFrames, RefusesHeaderBlocksThatBreakTheRules) {
  auto block = [](std::string raw) {
    // Compressed by a compressor of our own with the dictionary, as a client would.
    z_stream z{};
    deflateInit(&z, Z_DEFAULT_COMPRESSION);
    const std::string_view d = HeaderDictionary();
    deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(d.data()), static_cast<uInt>(d.size()));
    std::string out(raw.size() + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(raw.data());
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_SYNC_FLUSH);
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
    std::string frame = "\x80\x03\x00\x02"s;
    const std::size_t len = 4 + out.size();
    frame += static_cast<char>(0);
    frame += static_cast<char>(len >> 16);
    frame += static_cast<char>(len >> 8);
    frame += static_cast<char>(len);
    return frame + "\x00\x00\x00\x01"s + out;
  };
  struct Case {
    const char* name;
    std::string raw;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"an upper-case name", "\x00\x00\x00\x01\x00\x00\x00\x04Port\x00\x00\x00\x01" "8"s,
       "header name \"Port\" is not lowercase"},
      {"a name twice",
       "\x00\x00\x00\x02\x00\x00\x00\x01p\x00\x00\x00\x01" "8\x00\x00\x00\x01p\x00\x00\x00\x01" "9"s,
       "header \"p\" appears twice"},
      {"a count past the block", "\x00\x00\x10\x00\x00\x00\x00\x01p"s, "claims 4096 pairs"},
      {"a value past the block", "\x00\x00\x00\x01\x00\x00\x00\x01p\x00\x00\x01\x00" "8"s,
       "ends in a value"},
      {"an empty name", "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01" "8"s, "empty header name"},
  };
  for (const Case& c : cases) {
    FrameReader reader;
    reader.Feed(block(c.raw));
    auto next = reader.Next();
    ASSERT_FALSE(next) << c.name;
    EXPECT_NE(next.error().Message().find(c.error), std::string::npos)
        << c.name << ": " << next.error();
  }
}

}  // namespace
}  // namespace podlimits::streaming::spdy
