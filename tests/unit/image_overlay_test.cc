// The unprivileged parts of the per-container overlay: argument checks, idempotent release,
// and finding the overlays that use an image (the mounts themselves are integration tests).
#include <gtest/gtest.h>

#include "image/overlay.h"
#include "image_test_support.h"

namespace podlimits::image {
namespace {

using image_testing::TempDir;
namespace fs = std::filesystem;

TEST(Overlay, PrepareRejectsBadArgumentsAndLeavesNothing) {
  TempDir tmp;
  fs::create_directories(tmp / "image/rootfs");
  fs::create_directories(tmp / "odd,dir");
  struct Case {
    const char* name;
    fs::path rootfs;
    fs::path container;
    const char* want;
  };
  const Case cases[] = {
      {"missing rootfs", tmp / "nope", tmp / "c1", "stat image rootfs"},
      {"rootfs is a file", tmp / "file", tmp / "c2", "not a directory"},
      {"comma in the path", tmp / "image/rootfs", tmp / "odd,dir/c3", "contains ','"},
  };
  image_testing::WriteFile(tmp / "file", "x");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = PrepareContainerRootfs(c.rootfs, c.container);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().Message().find(c.want), std::string::npos) << r.error().Message();
    EXPECT_TRUE(image_testing::DirNames(c.container).empty());
  }
}

TEST(Overlay, PrepareRefusesLeftovers) {
  TempDir tmp;
  fs::create_directories(tmp / "rootfs");
  fs::create_directories(tmp / "c/upper");
  auto r = PrepareContainerRootfs(tmp / "rootfs", tmp / "c");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().Message().find("already exists"), std::string::npos) << r.error().Message();
  EXPECT_EQ(image_testing::DirNames(tmp / "c"), std::vector<std::string>{"upper"});
}

TEST(Overlay, ReleaseIsIdempotentAndKeepsTheContainerDir) {
  TempDir tmp;
  EXPECT_TRUE(ReleaseContainerRootfs(tmp / "never-prepared"));
  fs::create_directories(tmp / "c/upper/etc");
  fs::create_directories(tmp / "c/work/work");
  fs::create_directories(tmp / "c/merged");
  image_testing::WriteFile(tmp / "c/upper/etc/x", "x");
  image_testing::WriteFile(tmp / "c/config.json", "{}");
  fs::create_directory_symlink("/", tmp / "c/upper/escape");  // must not be followed
  fs::permissions(tmp / "c/work/work", fs::perms::none);
  auto r = ReleaseContainerRootfs(tmp / "c");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(image_testing::DirNames(tmp / "c"), std::vector<std::string>{"config.json"});
  EXPECT_TRUE(ReleaseContainerRootfs(tmp / "c"));
}

TEST(Overlay, FindsTheOverlaysUsingALowerDir) {
  TempDir tmp;
  fs::create_directories(tmp / "img a/rootfs");
  std::string lower = fs::canonical(tmp / "img a/rootfs").string();
  std::string escaped = lower;
  escaped.replace(escaped.find("img a"), 5, "img\\040a");
  image_testing::WriteFile(
      tmp / "mountinfo",
      fmt::format("22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
                  "43 26 0:38 / /run/c1/merged rw,relatime - overlay overlay "
                  "rw,lowerdir={},upperdir=/run/c1/upper,workdir=/run/c1/work,uuid=on\n"
                  "44 26 0:39 / /run/c\\0402/merged rw shared:5 - overlay overlay "
                  "rw,lowerdir=/other:{}/,upperdir=/u,workdir=/w\n"
                  "45 26 0:40 / /run/c3/merged rw - overlay overlay rw,lowerdir={}x,upperdir=/u\n",
                  escaped, escaped, escaped));
  auto users = OverlaysUsingLowerDir(tmp / "img a/rootfs", tmp / "mountinfo");
  ASSERT_TRUE(users) << users.error();
  EXPECT_EQ(*users, (std::vector<fs::path>{"/run/c1/merged", "/run/c 2/merged"}));
  auto none = OverlaysUsingLowerDir(tmp / "elsewhere", tmp / "mountinfo");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace podlimits::image
