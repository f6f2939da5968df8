# e2e-timeout: 360
# tests/cri/go (the kubelet's own CRI client, k8s.io/cri-client) against containerd 2.x's CRI
# plugin on cgroup v2 with nsdelegate, with deploy/runc-wrapper/containerd-2.x.toml appended as
# it is but for SystemdCgroup (false: the guest has no systemd; it must match the kubelet's
# cgroupDriver). Over runc: containerd 2 writes runtime-spec 1.2, which Debian 12's crun 1.8
# refuses. What tests/cri/run checks on the hybrid host, and here what only v2 has: the pod
# cgroup's pids.max lowered to the pod's limit, the writable cgroup mount with its
# descendant/depth bounds. A containerd restart in the middle; nothing left at the end.
#
# Two passes on the one containerd (started and loaded once): the wrapper's (runtime handler
# "podlimits"), then the NRI plugin's: `podlimits nri` registered on containerd 2's NRI socket
# (on by default in 2.x), the pods on the default handler, the same checks plus what only NRI needs
# shown (tests/cri/go/nri.go: registered again after the restart, the next pod adjusted, a pod
# without annotations untouched).
#
# cri-containerd17.sh runs this with CRI_LINE=1.7: containerd 1.7 (Debian 13's, in
# /opt/containerd-1.7), config version 2, deploy/runc-wrapper's
# containerd-1.6-1.7.toml and deploy/nri/containerd-1.7.toml (which turns NRI on) appended.
CRI_LINE=${CRI_LINE:-2}
. "$E2E/cri_containerd.sh"
PATH=/opt/containerd-$CRI_LINE:/opt/containerd-2:$PATH

cri_stop() {
  set +e
  cri_stop_containerd
  if [ -s "$CTRD/nri.pid" ]; then
    kill -TERM "$(cat "$CTRD/nri.pid")" 2>/dev/null
    : >"$CTRD/nri.pid"
  fi
  rm -rf /run/nri /var/run/nri /usr/local/bin/podlimits /usr/local/bin/podlimits-runc
  rm -f "/run/podlimits/runc-front/$(printf '%s' "$CTRD/runc.yaml" | sed 's|%|%25|g; s|/|%2F|g')"
  rmdir /run/podlimits/runc-front /run/podlimits 2>/dev/null
  return 0
}
trap cri_stop EXIT

mkdir -p "$CTRD" /usr/local/bin
# Where deploy/runc-wrapper installs them, and where the snippet's BinaryName points.
ln -sf /usr/bin/podlimits /usr/local/bin/podlimits
ln -sf /usr/bin/podlimits-runc /usr/local/bin/podlimits-runc
printf 'runtime: /usr/bin/runc\n' >"$CTRD/runc.yaml"
{
  cri_base_config "$([ "$CRI_LINE" = 2 ] && echo 3 || echo 2)"
  if [ "$CRI_LINE" = 2 ]; then
    printf '%s\n' "[plugins.'io.containerd.cri.v1.images'.pinned_images]" "  sandbox = '$pause'"
    sed 's/^\( *SystemdCgroup = \)true$/\1false/' "$E2E/deploy/containerd-2.x.toml"
  else
    # 1.7 keeps none of its default runtimes once a file names one (tests/cri/run says more).
    printf '%s\n' '[plugins."io.containerd.grpc.v1.cri"]' "  sandbox_image = \"$pause\"" \
      '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]' \
      '  runtime_type = "io.containerd.runc.v2"'
    sed 's/^\( *SystemdCgroup = \)true$/\1false/' "$E2E/deploy/containerd-1.6-1.7.toml"
    cat "$E2E/deploy/nri-containerd-1.7.toml"
  fi
} >"$CTRD/config.toml"
grep -q 'SystemdCgroup = false' "$CTRD/config.toml" || fail "the snippet has no SystemdCgroup line"

cri_start
mkdir -p "$W/logs"
# runc#4195 (tests/cri/run says more): the 1.1 line built with Go >= 1.19.
race=false
if /usr/bin/runc --version | grep -q '^runc version 1\.[01]\.' &&
  /usr/bin/runc --version | grep -Eq '^go: go1\.(19|[2-9][0-9])'; then
  race=true
fi
# cri_pass NAME HANDLER [FLAG...]: the CRI program once, its output in $W/cri-NAME.out.
cri_pass() {
  name=$1 handler=$2
  shift 2
  rc=0
  "$E2E/bin/cri-pods" -endpoint "unix://$CTRD/containerd.sock" -handler "$handler" "$@" \
    -cgroup-mode v2 -nsdelegate=true -hierarchy /sys/fs/cgroup -cgroup-base /kubepods-cri \
    -log-dir "$W/logs" -state "$CTRD/state" -containerd-pid-file "$CTRD/pid" \
    -nofile-ceiling "$(cat /proc/sys/fs/nr_open)" -runc-exec-nofile-race=$race -timeout 200s \
    -restart "$CTRD/ctl stop && $CTRD/ctl start" >"$W/cri-$name.out" 2>&1 || rc=$?
  cat "$W/cri-$name.out" >&2
  [ $rc = 0 ] || fail "$name: $(grep -E '^(FAIL|cri-pods:)' "$W/cri-$name.out" | head -n 3 | one_line)"
}
cri_pass wrapper podlimits

# `podlimits nri` as deploy/nri runs it (the node's binary, the NRI socket), with
# deploy/nri/10-config.yaml's settings but defaultUlimits (a pod without annotations must be left
# as the runtime makes it).
printf 'pluginName: podlimits\npluginIndex: "90"\nwritableCgroups: {maxDescendants: 250, maxDepth: 50}\n' \
  >"$CTRD/nri.yaml"
/usr/bin/podlimits nri --config "$CTRD/nri.yaml" --socket /var/run/nri/nri.sock >"$CTRD/nri.log" 2>&1 &
echo $! >"$CTRD/nri.pid"
wait_line "$CTRD/nri.log" 'configured by containerd' 30
cri_pass nri "" -nri-log "$CTRD/nri.log"
cri_stop
detail "wrapper: $(grep '^cri: ' "$W/cri-wrapper.out" | one_line); nri: $(grep '^cri: ' "$W/cri-nri.out" | one_line), $(grep '^cri-pods: ' "$W/cri-nri.out" | cut -d' ' -f2-3)"
