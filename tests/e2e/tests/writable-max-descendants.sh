# e2e-timeout: 90
# KEP-5474: the pod cgroup of a pod with a Writable container carries cgroup.max.descendants and
# cgroup.max.depth from the node config (4 and 3); the sandbox's holder and the container have
# one cgroup each below it (as the pause container and the container have upstream), so the
# container creates 2 children, then mkdir fails with EAGAIN.
need_pods
uid=0e2e0000-0000-4000-8000-000000000033
pl_start writable-descendants.yaml node-writable-bounds.yaml
wait_ready app
pc=$(pod_cgroup "$uid")
expect_eq "cgroup.max.descendants of the pod cgroup" "$(cg_read "$pc/cgroup.max.descendants")" 4
expect_eq "cgroup.max.depth of the pod cgroup" "$(cg_read "$pc/cgroup.max.depth")" 3
pod_release "$uid"
pl_wait
expect_succeeded
expect_eq "children the container created" "$(container_value app made)" 2
expect_match "mkdir past the bound" "$(container_value app mkdir-error)" 'Resource temporarily unavailable'
jexpect "$W/run.flat" cgroup.maxDescendants 4
jexpect "$W/run.flat" cgroup.maxDepth 3
