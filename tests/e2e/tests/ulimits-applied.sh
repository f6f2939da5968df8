# e2e-timeout: 90
# KEP-5758: each of the six allowlisted ulimits, as the container's /proc/1/limits shows it (an
# unprivileged container), and as PodRunStatus reports it.
need_pods
pl_run ulimits-applied.yaml
expect_succeeded
expect_limits app "nofile 1024 4096" "memlock 65536 131072" "core 0 1048576" "nice 0 10" \
  "rtprio 0 5" "stack 8388608 16777216"
