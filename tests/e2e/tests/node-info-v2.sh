# e2e-mode: nsdelegate
# e2e-timeout: 30
# `podlimits node-info -o json` on a cgroup v2 node with nsdelegate: mode v2, nsdelegate true,
# every feature declared (PerPodPIDLimit, ContainerUlimits, SupportsCgroupOptions), and the pid
# capacity the kernel has (min of pid_max and threads-max).
rc=0
podlimits node-info -o json >"$W/node-info.json" 2>"$W/node-info.err" || rc=$?
expect_eq "podlimits node-info exit status" "$rc" 0
jflat "$W/node-info.json" >"$W/node-info.flat"
f=$W/node-info.flat
jexpect "$f" kind NodeInfo
jexpect "$f" cgroups.mode v2
jexpect "$f" cgroups.nsdelegate true
jexpect "$f" cgroups.pidsController true
jexpect "$f" cgroups.cpuMemoryEnforced true
for feature in PerPodPIDLimit ContainerUlimits SupportsCgroupOptions; do
  jhas "$f" declaredFeatures "$feature" || fail "declaredFeatures lacks $feature: $(grep '^declaredFeatures' "$f" | one_line)"
  i=$(jindex "$f" features name "$feature") || fail "features has no entry for $feature"
  jexpect "$f" "features.$i.declared" true
done
jexpect "$f" runtime.name crun
pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
capacity=$pid_max
[ "$threads_max" -lt "$capacity" ] && capacity=$threads_max
jexpect "$f" pids.capacity "$capacity"
jexpect "$f" pids.allocatable "$capacity"
# Root in the guest holds every capability, so the node can raise hard rlimits.
jexpect "$f" rlimits.capSysResource true
