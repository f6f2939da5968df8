#!/usr/bin/env bash
# bench/run_pod.sh PODLIMITS [RUNS] [RUNTIME]: wall time of `podlimits run` of a one-container
# busybox pod running `true`, side by side with the bare OCI runtime (`RUNTIME run`) of a bundle
# with the same rootfs, namespaces and cgroup parent. Runs alternate (podlimits, bare, podlimits,
# ...) so both see the same machine load; prints each median and the ratio. Needs root.
#
# The bare runtime runs in the same kind of mount namespace podlimits gives it (only the v1 pids
# hierarchy visible under /sys/fs/cgroup on a hybrid machine; crun refuses the hybrid layout).
set -euo pipefail
bin=$(realpath "$1"); runs=${2:-30}; rt=${3:-crun}
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/podlimits-bench.XXXXXX)
cleanup() {
  rmdir /sys/fs/cgroup/pids/podlimits-bench/bare /sys/fs/cgroup/pids/podlimits-bench 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

scripts/build-busybox-image "$work/image" >/dev/null
"$bin" image --image-root "$work/images" load "$work/image/busybox-oci" --name busybox:latest >/dev/null
rootfs=$(ls -d "$work"/images/*/rootfs | head -1)

cat >"$work/pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: bench}
spec:
  restartPolicy: Never
  containers: [{name: app, image: "busybox:latest", command: ["true"]}]
YAML
cat >"$work/node.yaml" <<YAML
apiVersion: podlimits.dev/v1alpha1
kind: NodeConfiguration
runtime: {name: $rt}
stateDirectory: $work/state
YAML

mkdir -p "$work/bundle"
# crun spec writes config.json into the bundle; adjust it to podlimits' shape.
(cd "$work/bundle" && crun spec >/dev/null 2>&1 || runc spec)
python3 - "$work/bundle/config.json" "$rootfs" <<'PY'
import json, sys
path, rootfs = sys.argv[1], sys.argv[2]
spec = json.load(open(path))
spec["root"] = {"path": rootfs, "readonly": True}
spec["process"]["args"] = ["true"]
spec["process"]["terminal"] = False
spec["process"].pop("rlimits", None)
spec["linux"]["cgroupsPath"] = "/podlimits-bench/bare"
# No device-cgroup rules: podlimits' specs have none (v1 would need the devices hierarchy).
spec["linux"].pop("resources", None)
ns = [{"type": t} for t in ("pid", "ipc", "uts", "mount", "network", "cgroup")]
spec["linux"]["namespaces"] = ns
spec["mounts"] = [m for m in spec["mounts"] if m["destination"] != "/sys/fs/cgroup"] + [
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
     "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}]
json.dump(spec, open(path, "w"))
PY

# One mount namespace for the bare runs, shaped like podlimits' own.
view='
mount --make-rprivate /
if [ -d /sys/fs/cgroup/unified ]; then
  mount -t tmpfs -o mode=0755 tmpfs /sys/fs/cgroup
  mkdir /sys/fs/cgroup/pids && mount -t cgroup -o pids cgroup /sys/fs/cgroup/pids
fi'

now() { date +%s%N; }
podlimits_ms=(); bare_ms=()
for i in $(seq "$runs"); do
  t0=$(now)
  "$bin" run -f "$work/pod.yaml" --node-config "$work/node.yaml" --image-root "$work/images" >/dev/null 2>&1
  t1=$(now)
  unshare -m sh -c "$view
    exec $rt --root $work/bare-state run --bundle $work/bundle bench-$i" >"$work/bare.log" 2>&1 || { cat "$work/bare.log" >&2; exit 1; }
  t2=$(now)
  podlimits_ms+=("$(( (t1 - t0) / 1000 ))"); bare_ms+=("$(( (t2 - t1) / 1000 ))")
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
p=$(median "${podlimits_ms[@]}"); b=$(median "${bare_ms[@]}")
echo "podlimits run ($rt): median $(awk "BEGIN{printf \"%.1f\", $p/1000}") ms over $runs runs"
echo "bare $rt run (incl. unshare + view mounts): median $(awk "BEGIN{printf \"%.1f\", $b/1000}") ms"
echo "ratio: $(awk "BEGIN{printf \"%.2f\", $p/$b}")x"
