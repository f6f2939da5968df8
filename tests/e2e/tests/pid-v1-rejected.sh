# e2e-timeout: 60
# KEP-6063: on a cgroup v1 node (a private mount namespace whose /sys/fs/cgroup holds only v1
# hierarchies) a pod with a PID limit is rejected by node admission with the kubelet's message,
# exit 1, and nothing is created in the v1 hierarchies or the real cgroup2 tree.
need_podlimits_run
RUN_RC=0
in_v1_view podlimits run -f "$PODS/pid-v1.yaml" -o json >"$W/run.json" 2>"$W/run.err" || RUN_RC=$?
expect_rejected '^ +Warning +FailedNodeDeclaredFeaturesCheck +per-pod PID limit requires cgroupsv2, but this node is running cgroupsv1; pod pid-v1 specifies spec.resources.limits.pid$'
cmp -s "$W/v1.before" "$W/v1.after" ||
  fail "cgroups created in the v1 hierarchies: $(diff "$W/v1.before" "$W/v1.after" | grep '^+/' | one_line)"
