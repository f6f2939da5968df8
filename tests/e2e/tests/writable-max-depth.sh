# e2e-timeout: 90
# KEP-5474: cgroup.max.depth (3, node-writable-bounds) bounds the pod cgroup: the container's
# cgroup is at depth 1, so it nests 2 levels of children, then mkdir fails with EAGAIN.
need_pods
pl_run writable-depth.yaml node-writable-bounds.yaml
expect_succeeded
expect_eq "levels the container nested" "$(container_value app depth)" 2
expect_match "mkdir past the bound" "$(container_value app mkdir-error)" 'Resource temporarily unavailable'
jexpect "$W/run.flat" cgroup.maxDepth 3
