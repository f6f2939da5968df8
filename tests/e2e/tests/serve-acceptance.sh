# e2e-timeout: 300
# The acceptance suite of `podlimits serve` (tests/acceptance/run) on a pure cgroup v2 kernel
# with nsdelegate, root with every capability: the machine's kubectl applies examples/serve/, and
# the steps that depend on the node compare with their v2 and unclamped expectations: the tenant
# pod runs, its pod cgroup's pids.max is the node's podPidsLimit (512) that capped the
# LimitRange's 1024, with PIDLimitCapped in `kubectl describe pod`.
[ -x /e2e/project/tests/acceptance/run ] || fail "the acceptance suite is not in the guest image"
log=$W/acceptance.log
rc=0
ACCEPTANCE_ACTUAL=$W/actual PODLIMITS_TEST_OCI_LAYOUT=/e2e/busybox-oci TMPDIR=/tmp HOME=/root \
  /e2e/project/tests/acceptance/run /usr/bin/podlimits >"$log" 2>&1 || rc=$?
summary=$(grep '^acceptance (' "$log" | tail -n 1)
if [ "$rc" -ne 0 ]; then
  # What each mismatched step printed, whole, on the console (the failure dump keeps only the
  # head of each file): what a new expectation for this node is made from, after review.
  for step in $(sed -n 's/^MISMATCH: step \([^ ]*\) .*/\1/p' "$log"); do
    { echo "----- acceptance actual: $step -----"; cat "$W/actual/$step.txt"
      echo "----- end of acceptance actual: $step -----"; } >/dev/console 2>&1 || true
  done
fi
[ "$rc" -eq 0 ] || fail "exit $rc: ${summary:-?}; $(grep -E '^MISMATCH' "$log" | one_line)"
expect_match "the guest's node" "$summary" '^acceptance \(kubectl [0-9.]+, v2, unclamped\): '
detail "$summary"
