# e2e-timeout: 150
# KEP-6063: a hostPID pod with a pod limit (1024): the pod cgroup's pids.max is 1024; the
# container sees the node's processes (a marker the test starts among them), yet they do not
# count: it starts 1024 - 3 sleeps (the sandbox's holder and the container's two shells are the
# rest) before fork fails with EAGAIN.
need_pods
uid=0e2e0000-0000-4000-8000-000000000016
sleep 4242.4242 &
marker=$!
pl_start pid-hostpid.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "pids.max of ${pc#/sys/fs/cgroup}" "$(cg_read "$pc/pids.max")" 1024
pod_release "$uid"
pl_wait 120
kill "$marker"
wait "$marker" 2>/dev/null || true
expect_succeeded
expect_eq "the node's marker process, seen from the container" "$(container_value app marker)" seen
visible=$(container_value app visible-processes)
[ "${visible:-0}" -gt 2 ] || fail "the container sees only $visible processes; hostPID should show the node's"
expect_eq "sleeps started before fork failed" "$(container_value app forks)" 1021
expect_match "fork error" "$(container_value app fork-error)" "can't fork: Resource temporarily unavailable"
detail "the container saw $visible processes; 1021 sleeps + 2 shells + the holder = pids.max 1024"
