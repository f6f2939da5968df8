# e2e-mode: no-nsdelegate
# e2e-timeout: 30
# `podlimits node-info -o json` on cgroup v2 without nsdelegate: PerPodPIDLimit and
# ContainerUlimits are declared, SupportsCgroupOptions is not (KEP-5474 needs nsdelegate), and
# the reason says so.
rc=0
podlimits node-info -o json >"$W/node-info.json" 2>"$W/node-info.err" || rc=$?
expect_eq "podlimits node-info exit status" "$rc" 0
jflat "$W/node-info.json" >"$W/node-info.flat"
f=$W/node-info.flat
jexpect "$f" cgroups.mode v2
jexpect "$f" cgroups.nsdelegate false
for feature in PerPodPIDLimit ContainerUlimits; do
  jhas "$f" declaredFeatures "$feature" || fail "declaredFeatures lacks $feature: $(grep '^declaredFeatures' "$f" | one_line)"
done
if jhas "$f" declaredFeatures SupportsCgroupOptions; then
  fail "SupportsCgroupOptions is declared on a node without nsdelegate"
fi
i=$(jindex "$f" features name SupportsCgroupOptions) || fail "features has no entry for SupportsCgroupOptions"
jexpect "$f" "features.$i.declared" false
reason=$(jget "$f" "features.$i.reason") || fail "SupportsCgroupOptions has no reason"
expect_match "reason SupportsCgroupOptions is not declared" "$reason" nsdelegate
