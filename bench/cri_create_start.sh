#!/usr/bin/env bash
# What the runtime handler "podlimits" (podlimits-runc behind containerd's CRI plugin) adds to a
# container's start as the kubelet sees it: CreateContainer + StartContainer on the kubelet's own
# CRI client, against the plain runc handler, PAIRS interleaved pairs (tests/cri/go's bench.go),
# in the containerd tests/cri/run sets up (its own root, state and mount namespace; the
# deploy/runc-wrapper snippet).
#
#   bench/cri_create_start.sh [PODLIMITS_BIN] [PAIRS]     (default build/src/cli/podlimits, 200)
#
# CRI_CONTAINERD=build/containerd/<line> picks containerd 1.7 or 2.x (scripts/fetch-containerd).
# CRI_ENFORCEMENT=nri measures `podlimits nri` instead: the same pod's container with the plugin
# registered on containerd's NRI socket against without it, the plugin stopped and started
# between the halves of each pair (bench.go's benchNRI); no runtime handler.
# Root only; run it alone (flock /tmp/podlimits-integration.lock ...).
set -euo pipefail
project=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$project/build/src/cli/podlimits}
pairs=${2:-200}
exec "$project/tests/cri/run" "$bin" -bench "$pairs" -timeout 20m
