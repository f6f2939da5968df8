# e2e-timeout: 120
# Seed 002 / KEP-6063: at the pod's limit (podPidsLimit 12) fork fails with EAGAIN after exactly
# 12 - 3 sleeps (the sandbox's holder, as upstream's pause container, and the container's two
# shells are the rest), and pids.events counts the refusal.
need_pods
uid=0e2e0000-0000-4000-8000-000000000015
pl_start pid-fork-eagain.yaml node-pids-12.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 12
pod_release "$uid"
pl_wait
expect_succeeded
expect_eq "sleeps started before fork failed" "$(container_value app forks)" 9
expect_match "fork error" "$(container_value app fork-error)" "can't fork: Resource temporarily unavailable"
# Linux 6.1 counts the refusal in the forking task's cgroup (the container's).
expect_match "pids.events in the container" "$(container_value app pids.events)" '^max [1-9]'
