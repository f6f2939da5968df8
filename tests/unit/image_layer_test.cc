// Applying layers onto a rootfs: content, whiteouts, opaque directories, and untrusted
// entries that try to write outside the rootfs.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "image/layer.h"
#include "image_test_support.h"

namespace podlimits::image {
namespace {

using image_testing::MakeTar;
using image_testing::ReadFile;
using image_testing::StringReader;
using image_testing::TarEntry;
using image_testing::TempDir;
namespace fs = std::filesystem;

Result<LayerStats> Apply(const fs::path& rootfs, const std::vector<TarEntry>& entries,
                         std::string_view filter = "") {
  StringReader reader(MakeTar(entries, filter));
  return ApplyLayer(reader, rootfs, "test-layer");
}

class ImageLayerTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directory(rootfs_); }
  bool Exists(std::string_view rel) const {
    std::error_code ec;
    return fs::exists(fs::symlink_status(rootfs_ / rel, ec));
  }

  TempDir tmp_;
  fs::path rootfs_ = tmp_ / "rootfs";
};

TEST_F(ImageLayerTest, WritesFilesDirsLinksModesAndTimes) {
  auto stats =
      Apply(rootfs_,
            {TarEntry::Dir("./bin", 0755), TarEntry::File("./bin/tool", "#!x\n", 04755),
             TarEntry::Symlink("bin/sh", "/bin/tool"), TarEntry::Hardlink("bin/tool2", "bin/tool"),
             TarEntry::Dir("tmp", 01777), TarEntry::File("deep/er/file", "implicit parents")},
            "gzip");
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_EQ(stats->entries, 6u);
  EXPECT_EQ(stats->bytes, 4u + 16u);
  EXPECT_EQ(ReadFile(rootfs_ / "bin/tool"), "#!x\n");
  EXPECT_EQ(fs::read_symlink(rootfs_ / "bin/sh"), "/bin/tool");
  struct stat a {
  }, b{};
  ASSERT_EQ(stat((rootfs_ / "bin/tool").c_str(), &a), 0);
  ASSERT_EQ(stat((rootfs_ / "bin/tool2").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino) << "hardlink";
  EXPECT_EQ(a.st_mtime, 1000000000);
  if (geteuid() == 0) {
    EXPECT_EQ(a.st_mode & 07777, 04755u);
  }
  struct stat t {};
  ASSERT_EQ(stat((rootfs_ / "tmp").c_str(), &t), 0);
  EXPECT_EQ(t.st_mode & 07777, 01777u);
  EXPECT_EQ(ReadFile(rootfs_ / "deep/er/file"), "implicit parents");
}

TEST_F(ImageLayerTest, WhiteoutsAndOpaqueDirsHideLowerLayersOnly) {
  ASSERT_TRUE(Apply(rootfs_, {TarEntry::File("etc/keep", "k"), TarEntry::File("etc/gone", "g"),
                              TarEntry::Dir("etc/gonedir"), TarEntry::File("etc/gonedir/x", "x"),
                              TarEntry::File("opq/lower1", "1"), TarEntry::Dir("opq/sub"),
                              TarEntry::File("opq/sub/lower2", "2"),
                              TarEntry::File("later/old", "o"), TarEntry::File("root-old", "r")}));
  auto stats =
      Apply(rootfs_,
            {// whiteouts of a file and a whole directory
             TarEntry::File("etc/.wh.gone", ""), TarEntry::File("etc/.wh.gonedir", ""),
             // a whiteout of something that never existed is harmless
             TarEntry::File("etc/.wh.never", ""), TarEntry::File("nodir/.wh.x", ""),
             // this layer's own entries survive the opaque marker, before and after it
             TarEntry::File("opq/new-before", "b"), TarEntry::File("opq/sub/new", "n"),
             TarEntry::File("opq/.wh..wh..opq", ""), TarEntry::File("opq/new-after", "a"),
             // a file written, then whited out in the same layer, stays (whiteouts hide lower only)
             TarEntry::File("same/file", "s"), TarEntry::File("same/.wh.file", ""),
             // a directory recreated in this layer after its whiteout loses its lower content
             TarEntry::File("later/new", "n"), TarEntry::File(".wh.later", ""),
             // aufs bookkeeping is ignored
             TarEntry::File(".wh..wh.plnk", "")});
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_TRUE(Exists("etc/keep"));
  EXPECT_FALSE(Exists("etc/gone"));
  EXPECT_FALSE(Exists("etc/gonedir"));
  EXPECT_FALSE(Exists("etc/.wh.gone")) << "whiteout markers are never written";
  EXPECT_FALSE(Exists("nodir"));
  EXPECT_FALSE(Exists("opq/lower1"));
  EXPECT_FALSE(Exists("opq/sub/lower2"));
  EXPECT_FALSE(Exists("opq/.wh..wh..opq"));
  EXPECT_TRUE(Exists("opq/new-before"));
  EXPECT_TRUE(Exists("opq/new-after"));
  EXPECT_TRUE(Exists("opq/sub/new"));
  EXPECT_TRUE(Exists("same/file"));
  EXPECT_TRUE(Exists("later/new"));
  EXPECT_FALSE(Exists("later/old"));
  EXPECT_TRUE(Exists("root-old"));
  EXPECT_FALSE(Exists(".wh..wh.plnk"));
}

TEST_F(ImageLayerTest, RootOpaqueMarkerClearsEverythingBelow) {
  ASSERT_TRUE(Apply(rootfs_, {TarEntry::File("a", "1"), TarEntry::File("d/b", "2")}));
  ASSERT_TRUE(Apply(rootfs_, {TarEntry::File(".wh..wh..opq", ""), TarEntry::File("c", "3")}));
  EXPECT_EQ(image_testing::DirNames(rootfs_), std::vector<std::string>{"c"});
}

TEST_F(ImageLayerTest, UpperLayerReplacesAcrossTypes) {
  ASSERT_TRUE(Apply(rootfs_, {TarEntry::File("d/x", "1"), TarEntry::File("f", "file"),
                              TarEntry::Symlink("l", "/nowhere")}));
  ASSERT_TRUE(Apply(rootfs_, {TarEntry::File("d", "now a file"), TarEntry::Dir("f"),
                              TarEntry::File("l", "now a file")}));
  EXPECT_EQ(ReadFile(rootfs_ / "d"), "now a file");
  EXPECT_TRUE(fs::is_directory(rootfs_ / "f"));
  EXPECT_FALSE(fs::is_symlink(rootfs_ / "l"));
  EXPECT_EQ(ReadFile(rootfs_ / "l"), "now a file");
}

// Every hostile layer is rejected and nothing is written outside the rootfs.
TEST_F(ImageLayerTest, RejectsEntriesThatEscapeTheRootfs) {
  struct Case {
    const char* name;
    std::vector<TarEntry> lower;  // applied first (must succeed)
    std::vector<TarEntry> layer;
    const char* want;  // substring of the error
  };
  const fs::path outside = tmp_ / "outside";
  const std::string out = outside.string();
  const Case cases[] = {
      {"dot-dot name", {}, {TarEntry::File("../outside/x", "pwned")}, "path contains \"..\""},
      {"dot-dot in the middle", {}, {TarEntry::File("a/../../outside/x", "pwned")}, "\"..\""},
      {"absolute name", {}, {TarEntry::File(out + "/x", "pwned")}, "absolute path"},
      {"write through a symlink of the same layer",
       {},
       {TarEntry::Symlink("link", out), TarEntry::File("link/x", "pwned")},
       "symlink"},
      {"write through a symlink of a lower layer",
       {TarEntry::Symlink("etc", out)},
       {TarEntry::File("etc/x", "pwned")},
       "symlink"},
      {"write through a relative symlink",
       {TarEntry::Symlink("up", "../outside")},
       {TarEntry::File("up/x", "pwned")},
       "symlink"},
      {"whiteout through a symlink",
       {TarEntry::Symlink("etc", out)},
       {TarEntry::File("etc/.wh.victim", "")},
       "symlink"},
      {"opaque dir through a symlink",
       {TarEntry::Symlink("etc", out)},
       {TarEntry::File("etc/.wh..wh..opq", "")},
       "symlink"},
      {"hardlink to dot-dot", {}, {TarEntry::Hardlink("x", "../outside/victim")}, "would escape"},
      {"hardlink to an absolute path",
       {},
       {TarEntry::Hardlink("x", out + "/victim")},
       "would escape"},
      {"hardlink through a symlink",
       {TarEntry::Symlink("etc", out)},
       {TarEntry::Hardlink("x", "etc/victim")},
       "symlink"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    fs::remove_all(rootfs_);
    fs::remove_all(outside);
    fs::create_directory(rootfs_);
    fs::create_directory(outside);
    image_testing::WriteFile(outside / "victim", "intact");
    if (!c.lower.empty()) {
      ASSERT_TRUE(Apply(rootfs_, c.lower));
    }
    auto r = Apply(rootfs_, c.layer);
    ASSERT_FALSE(r) << "accepted";
    EXPECT_NE(r.error().Message().find(c.want), std::string::npos) << r.error();
    EXPECT_NE(r.error().Message().find("unpack layer \"test-layer\""), std::string::npos)
        << r.error();
    EXPECT_EQ(image_testing::DirNames(outside), std::vector<std::string>{"victim"});
    EXPECT_EQ(ReadFile(outside / "victim"), "intact");
  }
}

// A symlink a lower layer left where this layer puts something is replaced, not followed.
TEST_F(ImageLayerTest, ReplacesSymlinksInsteadOfFollowingThem) {
  const fs::path outside = tmp_ / "outside";
  fs::create_directory(outside);
  fs::permissions(outside, fs::perms::owner_all);
  image_testing::WriteFile(outside / "passwd", "intact");
  ASSERT_TRUE(Apply(rootfs_, {TarEntry::Symlink("passwd", (outside / "passwd").string()),
                              TarEntry::Symlink("etc", outside.string())}));
  auto r =
      Apply(rootfs_, {TarEntry::File("passwd", "image's own", 0600), TarEntry::Dir("etc", 0777)});
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(fs::is_symlink(rootfs_ / "passwd"));
  EXPECT_EQ(ReadFile(rootfs_ / "passwd"), "image's own");
  EXPECT_FALSE(fs::is_symlink(rootfs_ / "etc"));
  EXPECT_TRUE(fs::is_directory(rootfs_ / "etc"));
  EXPECT_EQ(ReadFile(outside / "passwd"), "intact");
  EXPECT_EQ(fs::status(outside).permissions(), fs::perms::owner_all);
}

// An image cannot plant overlayfs's own xattrs in what becomes an overlay lower dir; other
// xattrs (file capabilities, user.*) are kept.
TEST_F(ImageLayerTest, DropsOverlayXattrs) {
  TarEntry file = TarEntry::File("f", "x");
  file.xattrs = {{"user.keep", "1"}, {"user.overlay.opaque", "y"}};
  TarEntry dir = TarEntry::Dir("d");
  dir.xattrs = {{"trusted.overlay.opaque", "y"}, {"trusted.overlay.redirect", "/etc"}};
  auto r = Apply(rootfs_, {file, dir});
  ASSERT_TRUE(r) << r.error();
  char buf[16];
  EXPECT_LT(getxattr((rootfs_ / "f").c_str(), "user.overlay.opaque", buf, sizeof buf), 0);
  EXPECT_LT(getxattr((rootfs_ / "d").c_str(), "trusted.overlay.opaque", buf, sizeof buf), 0);
  EXPECT_LT(getxattr((rootfs_ / "d").c_str(), "trusted.overlay.redirect", buf, sizeof buf), 0);
  // The filesystem under /tmp may not support user xattrs; only check where it does.
  if (setxattr((rootfs_ / "f").c_str(), "user.probe", "1", 1, 0) == 0) {
    EXPECT_EQ(getxattr((rootfs_ / "f").c_str(), "user.keep", buf, sizeof buf), 1);
  }
}

TEST_F(ImageLayerTest, ReportsCorruptArchives) {
  std::string tar = MakeTar({TarEntry::File("a", std::string(5000, 'x'))}, "gzip");
  tar.resize(tar.size() / 2);
  StringReader reader(tar);
  auto r = ApplyLayer(reader, rootfs_, "half");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().Message().find("unpack layer \"half\""), std::string::npos)
      << r.error().Message();
}

// Found by image_layer_fuzz: a gzip stream cut inside its trailer left libarchive with no error
// message, and building the error from its NULL threw. Now it is an error like any other.
TEST_F(ImageLayerTest, TruncatedGzipWithoutALibarchiveMessageIsAnError) {
  std::ifstream in(fs::path(PODLIMITS_SOURCE_DIR) / "fuzz/corpus/image_layer_fuzz/truncated-d7a4c2ff",
                   std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(data.empty());
  StringReader reader(data);
  auto r = ApplyLayer(reader, rootfs_, "cut");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().Message().find("unpack layer \"cut\""), std::string::npos)
      << r.error().Message();
}

}  // namespace
}  // namespace podlimits::image
