# shellcheck shell=sh
# containerd behind its CRI plugin in the guest, for the scripts that drive it with tests/cri/go
# (tests/cri-containerd2.sh and cri-containerd17.sh, tests/serve-vs-cri.sh; sourced after
# lib.sh): its own root, state and sockets under $CTRD, the images the CRI program uses, and the
# cgroup the pods go under. The caller writes $CTRD/config.toml, starting with cri_base_config.
CTRD=$W/containerd
# The sandbox image the callers pin in their configuration (cri-images.tar has it).
# shellcheck disable=SC2034
pause=registry.k8s.io/pause:podlimits-test

cri_base_config() {  # cri_base_config VERSION: the paths and sockets, on stdout
  cat <<EOF
version = $1
root = "$CTRD/root"
state = "$CTRD/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]
[grpc]
  address = "$CTRD/containerd.sock"
[ttrpc]
  address = "$CTRD/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$CTRD/opt"
EOF
}

# cri_start: writes $CTRD/ctl (start|stop, as tests/cri/run has it: the Go program restarts
# containerd with it), starts containerd with $CTRD/config.toml, imports cri-images.tar and makes
# /sys/fs/cgroup/kubepods-cri with the pids controller. The shim finds podlimits-runc's
# configuration through PODLIMITS_RUNC_CONFIG when $CTRD/runc.yaml is there.
cri_start() {
  cat >"$CTRD/ctl" <<EOF
#!/bin/sh
case \$1 in
start)
  PODLIMITS_RUNC_CONFIG=$CTRD/runc.yaml PATH=$PATH containerd --config $CTRD/config.toml >>$CTRD/log 2>&1 &
  echo \$! >$CTRD/pid
  i=0
  until ctr -a $CTRD/containerd.sock version >/dev/null 2>&1; do
    kill -0 \$(cat $CTRD/pid) 2>/dev/null || { tail -n 20 $CTRD/log >&2; exit 1; }
    [ \$i -lt 300 ] || { echo "containerd did not answer in 60 s" >&2; exit 1; }
    sleep 0.2; i=\$((i + 1))
  done ;;
stop)
  pid=\$(cat $CTRD/pid)
  kill -TERM \$pid
  i=0
  while kill -0 \$pid 2>/dev/null && [ \$i -lt 100 ]; do sleep 0.2; i=\$((i + 1)); done
  kill -0 \$pid 2>/dev/null && kill -KILL \$pid
  : >$CTRD/pid ;;
esac
EOF
  chmod +x "$CTRD/ctl"
  "$CTRD/ctl" start || fail "containerd did not start: $(tail -n 3 "$CTRD/log" | one_line)"
  ctr -a "$CTRD/containerd.sock" -n k8s.io images import "$E2E/cri-images.tar" >"$CTRD/import.log" 2>&1 \
    || fail "ctr images import: $(one_line <"$CTRD/import.log")"
  echo +pids >/sys/fs/cgroup/cgroup.subtree_control
  mkdir /sys/fs/cgroup/kubepods-cri
  echo +pids >/sys/fs/cgroup/kubepods-cri/cgroup.subtree_control
}

# cri_stop_containerd: containerd stopped (if cri_start started it) and what it left in /run and
# the cgroup tree removed; for the callers' EXIT traps.
cri_stop_containerd() {
  if [ -s "$CTRD/pid" ]; then
    pid=$(cat "$CTRD/pid")
    kill -TERM "$pid" 2>/dev/null
    i=0
    while alive "$pid" && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
    : >"$CTRD/pid"
  fi
  rmdir /sys/fs/cgroup/kubepods-cri 2>/dev/null
  rm -rf /run/containerd
  return 0
}
