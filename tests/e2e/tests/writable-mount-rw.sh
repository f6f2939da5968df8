# e2e-timeout: 90
# KEP-5474 ("how to know it is working"): with mountMode Writable, /sys/fs/cgroup inside the
# container is cgroup2 mounted rw, its own cgroup is the namespace root (0::/), and
# `mkdir /sys/fs/cgroup/test && rmdir /sys/fs/cgroup/test` succeeds.
need_pods
pl_run writable-mount.yaml
expect_succeeded
mount=$(container_value app mount)
expect_match "the container's /sys/fs/cgroup mount" "$mount" '^cgroup2 /sys/fs/cgroup cgroup2 rw[, ]'
expect_eq "/proc/self/cgroup in the container" "$(container_value app cgroup)" "0::/"
expect_eq "mkdir of a child cgroup" "$(container_value app mkdir)" ok
expect_eq "rmdir of the child cgroup" "$(container_value app rmdir)" ok
