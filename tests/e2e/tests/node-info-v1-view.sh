# e2e-timeout: 30
# The cgroup v1 node the *-v1-rejected tests simulate (in_v1_view: a private mount namespace
# with only v1 hierarchies under /sys/fs/cgroup) is what podlimits takes for v1: node-info says
# mode v1 and declares neither PerPodPIDLimit nor SupportsCgroupOptions, and the guest's real
# cgroup2 tree is untouched (the driver's teardown check).
rc=0
in_v1_view podlimits node-info -o json >"$W/node-info.json" 2>"$W/node-info.err" || rc=$?
expect_eq "podlimits node-info exit status" "$rc" 0
jflat "$W/node-info.json" >"$W/node-info.flat"
f=$W/node-info.flat
jexpect "$f" cgroups.mode v1
for feature in PerPodPIDLimit SupportsCgroupOptions; do
  if jhas "$f" declaredFeatures "$feature"; then fail "$feature is declared on a cgroup v1 node"; fi
done
jhas "$f" declaredFeatures ContainerUlimits || fail "ContainerUlimits is not declared on the v1 node"
cmp -s "$W/v1.before" "$W/v1.after" || fail "node-info created cgroups in the v1 hierarchies"
