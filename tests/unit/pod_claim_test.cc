// A run's hold on a pod uid (runtime/pod_claim.h), the record it leaves for a later run
// (runtime/pod_record.h), the cgroup-root ledger (runtime/cgroup_root_ledger.h), and cleaning up
// after a run that died (runtime/stale_pods.h), on temporary directories with a fake OCI runtime
// and plain-directory cgroup trees. flock(2) locks of two open files conflict within one process
// too, so a claim held by the test stands for a live run.
#include "kubelet/podworker/pod_claim.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kubelet/cm/cgroup_root_ledger.h"
#include "kubelet/podworker/pod_record.h"
#include "kubelet/podworker/stale_pods.h"
#include "temp_dir.h"

namespace podlimits::kubelet {
namespace {

using podlimits::testing::ReadText;
using podlimits::testing::TempDir;
using podlimits::testing::WriteText;

namespace fs = std::filesystem;

TEST(PodClaim, OneRunPerUid) {
  TempDir tmp{"podlimits-claim"};
  const fs::path pods = tmp.path() / "pods";
  auto first = PodClaim::Acquire(pods, "u1");
  ASSERT_TRUE(first) << first.error().Message();
  EXPECT_FALSE(first->leftovers());
  EXPECT_FALSE(first->previous_owner());
  const PodOwner me = ThisProcessOwner();
  EXPECT_EQ(ParseOwner(ReadText(pods / "u1.lock")), me);

  auto second = PodClaim::Acquire(pods, "u1");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().reason, kPodUIDInUse);
  EXPECT_EQ(PodClaim::Holder(pods, "u1"), me);  // what the lock file says
  EXPECT_EQ(second.error().Message(), "pod uid \"u1\" is in use by podlimits pid " +
                                        std::to_string(getpid()) + " (it holds \"" +
                                        (pods / "u1.lock").string() + "\")");

  // Another uid is free meanwhile.
  EXPECT_TRUE(PodClaim::Acquire(pods, "u2"));

  first->Release();
  EXPECT_FALSE(fs::exists(pods / "u1.lock"));
  EXPECT_TRUE(PodClaim::Acquire(pods, "u1"));
}

// A pod directory whose lock nobody holds was left by a run that died; its lock file still names
// that run.
TEST(PodClaim, LeftoversOfADeadRun) {
  TempDir tmp{"podlimits-claim"};
  const fs::path pods = tmp.path() / "pods";
  fs::create_directories(pods / "u1");
  WriteText(pods / "u1.lock", "pid 999999\nstart 77\n");
  auto claim = PodClaim::Acquire(pods, "u1");
  ASSERT_TRUE(claim) << claim.error().Message();
  EXPECT_TRUE(claim->leftovers());
  EXPECT_EQ(claim->previous_owner(), (PodOwner{999999, 77}));
  EXPECT_EQ(claim->pod_dir(), pods / "u1");
  EXPECT_EQ(ParseOwner(ReadText(pods / "u1.lock")), ThisProcessOwner());
}

TEST(PodClaim, UidThatIsNoFileName) {
  TempDir tmp{"podlimits-claim"};
  for (const std::string uid : {"", ".", "..", "../x", "a/b"}) {
    SCOPED_TRACE(uid);
    auto claim = PodClaim::Acquire(tmp.path(), uid);
    ASSERT_FALSE(claim);
    EXPECT_EQ(claim.error().reason, "");
    EXPECT_EQ(claim.error().Message(), "claim pod uid \"" + uid + "\": not a file name");
  }
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(PodClaim, ParseOwner) {
  struct Case {
    std::string name;
    std::string text;
    std::optional<PodOwner> want;
  };
  const std::vector<Case> cases = {
      {"both", "pid 12\nstart 34\n", PodOwner{12, 34}},
      {"no final newline", "pid 12\nstart 34", PodOwner{12, 34}},
      {"empty", "", std::nullopt},
      {"pid only", "pid 12\n", std::nullopt},
      {"pid zero", "pid 0\nstart 1\n", std::nullopt},
      {"garbage", "pid 12\nstart 34\nhello\n", std::nullopt},
      {"not a number", "pid x\nstart 34\n", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ParseOwner(c.text), c.want);
  }
  EXPECT_EQ(ParseOwner(FormatOwner({5, 6})), (PodOwner{5, 6}));
}

PodRecord SampleRecord(const fs::path& runtime, const fs::path& root) {
  PodRecord r;
  r.uid = "u1";
  r.name = "web";
  r.namespace_ = "default";
  r.runtime = "crun";
  r.runtime_binary = runtime;
  r.runtime_root = root;
  r.cgroup_root = "/";
  r.qos = cgroups::QosClass::kBestEffort;
  r.containers = {{"app", std::string(64, 'a')}};
  r.images = {"/images/abc"};
  return r;
}

TEST(PodRecord, RoundTripAndErrors) {
  TempDir tmp{"podlimits-claim"};
  const PodRecord r = SampleRecord("/usr/bin/crun", "/state/runtime/crun");
  ASSERT_TRUE(WritePodRecord(tmp.path(), r));
  auto back = ReadPodRecord(tmp.path());
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, r);

  struct Case {
    std::string name;
    std::string text;
    std::string error;
  };
  const std::string full = EncodePodRecord(r);
  auto without = [&](const std::string& from, const std::string& to) {
    std::string t = full;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::vector<Case> cases = {
      {"not JSON", "{", "pod.json: invalid JSON at line 1: "},
      {"an array", "[]", "pod.json: want one JSON object"},
      {"no uid", without("\"uid\": \"u1\"", "\"x\": 1"), "pod.json: uid: want a non-empty string"},
      {"unknown QoS", without("\"BestEffort\"", "\"Best\""),
       "pod.json: cgroup.qosClass: unknown QoS class \"Best\""},
      {"container without id", without("\"id\": \"" + std::string(64, 'a') + "\"", "\"x\": 1"),
       "pod.json: containers[0].id: want a non-empty string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto decoded = DecodePodRecord(c.text, "pod.json");
    ASSERT_FALSE(decoded);
    EXPECT_EQ(decoded.error().Message().substr(0, c.error.size()), c.error);
  }
}

TEST(CgroupRootLedger, RecordsAndForgets) {
  TempDir tmp{"podlimits-claim"};
  {
    auto ledger = CgroupRootLedger::Lock(tmp.path() / "state");
    ASSERT_TRUE(ledger) << ledger.error();
    EXPECT_TRUE(ledger->entries().empty());
    ASSERT_TRUE(ledger->Update({"/sys/fs/cgroup/pids/a", "/sys/fs/cgroup/pids/a/b"}, {}));
  }
  EXPECT_EQ(ReadText(tmp.path() / "state/cgroup-roots"),
            "/sys/fs/cgroup/pids/a\n/sys/fs/cgroup/pids/a/b\n");
  auto ledger = CgroupRootLedger::Lock(tmp.path() / "state");
  ASSERT_TRUE(ledger) << ledger.error();
  ASSERT_TRUE(ledger->Update({"/x"}, {"/sys/fs/cgroup/pids/a/b"}));
  EXPECT_EQ(ledger->entries(), (std::vector<fs::path>{"/sys/fs/cgroup/pids/a", "/x"}));
  EXPECT_EQ(ReadText(tmp.path() / "state/cgroup-roots"), "/sys/fs/cgroup/pids/a\n/x\n");

  // Blank lines, relative paths and repeats are not entries.
  EXPECT_EQ(ParseLedger("/a\n\nrel\n/a\n/b"), (std::vector<fs::path>{"/a", "/b"}));
}

// A fake OCI runtime that appends its arguments to `calls`.
fs::path FakeRuntime(const fs::path& dir) {
  const fs::path script = dir / "fake-crun";
  WriteText(script, "#!/bin/sh\necho \"$@\" >>" + (dir / "calls").string() + "\nexit 0\n");
  chmod(script.c_str(), 0755);
  return script;
}

// A plain-directory stand-in for the pids hierarchy with a pod cgroup in it, as a dead run left it.
std::vector<cgroups::ManagedHierarchy> PidsTree(const fs::path& root) {
  std::vector<cgroups::ManagedHierarchy> out;
  out.push_back({cgroups::CgroupVersion::kV1,
                 {"pids"},
                 cgroups::CgroupTree::OnPlainDirectory(root, {{"cgroup.procs", ""},
                                                              {"pids.current", "0\n"},
                                                              {"pids.events", "max 0\n"},
                                                              {"pids.max", "max\n"}})});
  return out;
}

void MakeCgroup(const fs::path& dir) {
  fs::create_directories(dir);
  for (const char* f : {"cgroup.procs", "pids.current", "pids.events", "pids.max"}) {
    WriteText(dir / f, "");
  }
}

TEST(StalePods, ADeadRunsPodIsCleanedUpAndALiveOneIsNot) {
  TempDir tmp{"podlimits-claim"};
  const fs::path state = tmp.path() / "state";
  const fs::path cgroups = tmp.path() / "cgroups";
  const fs::path runtime = FakeRuntime(tmp.path());
  const fs::path pods = state / "pods";

  // The dead run's pod: record, a bundle, its lock file naming a pid, its cgroup.
  PodRecord dead = SampleRecord(runtime, state / "runtime/crun");
  fs::create_directories(pods / "u1/app/rootfs");
  ASSERT_TRUE(WritePodRecord(pods / "u1", dead));
  WriteText(pods / "u1.lock", "pid 999999\nstart 1\n");
  MakeCgroup(cgroups / "kubepods");
  MakeCgroup(cgroups / "kubepods/besteffort");
  MakeCgroup(cgroups / "kubepods/besteffort/podu1");
  MakeCgroup(cgroups / "kubepods/besteffort/podu1" / dead.containers[0].id);

  // A live run's pod (the test holds its claim): untouched.
  auto live = PodClaim::Acquire(pods, "u2");
  ASSERT_TRUE(live) << live.error().Message();
  PodRecord alive = SampleRecord(runtime, state / "runtime/crun");
  alive.uid = "u2";
  fs::create_directories(pods / "u2");
  ASSERT_TRUE(WritePodRecord(pods / "u2", alive));
  MakeCgroup(cgroups / "kubepods/besteffort/podu2");

  StalePodEnvironment env;
  env.state_dir = state;
  env.hierarchies = [&] { return PidsTree(cgroups); };
  auto cleanups = CleanUpStalePods(env, "mine");
  ASSERT_EQ(cleanups.size(), 1u);
  const StalePodCleanup& c = cleanups[0];
  EXPECT_TRUE(c.ok()) << ::testing::PrintToString(c.errors);
  EXPECT_EQ(c.uid, "u1");
  const Event e = c.ToEvent();
  EXPECT_EQ(e.reason, "OrphanedPodCleanedUp");
  EXPECT_EQ(e.message,
            "Pod web_default(u1) was left behind by podlimits pid 999999, which is gone: its "
            "processes killed, containers app deleted from crun, cgroup "
            "/kubepods/besteffort/podu1 removed, \"" +
                (pods / "u1").string() + "\" removed");
  EXPECT_EQ(ReadText(tmp.path() / "calls"), "--root " + (state / "runtime/crun").string() +
                                                " --log-format json delete --force " +
                                                dead.containers[0].id + "\n");
  EXPECT_FALSE(fs::exists(pods / "u1"));
  EXPECT_FALSE(fs::exists(pods / "u1.lock"));
  EXPECT_FALSE(fs::exists(cgroups / "kubepods/besteffort/podu1"));
  // The live pod and the parents it uses stay.
  EXPECT_TRUE(fs::exists(pods / "u2/pod.json"));
  EXPECT_TRUE(fs::exists(cgroups / "kubepods/besteffort/podu2"));
}

// A record that names another uid steers nothing: reported, left for a person.
TEST(StalePods, ARecordOfAnotherUidIsNotFollowed) {
  TempDir tmp{"podlimits-claim"};
  const fs::path pods = tmp.path() / "state/pods";
  PodRecord r = SampleRecord(FakeRuntime(tmp.path()), tmp.path() / "root");
  r.uid = "other";
  fs::create_directories(pods / "u1");
  ASSERT_TRUE(WritePodRecord(pods / "u1", r));
  StalePodEnvironment env;
  env.state_dir = tmp.path() / "state";
  env.hierarchies = [&] { return PidsTree(tmp.path()); };
  auto cleanups = CleanUpStalePods(env, "");
  ASSERT_EQ(cleanups.size(), 1u);
  EXPECT_FALSE(cleanups[0].ok());
  EXPECT_EQ(cleanups[0].ToEvent().reason, "OrphanedPodCleanupFailed");
  EXPECT_TRUE(fs::exists(pods / "u1/pod.json"));
  EXPECT_FALSE(fs::exists(tmp.path() / "calls"));
}

// A run between the open and the flock of its claim has a lock file and no pod directory yet:
// another run's cleanup must not take that lock (it did, and a pod of 1,000 started at once was
// refused with PodUIDInUse naming another pod's monitor). Only an old orphan lock file goes.
TEST(StalePods, AFreshLockFileWithoutADirectoryIsLeftAlone) {
  TempDir tmp{"podlimits-claim"};
  const fs::path pods = tmp.path() / "state/pods";
  fs::create_directories(pods);
  WriteText(pods / "starting.lock", "");
  WriteText(pods / "orphan.lock", "pid 999999\nstart 1\n");
  fs::last_write_time(pods / "orphan.lock",
                      fs::file_time_type::clock::now() - std::chrono::minutes(5));
  StalePodEnvironment env;
  env.state_dir = tmp.path() / "state";
  env.hierarchies = [&] { return PidsTree(tmp.path()); };
  EXPECT_TRUE(CleanUpStalePods(env, "").empty());
  EXPECT_TRUE(fs::exists(pods / "starting.lock"));
  EXPECT_FALSE(fs::exists(pods / "orphan.lock")) << "an old orphan goes with the claim's release";
}

TEST(PodClaimTest, PatienceWaitsForABriefHolder) {
  TempDir tmp{"podlimits-claim"};
  const fs::path pods = tmp.path() / "pods";
  auto brief = PodClaim::Acquire(pods, "u1");
  ASSERT_TRUE(brief);
  auto impatient = PodClaim::Acquire(pods, "u1");
  ASSERT_FALSE(impatient);
  EXPECT_EQ(impatient.error().reason, kPodUIDInUse);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    brief->Release();
  });
  auto patient = PodClaim::Acquire(pods, "u1", std::chrono::seconds(5));
  release.join();
  EXPECT_TRUE(patient) << patient.error().Message();
}

}  // namespace
}  // namespace podlimits::kubelet
