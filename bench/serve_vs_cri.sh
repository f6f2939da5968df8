#!/usr/bin/env bash
# `podlimits serve`'s create -> Running of a one-container busybox pod against the CRI calls a
# kubelet makes to containerd 2.x for the same pod (RunPodSandbox + CreateContainer +
# StartContainer, timed on k8s.io/cri-client), interleaved, in the cgroup v2 guest of tests/e2e:
# it boots that guest for the benchmark tests/e2e/tests/serve-vs-cri.sh alone (which the suite
# leaves out) and prints the figures the guest wrote to its console, with the host's load average
# before and after. tests/cri/go/serve.go says what each side includes.
#
#   bench/serve_vs_cri.sh [PODLIMITS_BIN] [ROUNDS]     (default build/src/cli/podlimits, 20)
#
# TCG runs every instruction of both sides in software: the absolute times are many times a
# real node's; the ratio is what this measures. E2E_DIR etc. as tests/e2e/run takes them.
set -euo pipefail
project=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$project/build/src/cli/podlimits}")
rounds=${2:-20}
out=${E2E_DIR:-$project/build/e2e-bench}

echo "host: $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
PODLIMITS_BIN=$bin E2E_DIR=$out E2E_APPEND="${E2E_APPEND:+$E2E_APPEND }serve_vs_cri.rounds=$rounds" \
  "$project/tests/e2e/run" serve-vs-cri || rc=$?
echo "host: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
tr -d '\r' <"$out/console-nsdelegate.log" |
  sed -n '/^----- serve-vs-cri:/,/^----- end of serve-vs-cri/p' | grep -E '^(-----|bench:|cri-pods:)' || true
exit "$rc"
