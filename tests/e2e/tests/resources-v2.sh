# e2e-timeout: 120
# cpu and memory on cgroup v2 (this VM's root offers both controllers): the kubelet's pod cgroup
# files (cpu.weight from the summed requests, cpu.max and memory.max from the summed limits, as
# every container declares them), each container's own files from the runtime, and a container
# that outgrows its memory limit ends OOMKilled (exit 137), which fails the pod; the QoS parents
# (burstable, kubepods) carry the kubelet's cpu.weight and allocatable memory.max.
need_pods
pl_start resources-oom.yaml
wait_line "$W/run.err" '^\[app\] cpu-weight=' 60
d=$(pod_cgroup 0e2e0000-0000-4000-8000-000000000051)
# 250m + 100m requested (the hog's request defaults to its limit): MilliCPUToShares(350) = 358,
# weight 1 + (356 * 9999) / 262142 = 14; limits 600m -> 60000 per 100000; 64Mi + 24Mi.
expect_eq "the pod cgroup's cpu.weight" "$(cat "$d/cpu.weight" 2>/dev/null)" 14
expect_eq "the pod cgroup's cpu.max" "$(cat "$d/cpu.max" 2>/dev/null)" "60000 100000"
expect_eq "the pod cgroup's memory.max" "$(cat "$d/memory.max" 2>/dev/null)" 92274688
# The QoS parents: burstable's weight from the node's Burstable requests (this pod's 350m alone),
# kubepods' from allocatable cpu (every CPU: nothing reserved) and its memory.max from allocatable
# memory (MemTotal).
expect_eq "the burstable cgroup's cpu.weight" "$(cat "$(dirname "$d")/cpu.weight" 2>/dev/null)" 14
cpus=$(grep -c '^processor' /proc/cpuinfo)
shares=$((cpus * 1024))
expect_eq "kubepods' cpu.weight" "$(cat /sys/fs/cgroup/kubepods/cpu.weight 2>/dev/null)" \
  "$((1 + (shares - 2) * 9999 / 262142))"
mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
expect_eq "kubepods' memory.max" "$(cat /sys/fs/cgroup/kubepods/memory.max 2>/dev/null)" \
  "$((mem_kb * 1024))"
pl_wait 90
[ "$RUN_RC" = 1 ] || fail "podlimits run exited $RUN_RC, want 1 (the OOM-killed container fails the pod)"
jexpect "$W/run.flat" phase Failed
expect_eq "the app's memory.max" "$(container_value app memory-max)" 67108864
expect_eq "the app's memory.swap.max" "$(container_value app swap-max)" 0
expect_eq "the app's cpu.max" "$(container_value app cpu-max)" 50000_100000
# MilliCPUToShares(250) = 256: weight 1 + (254 * 9999) / 262142 = 10.
expect_eq "the app's cpu.weight" "$(container_value app cpu-weight)" 10
jexpect "$W/run.flat" containers.1.name hog
jexpect "$W/run.flat" containers.1.reason OOMKilled
jexpect "$W/run.flat" containers.1.exitCode 137
