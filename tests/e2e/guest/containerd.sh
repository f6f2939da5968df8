# shellcheck shell=sh
# containerd in the guest for podlimits-runc's tests (sourced by tests/runc-wrapper-*.sh and
# webhook-to-ctr.sh after lib.sh). Debian 12's containerd 1.6, or with CTRD_LINE=2 the containerd
# 2.x of Debian unstable (/opt/containerd-2: containerd, its runc shim and ctr, which
# build-initramfs takes from scripts/fetch-containerd), with its own root, state, sockets, runc
# root and fifos under $W; the busybox rootfs for `ctr run --rootfs`; and the pod cgroup a
# kubelet would have made. Everything it starts or makes is undone by ctrd_stop (an EXIT trap).
CTRD=$W/containerd
CTRD_PID=
CTRD_CGROUPS=""  # cgroups made here, deepest last

ctr_() { ctr -a "$CTRD/containerd.sock" "$@"; }

ctrd_start() {  # ctrd_start RUNTIME: containerd whose shims run podlimits-runc over RUNTIME
  if [ -n "${CTRD_LINE:-}" ]; then
    [ -x "/opt/containerd-$CTRD_LINE/containerd" ] || fail "containerd $CTRD_LINE is not in the guest (build-initramfs)"
    # containerd, the shim it starts and ctr_ all come from there.
    PATH=/opt/containerd-$CTRD_LINE:$PATH
  fi
  command -v containerd >/dev/null || fail "containerd is not in the guest (build-initramfs)"
  mkdir -p "$CTRD/rootfs/bin" "$CTRD/rootfs/proc" "$CTRD/rootfs/sys" "$CTRD/rootfs/dev" "$CTRD/rootfs/tmp"
  cp /bin/busybox "$CTRD/rootfs/bin/busybox"
  for a in sh cat grep mkdir rmdir sleep true head; do ln -s busybox "$CTRD/rootfs/bin/$a"; done
  printf 'runtime: %s\n' "$1" >"$CTRD/runc.yaml"
  sed "s|@DIR@|$CTRD|g" "$E2E/containerd.toml" >"$CTRD/config.toml"
  PODLIMITS_RUNC_CONFIG=$CTRD/runc.yaml containerd --config "$CTRD/config.toml" >"$CTRD/log" 2>&1 &
  CTRD_PID=$!
  trap ctrd_stop EXIT
  i=0
  until ctr_ version >/dev/null 2>&1; do
    alive "$CTRD_PID" || fail "containerd exited: $(tail -n 3 "$CTRD/log" | one_line)"
    [ $i -lt 150 ] || fail "containerd did not answer in 30 s"
    sleep 0.2; i=$((i + 1))
  done
  CTRD_VERSION=$(ctr_ version | sed -n 's/^ *Version: *//p' | tail -n 1)
  log "containerd $CTRD_VERSION on $CTRD/containerd.sock"
}

ctrd_stop() {
  set +e
  if [ -n "$CTRD_PID" ]; then
    for id in $(ctr_ c ls -q 2>/dev/null); do
      ctr_ t kill -s KILL "$id" >/dev/null 2>&1; sleep 0.2
      ctr_ t rm -f "$id" >/dev/null 2>&1; ctr_ c rm "$id" >/dev/null 2>&1
    done
    kill -TERM "$CTRD_PID" 2>/dev/null
    i=0
    while alive "$CTRD_PID" && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
    CTRD_PID=
  fi
  for cg in $(echo "$CTRD_CGROUPS" | tr ' ' '\n' | sed '/^$/d' | sort -r); do rmdir "$cg" 2>/dev/null; done
  CTRD_CGROUPS=""
  rmdir /run/containerd/s /run/containerd 2>/dev/null
  # podlimits-runc's record for this containerd's runc.yaml (docs/runc-wrapper.md, "The front"):
  # a node keeps one per configuration file; this one's file goes with the test.
  rm -f "/run/podlimits/runc-front/$(printf '%s' "$CTRD/runc.yaml" | sed 's|%|%25|g; s|/|%2F|g')"
  rmdir /run/podlimits/runc-front 2>/dev/null
  return 0
}

# The pod cgroup the kubelet makes before the sandbox (cgroupfs driver), with its podPidsLimit;
# POD_CGROUP is its path relative to the cgroup2 root.
make_pod_cgroup() {  # make_pod_cgroup UID PIDS_MAX
  echo +pids >/sys/fs/cgroup/cgroup.subtree_control
  if [ ! -d /sys/fs/cgroup/kubepods ]; then
    mkdir /sys/fs/cgroup/kubepods; CTRD_CGROUPS="$CTRD_CGROUPS /sys/fs/cgroup/kubepods"
  fi
  echo +pids >/sys/fs/cgroup/kubepods/cgroup.subtree_control
  mkdir "/sys/fs/cgroup/kubepods/pod$1"; CTRD_CGROUPS="$CTRD_CGROUPS /sys/fs/cgroup/kubepods/pod$1"
  echo "$2" >"/sys/fs/cgroup/kubepods/pod$1/pids.max"
  POD_CGROUP=/kubepods/pod$1
}

# ctr_run POD_CGROUP ID ANNOTATION... -- COMMAND...: a container through podlimits-runc, removed
# when it exits; its output and ctr's in $W/ID.out, ctr's status in CTR_RC.
ctr_run() {
  _cg=$1 _id=$2
  shift 2
  _ann=""
  while [ "$1" != -- ]; do _ann="$_ann --annotation $1"; shift; done
  shift
  CTR_RC=0
  log "ctr run --runc-binary podlimits-runc --cgroup $_cg/$_id$_ann $_id $*"
  # shellcheck disable=SC2086
  ctr_ run --rm --rootfs --env PATH=/bin --fifo-dir "$CTRD/fifo" --runc-root "$CTRD/runc" \
    --runc-binary /usr/bin/podlimits-runc --cgroup "$_cg/$_id" $_ann \
    "$CTRD/rootfs" "$_id" "$@" >"$W/$_id.out" 2>&1 || CTR_RC=$?
  log "exit status $CTR_RC: $(head -c 400 "$W/$_id.out" | one_line)"
}

# The annotations containerd's CRI plugin puts on the bundles of pod NAMESPACE/NAME.
cri_sandbox() { echo "io.kubernetes.cri.container-type=sandbox io.kubernetes.cri.sandbox-name=$2 io.kubernetes.cri.sandbox-namespace=$1"; }
cri_container() { echo "io.kubernetes.cri.container-type=container io.kubernetes.cri.container-name=$3 io.kubernetes.cri.sandbox-name=$2 io.kubernetes.cri.sandbox-namespace=$1"; }

limit_of() {  # limit_of FILE "Max open files": "SOFT HARD" of that /proc/self/limits row
  awk -v name="$2" 'index($0, name) == 1 { rest = substr($0, length(name) + 1); n = split(rest, f, " +"); print f[2], f[3] }' "$1"
}
