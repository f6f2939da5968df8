# e2e-timeout: 1500
# e2e-benchmark: only when named (a benchmark, not a test: `tests/e2e/run` and ctest's e2e leave
# it out; bench/serve_vs_cri.sh runs it)
# `podlimits serve`'s create -> Running of a one-container busybox pod against the CRI calls a
# kubelet makes to containerd 2.x for the same pod (RunPodSandbox + CreateContainer +
# StartContainer), side by side in this guest, interleaved, from one client process: tests/cri/go
# with -serve (serve.go says what each side includes). Both on runc (containerd 2 writes
# runtime-spec 1.2, which Debian 12's crun refuses; serve is told `runtime: {name: runc}`), both
# pods on the host network. Rounds: serve_vs_cri.rounds=N on the kernel command line
# (E2E_APPEND), default 20. The figures go to the console (bench: lines).
rounds=$(sed -n 's/.*serve_vs_cri\.rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
rounds=${rounds:-20}
. "$E2E/cri_containerd.sh"
PATH=/opt/containerd-2:$PATH
data=$W/serve
serve_pid=

finish() {
  set +e
  # --drain-on-exit: serve stops what it still runs before it exits.
  if [ -n "$serve_pid" ]; then
    kill -TERM "$serve_pid" 2>/dev/null
    i=0
    while alive "$serve_pid" && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
  fi
  cri_stop_containerd
}
trap finish EXIT

# containerd 2.x with its defaults (the runc handler) but for its paths and the local pause image.
mkdir -p "$CTRD" "$W/logs"
{
  cri_base_config 3
  printf '%s\n' "[plugins.'io.containerd.cri.v1.images'.pinned_images]" "  sandbox = '$pause'"
} >"$CTRD/config.toml"
cri_start

# podlimits serve on a scratch data directory, with the same busybox image in its own store.
mkdir -p "$data"
podlimits image --data-dir "$data" load /e2e/busybox-oci --name busybox:latest >/dev/null ||
  fail "podlimits image load failed"
printf '%s\n' 'apiVersion: podlimits.dev/v1alpha1' 'kind: NodeConfiguration' \
  "stateDirectory: $W/state" 'runtime: {name: runc}' >"$W/node.yaml"
port=16443
podlimits serve --data-dir "$data" --listen "127.0.0.1:$port" --node-config "$W/node.yaml" \
  --drain-on-exit >"$W/serve.log" 2>&1 &
serve_pid=$!
i=0
until grep -qs 'listening on' "$W/serve.log"; do
  alive "$serve_pid" || fail "podlimits serve exited: $(tail -n 3 "$W/serve.log" | one_line)"
  [ $i -lt 600 ] || fail "podlimits serve did not listen in 120 s"
  sleep 0.2; i=$((i + 1))
done

rc=0
"$E2E/bin/cri-pods" -endpoint "unix://$CTRD/containerd.sock" -handler "" \
  -cgroup-mode v2 -nsdelegate=true -hierarchy /sys/fs/cgroup -cgroup-base /kubepods-cri \
  -log-dir "$W/logs" -state "$CTRD/state" -containerd-pid-file "$CTRD/pid" -timeout 1400s \
  -bench "$rounds" -serve "https://127.0.0.1:$port" -serve-pki "$data/pki" >"$W/bench.out" 2>&1 || rc=$?
# The figures, whole, on the console, where bench/serve_vs_cri.sh reads them.
{ echo "----- serve-vs-cri: $rounds rounds -----"; cat "$W/bench.out"; echo "----- end of serve-vs-cri -----"; } \
  >/dev/console 2>&1 || true
[ $rc = 0 ] || fail "cri-pods: $(grep -E '^(cri-pods|FAIL)' "$W/bench.out" | head -n 3 | one_line)"
detail "$(grep '^bench: serve / cri' "$W/bench.out" | one_line)"
