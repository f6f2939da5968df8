# e2e-timeout: 90
# Seed 002: with podPidsLimit unset the pod cgroup stays unbounded ("max"); kubepods' pids.max is
# the node's allocatable pids (capacity = min(pid_max, threads-max), minus the 1000 + 500
# reserved) and the QoS cgroup stays unbounded.
need_pods
uid=0e2e0000-0000-4000-8000-000000000013
pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
capacity=$pid_max
if [ "$threads_max" -lt "$capacity" ]; then capacity=$threads_max; fi
allocatable=$((capacity - 1500))
pl_start pid-unbounded.yaml node-reserved.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" max
expect_eq "pids.max of /kubepods" "$(cg_read /sys/fs/cgroup/kubepods/pids.max)" "$allocatable"
qos=$(dirname "$pc")
if [ "$qos" != /sys/fs/cgroup/kubepods ]; then
  expect_eq "pids.max of ${qos#/sys/fs/cgroup}" "$(cg_read "$qos/pids.max")" max
fi
pod_release "$uid"
pl_wait
expect_succeeded
jexpect "$W/run.flat" cgroup.pidsMax max
detail "kubepods pids.max $allocatable = min($pid_max, $threads_max) - 1500"
