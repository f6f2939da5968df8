# e2e-timeout: 90
# Seed 002 / KEP-6063: a pod without a PID limit gets the node's podPidsLimit (2000) as its pod
# cgroup's pids.max, with no PIDLimitCapped event.
need_pods
uid=0e2e0000-0000-4000-8000-000000000012
pl_start pid-node-default.yaml node-pids-2000.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 2000
pod_release "$uid"
pl_wait
expect_succeeded
jexpect "$W/run.flat" cgroup.pidsMax 2000
expect_no_event PIDLimitCapped
