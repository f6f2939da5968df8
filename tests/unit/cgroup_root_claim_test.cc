// One node per cgroup root: a second serve is refused while the first's serve or pods live, and
// takes over once nothing of it is left; other roots are free.
#include "nodeagent/cgroup_root_claim.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/unique_fd.h"
#include "nodeagent/monitor_files.h"
#include "temp_dir.h"

namespace podlimits::nodeagent {
namespace {

namespace fs = std::filesystem;

// Holds `file`'s flock as a live serve holds serve.lock.
UniqueFd Hold(const fs::path& file) {
  fs::create_directories(file.parent_path());
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  EXPECT_TRUE(fd);
  EXPECT_EQ(::flock(fd.get(), LOCK_EX | LOCK_NB), 0);
  return fd;
}

TEST(CgroupRootClaim, OneLiveNodePerRoot) {
  podlimits::testing::TempDir dir("podlimits-claims");
  const fs::path claims = dir / "claims", a = dir / "a", b = dir / "b";
  {
    UniqueFd serve_a = Hold(a / "serve.lock");
    ASSERT_TRUE(ClaimCgroupRoot(claims, a, "/"));
    EXPECT_TRUE(ClaimCgroupRoot(claims, a, "/")) << "a node claims its own root again";
    auto refused = ClaimCgroupRoot(claims, b, "/");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().Message(),
              "cgroupRoot \"/\" belongs to the node of " + a.string() +
                  ", which is still running (its serve or its pods): two nodes cannot share "
                  "/kubepods, whose pids.max is a node's allocatable; give this node its own "
                  "cgroupRoot and stateDirectory in --node-config");
    EXPECT_TRUE(ClaimCgroupRoot(claims, b, "/node-b")) << "another root is free";
  }
  // a's serve is gone but one of its pods still runs (its monitor holds the pod's lock).
  {
    fs::create_directories(MonitorDirectory(a, "u1"));
    auto monitor = LockMonitor(MonitorDirectory(a, "u1"));
    ASSERT_TRUE(monitor);
    EXPECT_TRUE(NodeAlive(a));
    EXPECT_FALSE(ClaimCgroupRoot(claims, b, "/"));
  }
  // Nothing of a is left: b takes the root over, and a is the one refused now.
  EXPECT_FALSE(NodeAlive(a));
  UniqueFd serve_b = Hold(b / "serve.lock");
  EXPECT_TRUE(ClaimCgroupRoot(claims, b, "/"));
  EXPECT_FALSE(ClaimCgroupRoot(claims, a, "/"));
}

}  // namespace
}  // namespace podlimits::nodeagent

namespace podlimits::nodeagent {
namespace {

// A node with nothing left running gives its claim up; one whose pods go on keeps it; another
// node's claim is not touched.
TEST(CgroupRootClaim, ReleasedWhenNothingOfTheNodeRuns) {
  podlimits::testing::TempDir dir("podlimits-claims");
  const fs::path claims = dir / "claims", a = dir / "a", b = dir / "b";
  ASSERT_TRUE(ClaimCgroupRoot(claims, a, "/"));
  {
    fs::create_directories(MonitorDirectory(a, "u1"));
    auto monitor = LockMonitor(MonitorDirectory(a, "u1"));
    ASSERT_TRUE(monitor);
    ReleaseCgroupRoot(claims, a, "/");
    EXPECT_FALSE(ClaimCgroupRoot(claims, b, "/")) << "released while a pod of a runs";
  }
  ReleaseCgroupRoot(claims, b, "/");  // not b's: nothing happens
  EXPECT_EQ(std::distance(fs::directory_iterator(claims), fs::directory_iterator()), 1);
  ReleaseCgroupRoot(claims, a, "/");
  EXPECT_FALSE(fs::exists(claims)) << "the last claim took its directory with it";
}

}  // namespace
}  // namespace podlimits::nodeagent

namespace podlimits::nodeagent {
namespace {

// `podlimits run` in a cgroupRoot: refused with serve's own words while a live node owns it;
// free when nobody claimed it or its node has nothing left. It never claims or creates anything.
TEST(CgroupRootClaim, RunIsRefusedTheRootOfALiveNodeAndClaimsNothing) {
  podlimits::testing::TempDir dir("podlimits-claims");
  const fs::path claims = dir / "claims", a = dir / "a";
  // Nobody claimed anything: free, and no claims directory is made.
  EXPECT_TRUE(CheckCgroupRootUnclaimed(claims, "/"));
  EXPECT_FALSE(fs::exists(claims));
  {
    UniqueFd serve_a = Hold(a / "serve.lock");
    ASSERT_TRUE(ClaimCgroupRoot(claims, a, "/"));
    auto refused = CheckCgroupRootUnclaimed(claims, "/");
    ASSERT_FALSE(refused);
    // What serve says to a second node.
    EXPECT_EQ(refused.error(), ClaimCgroupRoot(claims, dir / "b", "/").error());
    EXPECT_EQ(refused.error().Message(),
              "cgroupRoot \"/\" belongs to the node of " + a.string() +
                  ", which is still running (its serve or its pods): two nodes cannot share "
                  "/kubepods, whose pids.max is a node's allocatable; give this node its own "
                  "cgroupRoot and stateDirectory in --node-config");
    EXPECT_TRUE(CheckCgroupRootUnclaimed(claims, "/elsewhere")) << "another root is free";
    // Two runs at once: neither waits for nor blocks the other (a shared lock each).
    UniqueFd record(::open((claims / "2f").c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(record);
    ASSERT_EQ(::flock(record.get(), LOCK_SH), 0);
    EXPECT_FALSE(CheckCgroupRootUnclaimed(claims, "/"));
  }
  // a's serve stopped with no pod running: its claim no longer binds anyone, and stays a's.
  EXPECT_TRUE(CheckCgroupRootUnclaimed(claims, "/"));
  EXPECT_EQ(podlimits::testing::ReadText(claims / "2f"), a.string() + "\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(claims), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace podlimits::nodeagent
