#!/usr/bin/env bash
# What podlimits-runc costs a container start (issue 14: within +5 ms of the plain runc shim,
# median): `ctr run --rm` of a `true` container under containerd (Debian 12's 1.6, or the one
# below), side by side and interleaved, N rounds of three variants:
#
#   runtime       the shim runs the real runtime (crun, else runc) as its BinaryName
#   passthrough   the shim runs podlimits-runc; the bundle asks nothing (it reads config.json and
#                 hands over with execv)
#   ulimits       podlimits-runc with the CRI annotations and a nofile ulimit: config.json
#                 rewritten, the runtime run as a child, /proc/<init>/limits read back
#
#   bench/runc_wrapper_overhead.sh [PODLIMITS_BIN] [ROUNDS]     (default build/src/cli/podlimits, 30)
#
# RUNC_WRAPPER_CONTAINERD=DIR runs the containerd, shim and ctr in DIR instead (containerd 1.7
# or 2.x from scripts/fetch-containerd, as tests/runc-wrapper/run does).
# Root only. Prints each variant's median, p90 and min in ms, and for each wrapper variant the
# median of its per-round differences from the runtime run of the same round, with a 95%
# confidence interval of that median.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "$0")/../tests/runc-wrapper" && pwd)
project=$(cd "$here/../.." && pwd)
bin=$(realpath "${1:-$project/build/src/cli/podlimits}")
rounds=${2:-30}
[ "$(id -u)" -eq 0 ] || { echo "runc_wrapper_overhead: needs root" >&2; exit 1; }
. "$here/containerd-env.sh"
echo "containerd $(containerd --version | cut -d' ' -f3), runtime $runtime"

# times[VARIANT] holds one wall time (µs) per round, in round order, so that each wrapper run can
# be paired with the runtime run of its own round.
declare -A times=()
measure() {  # measure VARIANT ANNOTATIONS...: one run, its wall time appended in µs
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

warm() { tr ' ' '\n' | sed '/^$/d' | tail -n +3; }  # the first two rounds dropped as warm-up
stats() {  # stats < MICROSECONDS: median p90 min (ms)
  sort -n | awk '{ v[NR] = $1 } END {
    printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)] / 1000, v[int(NR * 0.9 + 0.5)] / 1000, v[1] / 1000 }'
}
# paired < "RUNTIME VARIANT" lines: the median of the per-round differences (ms) and its 95%
# confidence interval, distribution-free (the order statistics n/2 -+ 0.98 sqrt(n) of the sorted
# differences, the binomial's normal approximation). Pairing within a round cancels the machine's
# slow drifts, which move all three variants of a round together.
paired() {
  awk '{ print $2 - $1 }' | sort -n | awk '{ d[NR] = $1 } END {
    n = NR; med = (n % 2) ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2
    lo = int(n / 2 - 0.98 * sqrt(n)); hi = int(n / 2 + 1 + 0.98 * sqrt(n) + 0.999)
    if (lo < 1 || hi > n) { printf "%+.2f ms (%d pairs: too few for a 95%% CI)", med / 1000, n; exit }
    printf "%+.2f ms (95%% CI %+.2f to %+.2f ms, %d pairs)", med / 1000, d[lo] / 1000, d[hi] / 1000, n }'
}
echo "ctr run --rm of /bin/true, $rounds rounds interleaved, runtime $runtime, cgroup $mode"
printf '%-12s %9s %9s %9s\n' variant median_ms p90_ms min_ms
for v in runtime passthrough ulimits; do
  read -r med p90 min <<<"$(warm <<<"${times[$v]}" | stats)"
  printf '%-12s %9s %9s %9s\n' "$v" "$med" "$p90" "$min"
done
for v in passthrough ulimits; do
  printf '%-22s %s\n' "$v - runtime:" "$(paste -d ' ' <(warm <<<"${times[runtime]}") <(warm <<<"${times[$v]}") | paired)"
done
