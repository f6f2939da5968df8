# e2e-timeout: 90
# KEP-6063: a pod limit (1024) below the node's podPidsLimit (4096) is the pod cgroup's pids.max,
# read from the kernel while the pod runs; no PIDLimitCapped event, a PIDLimitApplied event naming
# both values.
need_pods
uid=0e2e0000-0000-4000-8000-000000000010
pl_start pid-below-node.yaml node-pids-4096.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 1024
pod_release "$uid"
pl_wait
expect_succeeded
jexpect "$W/run.flat" cgroup.pidsMax 1024
expect_no_event PIDLimitCapped
expect_event Normal PIDLimitApplied 'Pod cgroup pids.max set to 1024 from spec.resources.limits.pid \(node podPidsLimit 4096\)'
