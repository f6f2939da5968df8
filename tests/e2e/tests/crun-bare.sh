# e2e-mode: nsdelegate
# e2e-timeout: 60
# The guest can run containers at all (reference/environment.md §3): crun runs a busybox bundle
# with pids.limit 8 and RLIMIT_NOFILE 256/512; the container sees its nofile limit, fork fails
# with EAGAIN at the limit, and the container cgroup's pids.events counts it.
bare_runtime_check crun
