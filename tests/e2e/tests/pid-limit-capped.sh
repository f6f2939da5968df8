# e2e-timeout: 90
# KEP-6063: a pod limit (2048) above the node's podPidsLimit (1500) is capped: the pod cgroup's
# pids.max is 1500 and a PIDLimitCapped event says so.
need_pods
uid=0e2e0000-0000-4000-8000-000000000011
pl_start pid-capped.yaml node-pids-1500.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 1500
pod_release "$uid"
pl_wait
expect_succeeded
jexpect "$W/run.flat" cgroup.pidsMax 1500
expect_event '(Normal|Warning)' PIDLimitCapped '.*1500'
i=$(jindex "$W/run.flat" events reason PIDLimitCapped) || fail "PodRunStatus events lack PIDLimitCapped"
detail "event: $(jget "$W/run.flat" "events.$i.message")"
