# e2e-timeout: 90
# KEP-5474: a pod mixing a Writable and a default container: "rw" has a rw cgroup2 mount and
# mkdir works, "ro" has a ro mount and mkdir fails; neither sees the other's cgroup; the pod
# cgroup carries the node's default bounds (cgroup.max.descendants 250, cgroup.max.depth 50).
need_pods
uid=0e2e0000-0000-4000-8000-000000000036
pl_start writable-mixed.yaml
wait_ready rw
wait_ready ro
pc=$(pod_cgroup "$uid")
expect_eq "cgroup.max.descendants of the pod cgroup" "$(cg_read "$pc/cgroup.max.descendants")" 250
expect_eq "cgroup.max.depth of the pod cgroup" "$(cg_read "$pc/cgroup.max.depth")" 50
pod_release "$uid"
pl_wait
expect_succeeded
expect_match "rw's /sys/fs/cgroup mount" "$(container_value rw mount)" '^cgroup2 /sys/fs/cgroup cgroup2 rw[, ]'
expect_eq "mkdir in rw" "$(container_value rw mkdir)" ok
expect_match "ro's /sys/fs/cgroup mount" "$(container_value ro mount)" '^cgroup2 /sys/fs/cgroup cgroup2 ro[, ]'
expect_match "mkdir in ro" "$(container_value ro mkdir)" '^failed .*Read-only file system'
expect_eq "cgroups visible below rw's namespace root" "$(container_value rw children)" 0
expect_eq "cgroups visible below ro's namespace root" "$(container_value ro children)" 0
jexpect "$W/run.flat" cgroup.maxDescendants 250
jexpect "$W/run.flat" cgroup.maxDepth 50
