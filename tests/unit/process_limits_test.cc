// Reading /proc/<pid>/limits and correcting a process's rlimits with prlimit(2): parsing real
// kernel text, malformed text, and prlimit on a child of the test process (lowering a limit
// needs no privilege).
#include "cri/process_limits.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace podlimits::cri {
namespace {

using podlimits::testing::TempDir;

namespace fs = std::filesystem;

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

// /proc/self/limits of a root shell on a development machine (Linux 6.18), byte for byte: the
// kernel pads every column, so lines end in spaces.
const std::string kRealLimits =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max file size             unlimited            unlimited            bytes     \n"
    "Max data size             unlimited            unlimited            bytes     \n"
    "Max stack size            8388608              unlimited            bytes     \n"
    "Max core file size        0                    unlimited            bytes     \n"
    "Max resident set          unlimited            unlimited            bytes     \n"
    "Max processes             96365                96365                processes \n"
    "Max open files            20000                20000                files     \n"
    "Max locked memory         8388608              8388608              bytes     \n"
    "Max address space         unlimited            unlimited            bytes     \n"
    "Max file locks            unlimited            unlimited            locks     \n"
    "Max pending signals       96365                96365                signals   \n"
    "Max msgqueue size         819200               819200               bytes     \n"
    "Max nice priority         0                    0                    \n"
    "Max realtime priority     0                    0                    \n"
    "Max realtime timeout      unlimited            unlimited            us        \n";

const std::string kHeader =
    "Limit                     Soft Limit           Hard Limit           Units     \n";

// A child that only waits to be killed; killed and reaped by pid when the test ends.
class SleepingChild {
 public:
  SleepingChild() {
    pid_ = fork();
    if (pid_ == 0) {
      for (;;) pause();
    }
  }
  ~SleepingChild() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

const ProcessLimit* Find(const std::vector<ProcessLimit>& limits, const std::string& type) {
  for (const auto& l : limits) {
    if (l.type == type) return &l;
  }
  return nullptr;
}

TEST(ParseProcLimits, ReadsEveryRowOfRealKernelText) {
  auto limits = ParseProcLimits(kRealLimits);
  ASSERT_TRUE(limits) << limits.error();
  const std::vector<ProcessLimit> want = {
      {"RLIMIT_CPU", kUnlimited, kUnlimited, "seconds"},
      {"RLIMIT_FSIZE", kUnlimited, kUnlimited, "bytes"},
      {"RLIMIT_DATA", kUnlimited, kUnlimited, "bytes"},
      {"RLIMIT_STACK", 8388608, kUnlimited, "bytes"},
      {"RLIMIT_CORE", 0, kUnlimited, "bytes"},
      {"RLIMIT_RSS", kUnlimited, kUnlimited, "bytes"},
      {"RLIMIT_NPROC", 96365, 96365, "processes"},
      {"RLIMIT_NOFILE", 20000, 20000, "files"},
      {"RLIMIT_MEMLOCK", 8388608, 8388608, "bytes"},
      {"RLIMIT_AS", kUnlimited, kUnlimited, "bytes"},
      {"RLIMIT_LOCKS", kUnlimited, kUnlimited, "locks"},
      {"RLIMIT_SIGPENDING", 96365, 96365, "signals"},
      {"RLIMIT_MSGQUEUE", 819200, 819200, "bytes"},
      {"RLIMIT_NICE", 0, 0, ""},
      {"RLIMIT_RTPRIO", 0, 0, ""},
      {"RLIMIT_RTTIME", kUnlimited, kUnlimited, "us"},
  };
  EXPECT_EQ(*limits, want);
}

TEST(ParseProcLimits, ToleratesMissingPaddingAndBlankLines) {
  auto limits = ParseProcLimits(
      "Limit Soft Limit Hard Limit Units\n\n"
      "Max open files 256 512 files\n"
      "Max nice priority\t0\t0\n");
  ASSERT_TRUE(limits) << limits.error();
  EXPECT_EQ(*limits, (std::vector<ProcessLimit>{{"RLIMIT_NOFILE", 256, 512, "files"},
                                                {"RLIMIT_NICE", 0, 0, ""}}));
}

TEST(ParseProcLimits, RejectsMalformedText) {
  struct Case {
    std::string name;
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"empty", "", "empty: no header line"},
      {"no header", "Max open files 1 2 files\n",
       "line 1: expected the header \"Limit Soft Limit Hard Limit Units\""},
      {"unknown row", kHeader + "Max wizardry              1                    2\n",
       "line 2: unknown limit \"Max wizardry              1                    2\""},
      {"name without a column break", kHeader + "Max open filesX 1 2 files\n",
       "line 2: unknown limit \"Max open filesX 1 2 files\""},
      {"hard limit missing", kHeader + "Max open files            256\n",
       "line 2: Max open files: want a soft limit, a hard limit and maybe units, got \"Max open "
       "files            256\""},
      {"too many fields", kHeader + "Max open files 1 2 files extra\n",
       "line 2: Max open files: want a soft limit, a hard limit and maybe units, got \"Max open "
       "files 1 2 files extra\""},
      {"not a number", kHeader + "Max open files            lots                 512\n",
       "line 2: Max open files: \"lots\" is not a number or \"unlimited\""},
      {"negative", kHeader + "Max open files 256 -1 files\n",
       "line 2: Max open files: \"-1\" is not a number or \"unlimited\""},
      {"overflow", kHeader + "Max open files 256 18446744073709551616 files\n",
       "line 2: Max open files: \"18446744073709551616\" is not a number or \"unlimited\""},
      {"repeated row", kHeader + "Max open files 1 2 files\nMax open files 3 4 files\n",
       "line 3: Max open files repeated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto limits = ParseProcLimits(c.text);
    ASSERT_FALSE(limits);
    EXPECT_EQ(limits.error().Message(), c.error);
  }
}

TEST(ReadProcessLimits, ReadsTheFileBelowProcRoot) {
  TempDir proc{"podlimits-limits"};
  fs::create_directories(proc.path() / "123");
  std::ofstream(proc.path() / "123/limits") << kRealLimits;
  auto limits = ReadProcessLimits(123, proc.path());
  ASSERT_TRUE(limits) << limits.error();
  EXPECT_EQ(limits->size(), 16u);

  auto missing = ReadProcessLimits(999, proc.path());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().Message(),
            "read \"" + (proc.path() / "999/limits").string() + "\": No such file or directory");

  std::ofstream(proc.path() / "123/limits") << "garbage\n";
  auto bad = ReadProcessLimits(123, proc.path());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().Message(),
            "parse \"" + (proc.path() / "123/limits").string() +
                "\": line 1: expected the header \"Limit Soft Limit Hard Limit Units\"");
}

TEST(ReadProcessLimits, MatchesGetrlimitOfThisProcess) {
  auto limits = ReadProcessLimits(getpid());
  ASSERT_TRUE(limits) << limits.error();
  EXPECT_EQ(limits->size(), 16u);
  rlimit nofile;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &nofile), 0);
  const ProcessLimit* row = Find(*limits, "RLIMIT_NOFILE");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->soft, nofile.rlim_cur);
  EXPECT_EQ(row->hard, nofile.rlim_max);
}

TEST(CorrectProcessLimits, SetsOnlyTheLimitsThatDiffer) {
  SleepingChild child;
  ASSERT_GT(child.pid(), 0);
  auto before = ReadProcessLimits(child.pid());
  ASSERT_TRUE(before) << before.error();
  const ProcessLimit* nofile = Find(*before, "RLIMIT_NOFILE");
  const ProcessLimit* core = Find(*before, "RLIMIT_CORE");
  ASSERT_NE(nofile, nullptr);
  ASSERT_NE(core, nullptr);
  ASSERT_GT(nofile->hard, 200u);

  // Lowering needs no privilege; CORE is asked for as it already is.
  const std::vector<Rlimit> wanted = {{"RLIMIT_NOFILE", 100, 200},
                                      {"RLIMIT_CORE", core->soft, core->hard}};
  auto corrections = CorrectProcessLimits(child.pid(), wanted);
  ASSERT_TRUE(corrections) << corrections.error();
  ASSERT_EQ(corrections->size(), 1u);
  EXPECT_EQ((*corrections)[0].wanted, wanted[0]);
  EXPECT_EQ((*corrections)[0].found_soft, nofile->soft);
  EXPECT_EQ((*corrections)[0].found_hard, nofile->hard);

  auto after = ReadProcessLimits(child.pid());
  ASSERT_TRUE(after) << after.error();
  EXPECT_EQ(*Find(*after, "RLIMIT_NOFILE"), (ProcessLimit{"RLIMIT_NOFILE", 100, 200, "files"}));

  // Everything as wanted now: nothing to do.
  auto again = CorrectProcessLimits(child.pid(), wanted);
  ASSERT_TRUE(again) << again.error();
  EXPECT_TRUE(again->empty());
}

// The limits it returns are what a read of /proc/<pid>/limits afterwards gives, whether it
// corrected something or not: `podlimits run` records them instead of reading the file again.
TEST(CorrectAndReadProcessLimits, ReturnsTheLimitsAsTheyHoldAfterwards) {
  SleepingChild child;
  ASSERT_GT(child.pid(), 0);
  auto before = ReadProcessLimits(child.pid());
  ASSERT_TRUE(before) << before.error();
  const ProcessLimit* core = Find(*before, "RLIMIT_CORE");
  ASSERT_NE(core, nullptr);
  ASSERT_GT(Find(*before, "RLIMIT_NOFILE")->hard, 200u);
  struct Case {
    std::string name;
    std::vector<Rlimit> wanted;
    std::size_t corrections;
  };
  const std::vector<Case> cases = {
      {"nothing wanted", {}, 0},
      {"one lowered", {{"RLIMIT_NOFILE", 100, 200}, {"RLIMIT_CORE", core->soft, core->hard}}, 1},
      {"already as wanted", {{"RLIMIT_NOFILE", 100, 200}}, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto corrected = CorrectAndReadProcessLimits(child.pid(), c.wanted);
    ASSERT_TRUE(corrected) << corrected.error();
    EXPECT_EQ(corrected->corrections.size(), c.corrections);
    auto now = ReadProcessLimits(child.pid());
    ASSERT_TRUE(now) << now.error();
    EXPECT_EQ(corrected->limits, *now);
  }
}

TEST(CorrectProcessLimits, ReportsWhatCannotBeSet) {
  SleepingChild child;
  ASSERT_GT(child.pid(), 0);
  std::uint64_t nr_open = 0;
  std::ifstream("/proc/sys/fs/nr_open") >> nr_open;
  ASSERT_GT(nr_open, 0u);
  auto limits = ReadProcessLimits(child.pid());
  ASSERT_TRUE(limits) << limits.error();
  // What the child runs with now, as the error quotes it ("the OCI runtime left it at S/H").
  auto now = [&](const std::string& type) {
    const ProcessLimit* l = Find(*limits, type);
    if (l == nullptr) return std::string("?");
    auto text = [](std::uint64_t v) {
      return v == kUnlimited ? std::string("unlimited") : std::to_string(v);
    };
    return text(l->soft) + "/" + text(l->hard);
  };
  const std::string pid = std::to_string(child.pid());
  struct Case {
    std::string name;
    Rlimit wanted;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"unknown type", {"RLIMIT_WISHES", 1, 2}, "unknown rlimit \"RLIMIT_WISHES\""},
      // The kernel refuses a NOFILE hard limit above fs.nr_open, even to root.
      {"nofile above nr_open",
       {"RLIMIT_NOFILE", 10, nr_open + 1},
       "set RLIMIT_NOFILE of pid " + pid + " to 10/" + std::to_string(nr_open + 1) +
           ": the OCI runtime left it at " + now("RLIMIT_NOFILE") +
           ", and the kernel refuses a hard limit above fs.nr_open (" + std::to_string(nr_open) +
           "): Operation not permitted"},
      {"soft above hard",
       {"RLIMIT_CORE", kUnlimited, 0},
       "set RLIMIT_CORE of pid " + pid + " to unlimited/0: the OCI runtime left it at " +
           now("RLIMIT_CORE") +
           ", and a soft limit above the hard limit is invalid: Invalid argument"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto corrections = CorrectProcessLimits(child.pid(), {c.wanted});
    ASSERT_FALSE(corrections);
    EXPECT_EQ(corrections.error().Message(), c.error);
  }
}

// The kernel says only EPERM or EINVAL: the message says which of its reasons applies.
TEST(CorrectProcessLimits, DescribesWhyPrlimitFailed) {
  struct Case {
    std::string name;
    Rlimit wanted;
    ProcessLimit found;
    int err;
    PrlimitContext context;
    std::string want;
  };
  const ProcessLimit nofile{"RLIMIT_NOFILE", 256, 100, "files"};
  const std::vector<Case> cases = {
      {"raise hard without CAP_SYS_RESOURCE",
       {"RLIMIT_NOFILE", 256, 512},
       nofile,
       EPERM,
       {false, 1048576},
       "set RLIMIT_NOFILE of pid 42 to 256/512: the OCI runtime left it at 256/100, and raising a "
       "hard limit (100 to 512) needs CAP_SYS_RESOURCE, which podlimits lacks: Operation not "
       "permitted"},
      {"raise hard with CAP_SYS_RESOURCE",
       {"RLIMIT_NOFILE", 256, 512},
       nofile,
       EPERM,
       {true, 1048576},
       "set RLIMIT_NOFILE of pid 42 to 256/512: the OCI runtime left it at 256/100, and raising a "
       "hard limit (100 to 512) needs CAP_SYS_RESOURCE, which podlimits has in its effective "
       "set, yet the kernel refused: Operation not permitted"},
      {"nofile above nr_open",
       {"RLIMIT_NOFILE", 10, 2000000},
       nofile,
       EPERM,
       {true, 1048576},
       "set RLIMIT_NOFILE of pid 42 to 10/2000000: the OCI runtime left it at 256/100, and the "
       "kernel refuses a hard limit above fs.nr_open (1048576): Operation not permitted"},
      {"soft above hard",
       {"RLIMIT_CORE", kUnlimited, 0},
       {"RLIMIT_CORE", 0, kUnlimited, "bytes"},
       EINVAL,
       {},
       "set RLIMIT_CORE of pid 42 to unlimited/0: the OCI runtime left it at 0/unlimited, and a "
       "soft limit above the hard limit is invalid: Invalid argument"},
      {"no known reason",
       {"RLIMIT_STACK", 10, 20},
       {"RLIMIT_STACK", 10, 30, "bytes"},
       ESRCH,
       {},
       "set RLIMIT_STACK of pid 42 to 10/20: the OCI runtime left it at 10/30: No such process"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DescribePrlimitFailure(c.wanted, c.found, 42, c.err, c.context), c.want);
  }
}

TEST(CorrectProcessLimits, ComparesAgainstProcRootWithoutTouchingMatchingLimits) {
  TempDir proc{"podlimits-limits"};
  fs::create_directories(proc.path() / "77");
  std::ofstream(proc.path() / "77/limits") << kRealLimits;
  // Pid 77 exists only in the fixture: a prlimit would fail, so none may be attempted.
  auto corrections = CorrectProcessLimits(
      77, {{"RLIMIT_NOFILE", 20000, 20000}, {"RLIMIT_CPU", kUnlimited, kUnlimited}}, proc.path());
  ASSERT_TRUE(corrections) << corrections.error();
  EXPECT_TRUE(corrections->empty());

  auto nothing_wanted = CorrectProcessLimits(77, {}, proc.path() / "absent");
  ASSERT_TRUE(nothing_wanted) << nothing_wanted.error();
  EXPECT_TRUE(nothing_wanted->empty());
}

}  // namespace
}  // namespace podlimits::cri
