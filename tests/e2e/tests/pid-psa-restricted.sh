# e2e-timeout: 90
# KEP-6063: a pod with a PID limit is admitted under Pod Security "restricted" (no rejection, no
# warning), runs as uid 65534, and its limit is the pod cgroup's pids.max.
need_pods
uid=0e2e0000-0000-4000-8000-000000000018
pl_start pid-psa-restricted.yaml node-pids-4096.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 1024
pod_release "$uid"
pl_wait
expect_succeeded
expect_no_file_match "admission" "$W/run.err" '^(Error from server|Warning:)'
expect_eq "the container's uid" "$(container_value app uid)" 65534
# RuntimeDefault: Debian's containers-common profile, installed as a filter.
expect_eq "the container's seccomp mode" "$(container_value app seccomp)" 2
