// Per-container overlays on the real kernel, as root: an image loaded into a store in a
// temporary directory, containers' writable layers over it, and their release. Everything is
// mounted below a temporary directory and unmounted on every path; each test checks that
// /proc/self/mountinfo shows nothing of it afterwards and that the image rootfs is unchanged.
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "base/fs.h"
#include "fmt/format.h"
#include "image/digest.h"
#include "image/overlay.h"
#include "image/store.h"

namespace podlimits::image {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The mountinfo lines that mention `dir`.
std::vector<std::string> MountsUnder(const fs::path& dir) {
  std::vector<std::string> out;
  std::istringstream lines(ReadText("/proc/self/mountinfo"));
  for (std::string line; std::getline(lines, line);) {
    if (line.find(dir.string()) != std::string::npos) out.push_back(line);
  }
  return out;
}

// Path -> type, mode, owner, size, content digest or link target: what "unchanged" means.
std::map<std::string, std::string> Snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    lstat(it->path().c_str(), &st);
    std::string what =
        fmt::format("{:o} {}:{} {} {}", st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_mtime);
    if (S_ISREG(st.st_mode)) what += " " + ComputeDigest("sha256", ReadText(it->path())).hex;
    if (S_ISLNK(st.st_mode)) what += " -> " + fs::read_symlink(it->path()).string();
    out[it->path().lexically_relative(root).string()] = what;
  }
  return out;
}

class ImageOverlayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (mounts overlayfs)";
    std::string tmpl = (fs::temp_directory_path() / "podlimits-overlay-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    tmp_ = fs::canonical(tmpl);
    image_ = LoadImage();
    ASSERT_FALSE(image_.rootfs.empty());
    before_ = Snapshot(image_.rootfs);
  }

  void TearDown() override {
    if (tmp_.empty()) return;
    // Release whatever a failed test left mounted before deleting anything; RemoveTree never
    // crosses a mount point, so a leftover mount fails the cleanup instead of being entered.
    for (const char* c : {"c1", "c2", "busy"}) {
      EXPECT_TRUE(ReleaseContainerRootfs(tmp_ / c)) << c;
    }
    EXPECT_EQ(MountsUnder(tmp_), std::vector<std::string>{});
    EXPECT_EQ(Snapshot(image_.rootfs), before_) << "the image rootfs changed";
    EXPECT_TRUE(RemoveTree(tmp_));
  }

  // scripts/build-busybox-image runs once for the suite (it takes seconds); each test loads
  // its output into a store of its own.
  static void SetUpTestSuite() {
    // The end-to-end guest carries the layout already built (and not the build script).
    if (const char* layout = std::getenv("PODLIMITS_TEST_OCI_LAYOUT")) {
      busybox_source_ = layout;
      return;
    }
    if (geteuid() != 0 || !fs::exists("/bin/busybox")) return;
    std::string tmpl = (fs::temp_directory_path() / "podlimits-busybox-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    busybox_build_ = tmpl;
    std::string cmd = fmt::format("{}/scripts/build-busybox-image {} >/dev/null",
                                  PODLIMITS_SOURCE_DIR, busybox_build_.string());
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    busybox_source_ = busybox_build_ / "busybox-oci.tar";
  }
  static void TearDownTestSuite() {
    if (!busybox_build_.empty()) {
      EXPECT_TRUE(RemoveTree(busybox_build_));
    }
  }

  // The busybox image when busybox-static is installed (the tests then run it inside the
  // overlay), otherwise a small image with no binaries.
  Image LoadImage() {
    ImageStore store(tmp_ / "store");
    if (!busybox_source_.empty()) {
      auto image = store.Load(busybox_source_, "busybox");
      EXPECT_TRUE(image) << image.error();
      has_busybox_ = image.has_value();
      return image.value_or(Image{});
    }
    fs::create_directories(tmp_ / "plain/rootfs/etc");
    fs::create_directories(tmp_ / "plain/rootfs/tmp");
    fs::create_directories(tmp_ / "plain/rootfs/bin");
    std::ofstream(tmp_ / "plain/rootfs/etc/passwd") << "root:x:0:0:root:/root:/bin/sh\n";
    fs::create_symlink("/bin/busybox", tmp_ / "plain/rootfs/bin/cat");
    Image plain;
    plain.name = "plain";
    plain.rootfs = tmp_ / "plain/rootfs";
    return plain;
  }

  static inline fs::path busybox_build_;
  static inline fs::path busybox_source_;  // the layout or archive the tests load
  fs::path tmp_;
  Image image_;
  bool has_busybox_ = false;
  std::map<std::string, std::string> before_;
};

TEST_F(ImageOverlayTest, PrepareWriteRelease) {
  auto merged = PrepareContainerRootfs(image_.rootfs, tmp_ / "c1");
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(*merged, tmp_ / "c1/merged");
  auto mounts = MountsUnder(tmp_);
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_NE(mounts[0].find(" - overlay overlay "), std::string::npos) << mounts[0];
  EXPECT_NE(mounts[0].find("lowerdir=" + image_.rootfs.string()), std::string::npos) << mounts[0];

  // The container sees the image and writes to its own layer only.
  std::string passwd = ReadText(*merged / "etc/passwd");
  EXPECT_EQ(passwd, ReadText(image_.rootfs / "etc/passwd"));
  std::ofstream(*merged / "tmp/hello") << "hello";
  std::ofstream(*merged / "etc/passwd", std::ios::app) << "app:x:1000:1000::/:/bin/sh\n";
  fs::remove(*merged / "bin/cat");
  EXPECT_EQ(ReadText(tmp_ / "c1/upper/tmp/hello"), "hello");
  EXPECT_NE(ReadText(tmp_ / "c1/upper/etc/passwd").find("app:x:1000"), std::string::npos);
  struct stat wh {};
  ASSERT_EQ(lstat((tmp_ / "c1/upper/bin/cat").c_str(), &wh), 0);
  EXPECT_TRUE(S_ISCHR(wh.st_mode) && wh.st_rdev == makedev(0, 0)) << "an overlayfs whiteout";
  EXPECT_TRUE(fs::is_symlink(image_.rootfs / "bin/cat"));
  // The upper dir is the container's "/": it has the image root's mode.
  EXPECT_EQ(fs::status(tmp_ / "c1/upper").permissions(), fs::status(image_.rootfs).permissions());

  // A second container over the same image does not see the first one's changes.
  auto other = PrepareContainerRootfs(image_.rootfs, tmp_ / "c2");
  ASSERT_TRUE(other) << other.error();
  EXPECT_FALSE(fs::exists(*other / "tmp/hello"));
  EXPECT_EQ(ReadText(*other / "etc/passwd"), passwd);
  EXPECT_EQ(MountsUnder(tmp_).size(), 2u);
  auto users = OverlaysUsingLowerDir(image_.rootfs);
  ASSERT_TRUE(users) << users.error();
  EXPECT_EQ(users->size(), 2u);

  // Preparing again over a live one is refused and changes nothing.
  auto again = PrepareContainerRootfs(image_.rootfs, tmp_ / "c1");
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().Message().find("already exists"), std::string::npos)
      << again.error().Message();
  EXPECT_EQ(MountsUnder(tmp_).size(), 2u);

  if (has_busybox_) {
    // Run busybox in the merged rootfs, as root and as nobody: the image works as a root
    // filesystem although the store itself is root-only (0700).
    auto run = [&](uid_t uid, const char* script) {
      pid_t pid = fork();
      if (pid == 0) {
        if (chroot(merged->c_str()) != 0 || chdir("/") != 0) _exit(100);
        if (setgroups(0, nullptr) != 0 || setgid(uid) != 0 || setuid(uid) != 0) _exit(101);
        const char* env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
        execle("/bin/busybox", "sh", "-c", script, nullptr, env);
        _exit(102);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    };
    EXPECT_EQ(run(0, "echo from-container > /tmp/out; grep -q nobody /etc/group"), 0);
    EXPECT_EQ(ReadText(tmp_ / "c1/upper/tmp/out"), "from-container\n");
    EXPECT_EQ(run(65534,  // (no /dev/null: /dev is empty until a runtime mounts it; cat was deleted
                          // above)
                  "id -u > /tmp/nobody && ls /bin > /tmp/ls && head /etc/passwd > /tmp/passwd"),
              0);
    EXPECT_EQ(ReadText(tmp_ / "c1/upper/tmp/nobody"), "65534\n");
    EXPECT_NE(run(65534, "echo x > /etc/passwd"), 0) << "nobody must not write root's files";
  }

  for (const char* c : {"c1", "c2"}) {
    auto r = ReleaseContainerRootfs(tmp_ / c);
    ASSERT_TRUE(r) << r.error();
    EXPECT_TRUE(fs::is_directory(tmp_ / c)) << "the container dir is the caller's";
    EXPECT_TRUE(fs::is_empty(tmp_ / c));
  }
  EXPECT_EQ(MountsUnder(tmp_), std::vector<std::string>{});
}

TEST_F(ImageOverlayTest, StoreRefusesToRemoveAnImageInUse) {
  if (!has_busybox_) GTEST_SKIP() << "busybox-static is not installed";
  ImageStore store(tmp_ / "store");
  auto merged = PrepareContainerRootfs(image_.rootfs, tmp_ / "c1");
  ASSERT_TRUE(merged) << merged.error();
  auto r = store.Remove("busybox");
  ASSERT_FALSE(r);
  EXPECT_NE(
      r.error().Message().find("in use by the container rootfs mounted at " + merged->string()),
      std::string::npos)
      << r.error();
  EXPECT_TRUE(store.Find("busybox"));
  ASSERT_TRUE(ReleaseContainerRootfs(tmp_ / "c1"));
  // Reset the snapshot: removing the image is the point now.
  ASSERT_TRUE(store.Remove("busybox"));
  EXPECT_FALSE(fs::exists(image_.rootfs));
  before_ = {};
}

TEST_F(ImageOverlayTest, ReleaseDetachesABusyMount) {
  auto merged = PrepareContainerRootfs(image_.rootfs, tmp_ / "busy");
  ASSERT_TRUE(merged) << merged.error();
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Hold the mount busy: a working directory inside it.
    if (chdir(merged->c_str()) != 0) _exit(1);
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  close(ready[1]);
  auto r = ReleaseContainerRootfs(tmp_ / "busy");
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(MountsUnder(tmp_), std::vector<std::string>{});
  EXPECT_TRUE(fs::is_empty(tmp_ / "busy"));
}

TEST_F(ImageOverlayTest, MountFailureLeavesNothing) {
  // A container directory so deep that the overlay's options (upperdir and workdir) exceed the
  // page the kernel copies them into: every kernel refuses that mount, whereas the paths
  // themselves are valid.
  fs::path deep = tmp_ / "deep";
  while (deep.string().size() < 2200) deep /= std::string(200, 'd');
  fs::create_directories(deep);
  auto r = PrepareContainerRootfs(image_.rootfs, deep);
  ASSERT_FALSE(r) << "the kernel accepted overlay options of more than a page";
  EXPECT_NE(r.error().Message().find("mount overlay"), std::string::npos) << r.error().Message();
  EXPECT_NE(r.error().Message().find(deep.string() + "/merged"), std::string::npos)
      << r.error().Message();
  EXPECT_TRUE(fs::is_empty(deep)) << "upper/work/merged were left behind";
  EXPECT_EQ(MountsUnder(tmp_).size(), 0u);
}

}  // namespace
}  // namespace podlimits::image
