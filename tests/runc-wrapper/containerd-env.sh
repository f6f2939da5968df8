# shellcheck shell=bash
# A containerd of its own for podlimits-runc's test and benchmark (sourced by tests/runc-wrapper/run
# and bench/runc_wrapper_overhead.sh, after they set $bin to the podlimits binary and $project,
# and checked for root). Debian 12's containerd 1.6 (or RUNC_WRAPPER_CONTAINERD's, below) with its
# root, state, sockets, runc root and fifos in a scratch directory, in a private mount namespace whose /sys/fs/cgroup shows only the
# hierarchies podlimits manages (the pids hierarchy on a v1 or hybrid host, as
# reference/environment.md describes; on a v2 host the unified tree) and whose /run is its own.
# An EXIT trap ends every process it started (by pid) and removes every cgroup and file it made.
#
# Provides: ctr_ (ctr on that socket), run_ctr NAME KEY=VALUE... -- COMMAND... ($out, $rc),
# container NAME / sandbox (the CRI plugin's annotations of pod default/web), limit_row, fail,
# $mode (v1 | v2), $cgroup_base, $pod_cgroup, $work, $runtime, $front (yes when the front runs).
# The containerd: the machine's, or the one in RUNC_WRAPPER_CONTAINERD=DEST/<line>, fetched there
# by scripts/fetch-containerd DEST when missing (containerd 1.7 and 2.x from Debian's archive).
if [ -n "${RUNC_WRAPPER_CONTAINERD:-}" ]; then
  [ -x "$RUNC_WRAPPER_CONTAINERD/containerd" ] \
    || "$project/scripts/fetch-containerd" "$(dirname "$RUNC_WRAPPER_CONTAINERD")"
  [ -x "$RUNC_WRAPPER_CONTAINERD/containerd" ] \
    || { echo "no containerd in $RUNC_WRAPPER_CONTAINERD (scripts/fetch-containerd)" >&2; exit 1; }
  PATH=$(realpath "$RUNC_WRAPPER_CONTAINERD"):$PATH
fi
for tool in containerd ctr containerd-shim-runc-v2 unshare busybox python3; do
  command -v "$tool" >/dev/null || { echo "$tool not found (scripts/install-deps)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/podlimits-runcwrap.XXXXXX)
tag=plrw$$
containerd_pid=""
cgroup_dirs=()  # pod cgroups this test made, deepest last

fail() { echo "FAIL $*" >&2; exit 1; }

# Processes this run started (containerd and the shims it spawned) are found by the scratch
# directory in their command line, and ended by pid. A process may end between the glob and the
# read: the redirection's error is silenced too.
our_pids() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    if tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -qF "$work"; then echo "$p"; fi
  done
}

cleanup() {
  set +e
  if [ -n "$containerd_pid" ] && kill -0 "$containerd_pid" 2>/dev/null; then
    for id in $(ctr_ c ls -q 2>/dev/null); do
      ctr_ t kill -s KILL "$id" >/dev/null 2>&1; sleep 0.1
      ctr_ t rm -f "$id" >/dev/null 2>&1; ctr_ c rm "$id" >/dev/null 2>&1
    done
    kill -TERM "$containerd_pid"; wait "$containerd_pid" 2>/dev/null
  fi
  for p in $(our_pids); do kill -KILL "$p" 2>/dev/null; done
  # Whatever a failed case left below the pod cgroup first (its processes are ours), then ours.
  local d i
  if [ -d "$cgroup_base/$tag" ]; then
    for d in $(find "$cgroup_base/$tag" -mindepth 1 -depth -type d); do
      for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
      rmdir "$d" 2>/dev/null || { sleep 0.2; rmdir "$d"; }
    done
  fi
  for ((i = ${#cgroup_dirs[@]} - 1; i >= 0; i--)); do rmdir "${cgroup_dirs[$i]}" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

# --- the cgroup view ----------------------------------------------------------------------------
mode=v2
if ! grep -q ' /sys/fs/cgroup cgroup2 ' /proc/self/mountinfo; then
  mode=v1
fi
if [ "$mode" = v1 ]; then
  pids_root=$(awk '$9 == "cgroup" && $5 ~ /^\/sys\/fs\/cgroup\// && $NF ~ /(^|,)pids(,|$)/ {print $5; exit}' /proc/self/mountinfo)
  [ -n "$pids_root" ] || fail "no cgroup v1 pids hierarchy on this v1/hybrid host"
  cgroup_base=$pids_root
else
  cgroup_base=/sys/fs/cgroup
fi
nsdelegate=no
grep ' /sys/fs/cgroup cgroup2 ' /proc/self/mountinfo | grep -q nsdelegate && nsdelegate=yes

# --- the rootfs, the wrapper and containerd -------------------------------------------------------
mkdir -p "$work/rootfs/bin" "$work/rootfs/"{proc,sys,dev,tmp,etc} "$work/bin"
cp "$(command -v busybox)" "$work/rootfs/bin/busybox"
for applet in sh cat grep mount mkdir ls sleep true; do ln -s busybox "$work/rootfs/bin/$applet"; done
# The front (src/runcwrap/front) when the build made one beside the binary, else the binary
# itself under the name podlimits-runc: both are ways to install it (docs/runc-wrapper.md).
if [ -f "$(dirname "$bin")/podlimits-runc" ] && [ ! -L "$(dirname "$bin")/podlimits-runc" ]; then
  front=yes
  ln -s "$(dirname "$bin")/podlimits-runc" "$work/bin/podlimits-runc"
else
  front=no
  ln -s "$bin" "$work/bin/podlimits-runc"
fi
runtime=${RUNC_WRAPPER_RUNTIME:-$(command -v crun || command -v runc)}
printf 'runtime: %s\n' "$runtime" > "$work/runc.yaml"

sed "s|@DIR@|$work|g" "$here/containerd.toml" > "$work/config.toml"

# On v1 / hybrid hosts only the pids hierarchy is shown (crun refuses a hybrid layout, and
# nothing may touch the others, memory above all); the mounts die with the namespace.
view='set -e
if [ "$MODE" = v1 ]; then
  # Detached, not only covered: runc and the shim find hierarchies in /proc/self/mountinfo.
  for mp in $(awk '"'"'$5 ~ "^/sys/fs/cgroup(/|$)" {print $5}'"'"' /proc/self/mountinfo | sort -r); do
    umount -l "$mp"
  done
  mount -t tmpfs -o mode=0755 podlimits-cgroup-view /sys/fs/cgroup
  mkdir /sys/fs/cgroup/pids
  mount -t cgroup -o pids cgroup /sys/fs/cgroup/pids
fi
# The shims put their sockets in /run/containerd/s whatever the configuration says: a /run of
# the namespace alone keeps the /run of the machine as it was.
mount -t tmpfs -o mode=0755 podlimits-run /run
exec containerd --config "$WORK/config.toml"'
MODE=$mode WORK=$work PODLIMITS_RUNC_CONFIG=$work/runc.yaml \
  unshare -m --propagation private bash -c "$view" > "$work/containerd.log" 2>&1 &
containerd_pid=$!
ctr_() { ctr -a "$work/containerd.sock" "$@"; }
for _ in $(seq 100); do
  ctr_ version >/dev/null 2>&1 && break
  kill -0 "$containerd_pid" 2>/dev/null || { cat "$work/containerd.log" >&2; fail "containerd did not start"; }
  sleep 0.1
done
ctr_ version >/dev/null || fail "containerd did not answer"

# The pod cgroup the kubelet would have made, in the managed hierarchy.
pod_cgroup=/$tag/pod1
mkdir -p "$cgroup_base$pod_cgroup"; cgroup_dirs+=("$cgroup_base/$tag" "$cgroup_base$pod_cgroup")
if [ "$mode" = v2 ]; then
  echo +pids > "$cgroup_base/$tag/cgroup.subtree_control" 2>/dev/null || true
fi

# The OCI spec ctr hands the shim: ctr's default spec with the CRI plugin's annotations, the
# rootfs and the command. On a v1/hybrid host the device rules are dropped: they live in the v1
# devices hierarchy, which podlimits never touches, so the view hides it (a real v1 node has it).
# containerd 1.7 and 2.x write runtime-spec 1.2 (ociVersion 1.2.x), which Debian 12's crun 1.8
# refuses ("unknown version specified") whoever calls it: with a runtime that declares an older
# spec, the spec says that version, as a node pairing them would need. podlimits-runc passes
# ociVersion through untouched either way.
ctr oci spec > "$work/default-spec.json"
runtime_spec=$("$runtime" --version | sed -n 's/^spec: *//p')
spec_for() {  # spec_for NAME KEY=VALUE... -- COMMAND...  > config.json
  python3 - "$work/default-spec.json" "$work/rootfs" "$pod_cgroup/$1" "$mode" "$runtime_spec" "${@:2}" <<'PY'
import json, sys
base, rootfs, cgroup, mode, runtime_spec = sys.argv[1:6]
rest = sys.argv[6:]
split = rest.index("--")
spec = json.load(open(base))
if runtime_spec.startswith("1.0") and not spec["ociVersion"].startswith("1.0"):
    spec["ociVersion"] = runtime_spec
spec["root"] = {"path": rootfs}
spec["process"]["args"] = rest[split + 1:]
spec["process"]["env"] = ["PATH=/bin"]
spec["linux"]["cgroupsPath"] = cgroup
if mode == "v1":
    spec["linux"].get("resources", {}).pop("devices", None)
annotations = dict(a.split("=", 1) for a in rest[:split])
if annotations:
    spec["annotations"] = annotations
json.dump(spec, sys.stdout)
PY
}

# run_ctr NAME KEY=VALUE... -- COMMAND...: runs a container through the wrapper with these
# annotations; its output (and ctr's) is in $out, ctr's exit status in $rc, its wall time in
# microseconds in $ctr_us.
n=0
run_ctr() {
  local name=$1
  n=$((n + 1))
  spec_for "$@" > "$work/spec-$name.json"
  set +e
  local t0
  t0=$(date +%s%N)
  out=$(ctr_ run --rm --config "$work/spec-$name.json" --fifo-dir "$work/fifo" \
          --runc-root "$work/runc" --runc-binary "${RUNC_BINARY:-$work/bin/podlimits-runc}" \
          "$tag-$name" 2>&1)
  rc=$?
  ctr_us=$(( ($(date +%s%N) - t0) / 1000 ))
  set -e
}
container() {  # the annotations containerd's CRI plugin puts on a container of pod default/web
  echo io.kubernetes.cri.container-type=container io.kubernetes.cri.container-name="$1" \
       io.kubernetes.cri.sandbox-name=web io.kubernetes.cri.sandbox-namespace=default
}
sandbox() {
  echo io.kubernetes.cri.container-type=sandbox \
       io.kubernetes.cri.sandbox-name=web io.kubernetes.cri.sandbox-namespace=default
}
limit_row() {  # limit_row "Max open files": "soft hard" from $out
  awk -v name="$1" 'index($0, name) == 1 { rest = substr($0, length(name) + 1); split(rest, f, " +"); print f[2], f[3] }' <<<"$out"
}
