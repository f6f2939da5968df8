#!/usr/bin/env bash
# bench/admit_list.sh PODLIMITS [N] [RUNS]: wall time of `podlimits admit -o json` on a JSON List
# of N typical pods (default 10000) in a restricted namespace with two LimitRanges; prints each
# run and the median.
set -euo pipefail
bin=$1; n=${2:-10000}; runs=${3:-5}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$n" >"$work/list.json" <<'PY'
import json, sys
n = int(sys.argv[1])
items = [
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {
    "pod-security.kubernetes.io/enforce": "restricted"}}},
  {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "containers", "namespace": "shop"},
   "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"},
     "defaultRequest": {"cpu": "100m", "memory": "128Mi"}, "max": {"cpu": "2", "memory": "1Gi"}}]}},
  {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "pids", "namespace": "shop"},
   "spec": {"limits": [{"type": "Pod", "default": {"pid": "2048"}, "max": {"pid": "4096"}}]}},
]
sc = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
for i in range(n):
  items.append({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": f"web-{i}", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {"securityContext": {"runAsNonRoot": True, "runAsUser": 1000,
                                 "seccompProfile": {"type": "RuntimeDefault"}},
             "containers": [
               {"name": "web", "image": "nginx:1.27", "ports": [{"containerPort": 8080}],
                "resources": {"limits": {"cpu": "1", "memory": "512Mi"}}, "securityContext": sc},
               {"name": "log-agent", "image": "busybox:1.36", "securityContext": sc}]}})
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
PY
times=()
for _ in $(seq "$runs"); do
  start=$(date +%s%N)
  "$bin" admit -o json -f "$work/list.json" >"$work/out.json"
  end=$(date +%s%N)
  times+=($(( (end - start) / 1000000 )))
done
admitted=$(grep -c '"kind": "Pod"' "$work/out.json" || true)
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "runs (ms): ${times[*]}"
echo "pods admitted: $admitted of $n; median wall: ${sorted[$((runs / 2))]} ms"
