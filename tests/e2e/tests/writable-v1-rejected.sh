# e2e-timeout: 60
# KEP-5474: on a cgroup v1 node (a private mount namespace whose /sys/fs/cgroup holds only v1
# hierarchies) a pod with a Writable container is rejected by node admission
# ("CgroupOptions.MountMode=Writable requires cgroup v2"), exit 1, nothing created.
need_podlimits_run
RUN_RC=0
in_v1_view podlimits run -f "$PODS/writable-v1.yaml" -o json >"$W/run.json" 2>"$W/run.err" || RUN_RC=$?
expect_rejected '^ +Warning +FailedNodeDeclaredFeaturesCheck +CgroupOptions\.MountMode=Writable requires cgroup v2$'
cmp -s "$W/v1.before" "$W/v1.after" ||
  fail "cgroups created in the v1 hierarchies: $(diff "$W/v1.before" "$W/v1.after" | grep '^+/' | one_line)"
