// The cgroup view `crun exec` needs on cgroup v1.
//
// crun 1.8.1's exec reads /sys/fs/cgroup/freezer/<container cgroup>/freezer.state to refuse a
// paused container, and fails when it cannot (`error opening file .../freezer.state: No such
// file or directory`). podlimits' runtime mount namespace shows no freezer hierarchy on purpose
// (podlimits never creates cgroups outside the hierarchies it manages), so an exec there gets a
// view of its own: a thread enters a private copy of the runtime mount namespace in which
// /sys/fs/cgroup is a fresh tmpfs holding the same hierarchies (moved over with open_tree) plus a
// plain directory freezer/<cgroup>/ whose freezer.state says THAWED, which is true: nothing in
// podlimits freezes containers. The exec'd process joins the real pids cgroup; crun's write to
// the fake freezer's cgroup.procs lands in that tmpfs. The view dies with the exec.
#pragma once

#include <functional>
#include <string>

#include "base/error.h"

namespace podlimits::cri {

// Whether this mount namespace needs the view: a v1 layout (no cgroup.controllers at
// /sys/fs/cgroup) without a freezer hierarchy.
bool ExecNeedsFreezerView();

// Runs `fn` on a new thread inside the view for `cgroup_path` (linux.cgroupsPath of the
// container, "/kubepods/besteffort/pod<uid>/<id>"), and waits for it. Errors name the step.
Result<void> RunInFreezerView(const std::string& cgroup_path, const std::function<void()>& fn);

}  // namespace podlimits::cri
