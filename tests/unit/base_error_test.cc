#include "base/error.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace podlimits {
namespace {

struct MessageCase {
  const char* name;
  Error error;
  const char* want;
};

TEST(ErrorMessage, Table) {
  const MessageCase cases[] = {
      {"system call on a path",
       {"write", "/sys/fs/cgroup/pids/kubepods/pids.max", EINVAL, "", {}},
       R"(write "/sys/fs/cgroup/pids/kubepods/pids.max": Invalid argument)"},
      {"system call with detail",
       {"mkdir", "/x", EACCES, "the parent is read-only", {}},
       R"(mkdir "/x": Permission denied: the parent is read-only)"},
      {"failure on a path", {"parse", "/proc/1/limits", 0, "no Max open files line", {}},
       R"(parse "/proc/1/limits": no Max open files line)"},
      {"operation without a path", {"crun create abc", "", 0, "exit status 1", {}},
       "crun create abc: exit status 1"},
      {"path without an operation", {"", "/etc/x", ENOENT, "", {}},
       R"("/etc/x": No such file or directory)"},
      {"only a sentence", {"", "", 0, "runtime not found", {}}, "runtime not found"},
      {"context outermost first",
       {"rmdir", "/c", EBUSY, "", {"remove pod cgroup", "teardown"}},
       R"(teardown: remove pod cgroup: rmdir "/c": Device or resource busy)"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.error.Message(), c.want) << c.name;
  }
}

Result<int> FailingWrite() { return SystemError("write", "/f", EIO); }

TEST(ErrorWrap, AddsContextOnTheWayUp) {
  Result<int> r = Wrapped(FailingWrite(), "apply limits");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(Wrapped(std::move(r), "start pod").error().Message(),
            R"(start pod: apply limits: write "/f": Input/output error)");
}

TEST(ErrorWrap, LeavesAValueAlone) {
  Result<int> r = Wrapped(Result<int>(7), "unused");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 7);
}

TEST(ErrorFailure, SentenceOnly) {
  EXPECT_EQ(Failure("no runtime").error().Message(), "no runtime");
  EXPECT_EQ(Failure("open", "/p", "not a regular file").error().Wrap("load").Message(),
            R"(load: open "/p": not a regular file)");
}

}  // namespace
}  // namespace podlimits
