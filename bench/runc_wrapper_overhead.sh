#!/usr/bin/env bash
# What podlimits-runc costs a container start (issue 14: within +5 ms of the plain runc shim,
# median): `ctr run --rm` of a `true` container under Debian's containerd 1.6, side by side and
# interleaved, N rounds of three variants:
#
#   runtime       the shim runs the real runtime (crun, else runc) as its BinaryName
#   passthrough   the shim runs podlimits-runc; the bundle asks nothing (it reads config.json and
#                 hands over with execv)
#   ulimits       podlimits-runc with the CRI annotations and a nofile ulimit: config.json
#                 rewritten, the runtime run as a child, /proc/<init>/limits read back
#
#   bench/runc_wrapper_overhead.sh [PODLIMITS_BIN] [ROUNDS]     (default build/src/cli/podlimits, 30)
#
# Root only. Prints each variant's median, p90 and min in ms and the medians' differences.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/../tests/runc-wrapper" && pwd)
project=$(cd "$here/../.." && pwd)
bin=$(realpath "${1:-$project/build/src/cli/podlimits}")
rounds=${2:-30}
[ "$(id -u)" -eq 0 ] || { echo "runc_wrapper_overhead: needs root" >&2; exit 1; }
. "$here/containerd-env.sh"

declare -A times=()
measure() {  # measure VARIANT ANNOTATIONS...: one run, its wall time appended in ms
  local variant=$1; shift
  run_ctr "$variant-$i" "$@" -- /bin/true
  [ "$rc" = 0 ] || fail "$variant: $out"
  times[$variant]+="$ctr_us "
}
for ((i = 0; i < rounds + 2; i++)); do
  RUNC_BINARY=$runtime measure runtime
  measure passthrough
  # shellcheck disable=SC2046
  measure ulimits $(container app) 'ulimits.noderesource.dev/container.app=[{"type":"RLIMIT_NOFILE","soft":1024,"hard":2048}]'
done

stats() {  # stats MICROSECONDS...: median p90 min (ms), the first two runs dropped as warm-up
  tr ' ' '\n' | sed '/^$/d' | tail -n +3 | sort -n | awk '{ v[NR] = $1 } END {
    printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)] / 1000, v[int(NR * 0.9 + 0.5)] / 1000, v[1] / 1000 }'
}
echo "ctr run --rm of /bin/true, $rounds rounds interleaved, runtime $runtime, cgroup $mode"
printf '%-12s %9s %9s %9s\n' variant median_ms p90_ms min_ms
declare -A median=()
for v in runtime passthrough ulimits; do
  read -r med p90 min <<<"$(stats <<<"${times[$v]}")"
  median[$v]=$med
  printf '%-12s %9s %9s %9s\n' "$v" "$med" "$p90" "$min"
done
awk -v r="${median[runtime]}" -v p="${median[passthrough]}" -v u="${median[ulimits]}" 'BEGIN {
  printf "passthrough - runtime: %+.2f ms\nulimits - runtime:     %+.2f ms\n", p - r, u - r }'
