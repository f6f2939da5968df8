#include "cri/container_output.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace podlimits::cri {
namespace {

// Feeds `chunks` through a prefixer writing into a file and returns what came out (a file, not
// a pipe: a pipe would block once its 64 KiB buffer is full).
std::string Through(const std::vector<std::string>& chunks, bool finish) {
  FILE* f = std::tmpfile();
  EXPECT_NE(f, nullptr);
  {
    OutputPrefixer prefixer("[web] ", fileno(f));
    for (const auto& c : chunks) prefixer.Feed(c);
    if (finish) prefixer.Finish();
  }
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

TEST(OutputPrefixer, Table) {
  struct Case {
    const char* name;
    std::vector<std::string> chunks;
    bool finish;
    std::string want;
  };
  const Case cases[] = {
      {"one line", {"hello\n"}, false, "[web] hello\n"},
      {"two lines in one chunk", {"a\nb\n"}, false, "[web] a\n[web] b\n"},
      {"a line split over chunks", {"hel", "lo\nwor", "ld\n"}, false, "[web] hello\n[web] world\n"},
      {"partial line held until finish", {"no newline"}, false, ""},
      {"partial line completed at finish", {"no newline"}, true, "[web] no newline\n"},
      {"empty lines keep their prefix", {"\n\n"}, false, "[web] \n[web] \n"},
      {"finish with nothing pending writes nothing", {"x\n"}, true, "[web] x\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Through(c.chunks, c.finish), c.want);
  }
}

TEST(OutputPrefixer, OverlongLineIsWrittenInPieces) {
  std::string big(OutputPrefixer::kMaxLine + 10, 'x');
  std::string out = Through({big}, true);
  std::string want = "[web] " + std::string(OutputPrefixer::kMaxLine, 'x') + "\n[web] xxxxxxxxxx\n";
  EXPECT_EQ(out, want);
}

TEST(OutputPrefixer, PumpOnceReadsUntilEndOfStream) {
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  ASSERT_EQ(write(in[1], "a\nb", 3), 3);
  close(in[1]);
  OutputPrefixer prefixer("[c] ", out[1]);
  EXPECT_FALSE(PumpOnce(in[0], prefixer));  // end of stream
  prefixer.Finish();
  close(out[1]);
  char buf[64];
  ssize_t n = read(out[0], buf, sizeof(buf));
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), "[c] a\n[c] b\n");
  close(in[0]);
  close(out[0]);
}

}  // namespace
}  // namespace podlimits::cri
