#!/bin/sh
# bench/informer_sync.sh PODLIMITS_BINARY [informer-sync flags...]: a client-go informer's
# initial sync (client-go's defaults: watch-list) of 1,000 pods against `podlimits serve`, in
# JSON and in protobuf side by side, median of 9 rounds each (bench/informer_sync/main.go).
# Go and client-go from scripts/fetch-go-clients, as tests/clients/run has them. Needs root, as
# serve does; run it alone (flock /tmp/podlimits-integration.lock ...).
#
# -floor (e.g. `bench/informer_sync.sh BINARY -floor -rounds 21`): the client's own floor. One
# sync per encoding against serve is recorded (the responses' bytes as client-go read them) and
# replayed by an in-process HTTPS server on loopback that answers at once; each round then times,
# interleaved, the informer against serve, the same informer against the replay, and client-go's
# bare decoding of the recorded watch body in memory (bench/informer_sync/floor.go).
set -u
export LC_ALL=C
die() { echo "informer_sync: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: bench/informer_sync.sh PODLIMITS_BINARY [flags...]"
bin=$1
shift
case $bin in (/*) ;; (*) bin=$(pwd)/$bin ;; esac
[ -x "$bin" ] || die "$bin is not an executable"
[ "$(id -u)" = 0 ] || die "needs root (serve runs pods in cgroups)"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cache=${PODLIMITS_GO_CLIENTS:-${XDG_CACHE_HOME:-$HOME/.cache}/podlimits/go-clients}
"$root/scripts/fetch-go-clients" "$cache" || die "scripts/fetch-go-clients $cache failed"
# shellcheck disable=SC1091
. "$cache/env"
work=$(mktemp -d "${TMPDIR:-/tmp}/podlimits-informer-sync.XXXXXX") || die "mktemp failed"
serve_pid=
finish() {
  if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill -TERM "$serve_pid" 2>/dev/null
    i=0
    while kill -0 "$serve_pid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  fi
  rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
(cd "$here/informer_sync" && go build -o "$work/informer-sync" .) || die "building the benchmark failed"
cat >"$work/node.yaml" <<EOT
apiVersion: podlimits.dev/v1alpha1
kind: NodeConfiguration
stateDirectory: $work/state
EOT
mkdir -p "$work/node"
for try in 1 2 3 4 5; do
  port=$(( 20000 + ($$ * 11 + try * 1013) % 30000 ))
  "$bin" serve --data-dir "$work/node" --listen "127.0.0.1:$port" --node-config "$work/node.yaml" \
    --drain-on-exit >"$work/serve.log" 2>&1 &
  serve_pid=$!
  i=0
  while [ $i -lt 100 ] && kill -0 "$serve_pid" 2>/dev/null &&
    ! grep -qs "listening on" "$work/serve.log"; do sleep 0.1; i=$((i + 1)); done
  grep -qs "listening on" "$work/serve.log" && break
  kill -TERM "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=
done
[ -n "$serve_pid" ] || die "podlimits serve did not start: $(cat "$work/serve.log")"
echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/informer-sync" -kubeconfig "$work/node/kubeconfig" "$@"
rc=$?
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
