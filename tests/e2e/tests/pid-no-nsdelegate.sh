# e2e-mode: no-nsdelegate
# e2e-timeout: 90
# A pod PID limit needs cgroup v2, not nsdelegate: without nsdelegate the pod runs and its limit
# (1024, below podPidsLimit 4096) is the pod cgroup's pids.max.
need_pods
uid=0e2e0000-0000-4000-8000-00000000001a
pl_start pid-no-nsdelegate.yaml node-pids-4096.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 1024
pod_release "$uid"
pl_wait
expect_succeeded
