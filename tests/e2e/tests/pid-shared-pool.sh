# e2e-timeout: 120
# KEP-6063: the containers of a pod share one pids pool (podPidsLimit 16 on the pod cgroup, no
# container-level limit). While "holder" keeps its processes, "forker" forks until fork fails:
# it gets exactly 16 - (everything else in the pod) - its 2 shells sleeps.
need_pods
uid=0e2e0000-0000-4000-8000-000000000014
pl_start pid-shared-pool.yaml node-pids-16.yaml
wait_ready holder
wait_ready forker
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 16
fc=$(container_cgroup "$uid" e2e-forker)
expect_eq "pids.max of the forker's own cgroup" "$(cg_read "$fc/pids.max")" max
pod_now=$(cg_read "$pc/pids.current")
forker_now=$(cg_read "$fc/pids.current")
others=$((pod_now - forker_now))
pod_release -c "$fc"
wait_ready forker 'forks=[0-9]+'
want=$((16 - others - 2))
expect_eq "sleeps the forker started (pod pids.current before: $pod_now, of which forker $forker_now)" \
  "$(container_value forker forks)" "$want"
expect_match "fork error" "$(container_value forker fork-error)" "can't fork: Resource temporarily unavailable"
pod_release "$uid"
pl_wait
expect_succeeded
detail "forker got $want sleeps; the other $others pids of the pod count against the same 16"
