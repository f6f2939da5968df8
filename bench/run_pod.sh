#!/usr/bin/env bash
# bench/run_pod.sh PODLIMITS [RUNS] [RUNTIME]: wall time of `podlimits run` of a one-container
# busybox pod running `true`, side by side with the bare OCI runtime (`RUNTIME run`) of a bundle
# with the same rootfs, namespaces and cgroup parent. Runs alternate (podlimits, bare, podlimits,
# ...) so both see the same machine load; prints each median and the ratio, and podlimits' own
# CPU and page faults per run (perf stat --no-inherit, when perf is there). Needs root.
# AGAINST=OTHER_PODLIMITS (e.g. main's binary) runs that one too, interleaved with the first in
# every round, and prints its figures beside them: an A/B comparison on one load. PERF_RUNS
# (default min(RUNS, 21)) is how many perf stat rounds measure the own CPU: one run's figure
# varies by half a millisecond on a shared machine, so a few tenths need some 80.
#
# The bare runtime runs in the same kind of mount namespace podlimits gives it (only the v1 pids
# hierarchy visible under /sys/fs/cgroup on a hybrid machine; crun refuses the hybrid layout).
set -euo pipefail
bin=$(realpath "$1"); runs=${2:-30}; rt=${3:-crun}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/podlimits-bench.XXXXXX)
cleanup() {
  rmdir /sys/fs/cgroup/pids/podlimits-bench/bare /sys/fs/cgroup/pids/podlimits-bench 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

scripts/build-busybox-image "$work/image" >/dev/null
# Each binary runs from a copy made here, the same way for both: the same bytes cost 0.4-0.6 ms
# more own CPU per run when executed from the file the linker wrote (or after its page cache was
# dropped and faulted back in) than from a `cp` of it, with the same 366 page faults
# (docs/benchmarks.md, 2026-11-29): the page cache's history of the file, not the code, would
# otherwise decide an A/B of two builds.
cp "$bin" "$work/podlimits"; shown_bin=$bin; bin=$work/podlimits
"$bin" image --image-root "$work/images" load "$work/image/busybox-oci" --name busybox:latest >/dev/null
rootfs=$(ls -d "$work"/images/*/rootfs | head -1)

cat >"$work/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: bench}
spec:
  restartPolicy: Never
  containers: [{name: app, image: "busybox:latest", command: ["true"]}]
YAML
cat >"$work/node.yaml" <<YAML
apiVersion: podlimits.dev/v1alpha1
kind: NodeConfiguration
runtime: {name: $rt}
stateDirectory: $work/state
YAML

mkdir -p "$work/bundle"
# crun spec writes config.json into the bundle; adjust it to podlimits' shape.
(cd "$work/bundle" && crun spec >/dev/null 2>&1 || runc spec)
python3 - "$work/bundle/config.json" "$rootfs" <<'PY'
import json, sys
path, rootfs = sys.argv[1], sys.argv[2]
spec = json.load(open(path))
spec["root"] = {"path": rootfs, "readonly": True}
spec["process"]["args"] = ["true"]
spec["process"]["terminal"] = False
spec["process"].pop("rlimits", None)
spec["linux"]["cgroupsPath"] = "/podlimits-bench/bare"
# No device-cgroup rules: podlimits' specs have none (v1 would need the devices hierarchy).
spec["linux"].pop("resources", None)
ns = [{"type": t} for t in ("pid", "ipc", "uts", "mount", "network", "cgroup")]
spec["linux"]["namespaces"] = ns
spec["mounts"] = [m for m in spec["mounts"] if m["destination"] != "/sys/fs/cgroup"] + [
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
     "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}]
json.dump(spec, open(path, "w"))
PY

# The timing loop runs in one private mount namespace shaped like the one podlimits gives its
# runtime (only the v1 pids hierarchy under /sys/fs/cgroup on a hybrid machine), set up once, so
# the bare runtime's figure is `crun run` itself. podlimits makes its own namespace inside it.
shown_against=
if [ -n "${AGAINST:-}" ]; then
  shown_against=$(realpath "$AGAINST"); against=$work/podlimits-against
  cp "$shown_against" "$against"
fi
perf_runs=${PERF_RUNS:-$((runs < 21 ? runs : 21))}
unshare -m python3 - "$bin" "$work" "$rt" "$runs" "${against:-}" "$perf_runs" "$shown_bin" "$shown_against" <<'PY'
import os, statistics, subprocess, sys, time
bin, work, rt, runs, against = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
perf_runs = int(sys.argv[6])
shown = {bin: sys.argv[7], against: sys.argv[8]}
bins = [bin] + ([against] if against else [])
subprocess.run(["mount", "--make-rprivate", "/"], check=True)
# State on tmpfs for both, as /run is on a standard node (containerd's and crun's state live
# there too); this machine's /run is on its ext4 root, where every directory podlimits and crun
# create and remove costs milliseconds of journalling and discards.
os.makedirs(f"{work}/state", exist_ok=True)
os.makedirs(f"{work}/bare-state", exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", f"{work}/state"], check=True)
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", f"{work}/bare-state"], check=True)
if os.path.isdir("/sys/fs/cgroup/unified"):
    # Detached in this private namespace only (never on the machine), so that the mount table
    # podlimits reads here shows just the view.
    subprocess.run(["umount", "-R", "-l", "/sys/fs/cgroup"], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/sys/fs/cgroup"], check=True)
    os.mkdir("/sys/fs/cgroup/pids")
    subprocess.run(["mount", "-t", "cgroup", "-o", "pids", "cgroup", "/sys/fs/cgroup/pids"], check=True)
def podlimits(b):
    return [b, "run", "-f", f"{work}/pod.yaml", "--node-config", f"{work}/node.yaml",
            "--image-root", f"{work}/images"]
def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {r.stderr.decode()}")
    return t * 1000
# The same lifecycle podlimits drives (create, start, wait, delete), as a shim would, with this
# process as the container's subreaper so that it can wait for it.
import ctypes
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
steps = {"create": [], "start": [], "wait": [], "delete": []}
def lifecycle(i):
    rt_args = [rt, "--root", f"{work}/bare-state"]
    t0 = time.perf_counter()
    pidfile = f"{work}/bare.pid"
    subprocess.run(rt_args + ["create", "--bundle", f"{work}/bundle", "--pid-file", pidfile, f"life-{i}"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t1 = time.perf_counter()
    pid = int(open(pidfile).read())
    subprocess.run(rt_args + ["start", f"life-{i}"], check=True)
    t2 = time.perf_counter()
    os.waitpid(pid, 0)
    t3 = time.perf_counter()
    subprocess.run(rt_args + ["delete", "--force", f"life-{i}"], check=True)
    t4 = time.perf_counter()
    for name, a, b in (("create", t0, t1), ("start", t1, t2), ("wait", t2, t3), ("delete", t3, t4)):
        steps[name].append((b - a) * 1000)
    return (t4 - t0) * 1000
# Each measurement starts after a pause. Moving a process into a cgroup (the runtime's write to
# cgroup.procs) takes the kernel's cgroup_threadgroup_rwsem for writing, which waits for an RCU
# grace period (~5-15 ms on this machine) unless another migration happened within the last
# one: back to back, whichever command follows another's migration skips the wait, and the
# order of the loop would decide the ratio. After a pause every command pays it once, as a pod
# started on an idle node does.
def settled(measure):
    time.sleep(0.1)
    return measure()
p, b, l = {x: [] for x in bins}, [], []
for i in range(runs):  # interleaved, so all of them see the same load (A/B in turns: AB, BA, ...)
    for x in (bins if i % 2 == 0 else bins[::-1]):
        p[x].append(settled(lambda: timed(podlimits(x))))
    b.append(settled(lambda: timed([rt, "--root", f"{work}/bare-state", "run", "--bundle",
                                    f"{work}/bundle", f"bench-{i}"])))
    l.append(settled(lambda: lifecycle(i)))
mb, ml = statistics.median(b), statistics.median(l)
for x in bins:
    mp = statistics.median(p[x])
    print(f"podlimits run ({rt}) [{shown[x]}]: median {mp:.1f} ms, min {min(p[x]):.1f} ms over {runs} runs")
    print(f"  ratio to `{rt} run`: {mp / mb:.2f}x; to the same lifecycle: {mp / ml:.2f}x")
print(f"bare `{rt} run` of the same bundle: median {mb:.1f} ms, min {min(b):.1f} ms")
print(f"bare {rt} create/start/wait/delete: median {ml:.1f} ms, min {min(l):.1f} ms")
print("  its steps (medians): " + ", ".join(f"{k} {statistics.median(v):.1f} ms" for k, v in steps.items()))
# podlimits' own CPU (its process alone, not the runtime's it starts), as issue 30 measures it.
import shutil
if shutil.which("perf"):
    own, faults, diffs = {x: [] for x in bins}, {x: [] for x in bins}, []
    for i in range(perf_runs):
        this_round = {}
        for x in (bins if i % 2 == 0 else bins[::-1]):
            time.sleep(0.1)
            r = subprocess.run(["perf", "stat", "--no-inherit", "-x", ",", "-e", "task-clock,page-faults"]
                               + podlimits(x), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for line in r.stderr.splitlines():
                fields = line.split(",")
                if len(fields) > 2 and fields[2] == "task-clock":
                    own[x].append(float(fields[0]))
                    this_round[x] = float(fields[0])
                elif len(fields) > 2 and fields[2] == "page-faults":
                    faults[x].append(float(fields[0]))
        if against and bin in this_round and against in this_round:  # a pair only when both counted
            diffs.append(this_round[bin] - this_round[against])
    for x in bins:
        if own[x]:
            print(f"podlimits' own CPU (perf stat --no-inherit task-clock) [{shown[x]}]: median "
                  f"{statistics.median(own[x]):.2f} ms over {len(own[x])} runs, "
                  f"{statistics.median(faults[x]):.0f} page faults")
    if diffs:
        print(f"own CPU, {shown[bin]} minus {shown[against]}, paired by round: "
              f"median {statistics.median(diffs):+.2f} ms")
PY
