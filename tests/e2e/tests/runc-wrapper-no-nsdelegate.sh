# e2e-timeout: 120
# e2e-mode: no-nsdelegate
# podlimits-runc on cgroup v2 without nsdelegate: a writable container is refused with seed 003's
# message before anything runs; a pod PID limit still holds.
. "$E2E/containerd.sh"
ctrd_start /usr/bin/crun
make_pod_cgroup 0e2e0000-0000-4000-8000-0000000000c2 4096
pc=$POD_CGROUP
# shellcheck disable=SC2046
ctr_run "$pc" builder $(cri_container default web builder) \
  podlimits.dev/writable-cgroups.container.builder=true -- true
[ "$CTR_RC" != 0 ] || fail "a writable container without nsdelegate was not refused"
expect_file_match "seed 003's refusal" "$W/builder.out" \
  'container "builder" of pod default/web: CgroupOptions.MountMode=Writable requires the cgroup2 filesystem to be mounted with nsdelegate'
# shellcheck disable=SC2046
ctr_run "$pc" sandbox $(cri_sandbox default web) podlimits.dev/pod-pid-limit=2048 -- true
expect_eq "sandbox create" "$CTR_RC" 0
expect_eq "pids.max of the pod cgroup" "$(cg_read "/sys/fs/cgroup$pc/pids.max")" 2048
ctrd_stop
