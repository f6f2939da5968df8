# e2e-timeout: 90
# KEP-5474: a Writable container enables +pids for a child cgroup it creates (after moving its
# processes to a leaf), sets the child's pids.max to 2, and that limit holds: one sleep starts,
# the next fork fails with EAGAIN and the child's pids.events counts it. The child cgroups stay
# behind in the container's cgroup: removing them is podlimits' teardown (the driver checks).
need_pods
pl_run writable-delegate.yaml
expect_succeeded
expect_eq "enabling +pids in the container's cgroup.subtree_control" "$(container_value app delegate)" ok
expect_match "the container's cgroup.subtree_control" "$(container_value app subtree_control)" '(^| )pids( |$)'
expect_eq "the child's pids.max" "$(container_value app sub.pids.max)" 2
expect_eq "first fork in the child" "$(container_value app first-fork)" ok
expect_eq "second fork in the child (over its pids.max)" "$(container_value app second-fork)" ""
expect_match "fork error in the child" "$(container_value app fork-error)" "can't fork: Resource temporarily unavailable"
expect_match "the child's pids.events" "$(container_value app sub.pids.events)" '^max [1-9]'
