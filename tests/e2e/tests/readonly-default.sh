# e2e-timeout: 90
# KEP-5474: the default (no cgroupOptions) and mountMode ReadOnly both mount /sys/fs/cgroup ro,
# and mkdir fails (EROFS); a pod with no Writable container gets no descendant/depth bounds.
need_pods
uid=0e2e0000-0000-4000-8000-000000000035
pl_start readonly-default.yaml
wait_ready default
wait_ready explicit
pc=$(pod_cgroup "$uid")
expect_eq "cgroup.max.descendants of the pod cgroup" "$(cg_read "$pc/cgroup.max.descendants")" max
expect_eq "cgroup.max.depth of the pod cgroup" "$(cg_read "$pc/cgroup.max.depth")" max
pod_release "$uid"
pl_wait
expect_succeeded
for c in default explicit; do
  expect_match "container $c's /sys/fs/cgroup mount" "$(container_value "$c" mount)" '^cgroup2 /sys/fs/cgroup cgroup2 ro[, ]'
  expect_match "mkdir in container $c" "$(container_value "$c" mkdir)" '^failed .*Read-only file system'
done
