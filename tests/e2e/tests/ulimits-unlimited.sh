# e2e-timeout: 90
# KEP-5758: -1 is unlimited: /proc/1/limits shows "unlimited" for memlock, core, nice, rtprio and
# stack, and fs.nr_open for nofile (the kernel's ceiling for RLIMIT_NOFILE).
need_pods
nr_open=$(cat /proc/sys/fs/nr_open)
pl_run ulimits-unlimited.yaml
expect_succeeded
expect_limits app "nofile $nr_open $nr_open" "memlock unlimited unlimited" "core unlimited unlimited" \
  "nice unlimited unlimited" "rtprio unlimited unlimited" "stack unlimited unlimited"
