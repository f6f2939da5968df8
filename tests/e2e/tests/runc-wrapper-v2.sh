# e2e-timeout: 150
# podlimits-runc under containerd 1.6 (ctr) over crun on cgroup v2 with nsdelegate: the
# sandbox's create lowers the pod cgroup's pids.max to the pod's limit (never raises it), a
# container gets its ulimits, and a writable container gets a cgroup namespace, an rw cgroup2
# mount it can make cgroups in, and the pod cgroup's descendant/depth bounds.
# runc-wrapper-v2-containerd2.sh runs these same cases with CTRD_LINE and CTRD_RUNTIME set.
. "$E2E/containerd.sh"
ctrd_start "${CTRD_RUNTIME:-/usr/bin/crun}"
make_pod_cgroup 0e2e0000-0000-4000-8000-0000000000c1 4096
pc=$POD_CGROUP

# shellcheck disable=SC2046
ctr_run "$pc" sandbox $(cri_sandbox default web) podlimits.dev/pod-pid-limit=2048 -- true
expect_eq "sandbox create" "$CTR_RC" 0
expect_eq "pods.max of the pod cgroup" "$(cg_read "/sys/fs/cgroup$pc/pids.max")" 2048

# A limit above the kubelet's keeps the kubelet's.
echo 1500 >"/sys/fs/cgroup$pc/pids.max"
# shellcheck disable=SC2046
ctr_run "$pc" sandbox2 $(cri_sandbox default web) podlimits.dev/pod-pid-limit=2048 -- true
expect_eq "second sandbox create" "$CTR_RC" 0
expect_eq "pids.max stays the kubelet's lower 1500" "$(cg_read "/sys/fs/cgroup$pc/pids.max")" 1500

# shellcheck disable=SC2046
ctr_run "$pc" app $(cri_container default web app) \
  'ulimits.noderesource.dev/container.app=[{"type":"RLIMIT_NOFILE","soft":1024,"hard":4096},{"type":"RLIMIT_CORE","soft":-1,"hard":-1}]' \
  -- cat /proc/self/limits
expect_eq "container create" "$CTR_RC" 0
expect_eq "nofile in the container" "$(limit_of "$W/app.out" 'Max open files')" "1024 4096"
expect_eq "core in the container" "$(limit_of "$W/app.out" 'Max core file size')" "unlimited unlimited"

# shellcheck disable=SC2046
ctr_run "$pc" builder $(cri_container default web builder) \
  podlimits.dev/writable-cgroups.container.builder=true \
  -- sh -c 'grep " /sys/fs/cgroup " /proc/self/mountinfo; cat /proc/self/cgroup; mkdir /sys/fs/cgroup/child && echo mkdir-ok && rmdir /sys/fs/cgroup/child'
expect_eq "writable container create" "$CTR_RC" 0
expect_file_match "rw cgroup2 mount" "$W/builder.out" ' /sys/fs/cgroup rw,.* - cgroup2 '
expect_file_match "its own cgroup namespace" "$W/builder.out" '^0::/$'
expect_file_match "a child cgroup can be made" "$W/builder.out" '^mkdir-ok$'
expect_eq "cgroup.max.descendants of the pod cgroup" "$(cg_read "/sys/fs/cgroup$pc/cgroup.max.descendants")" 250
expect_eq "cgroup.max.depth of the pod cgroup" "$(cg_read "/sys/fs/cgroup$pc/cgroup.max.depth")" 50

# An invalid annotation never starts anything.
# shellcheck disable=SC2046
ctr_run "$pc" bad $(cri_container default web bad) \
  'ulimits.noderesource.dev/container.bad=[{"type":"nofile","soft":10,"hard":5}]' -- true
[ "$CTR_RC" != 0 ] || fail "soft > hard was not refused"
expect_file_match "the refusal names the annotation" "$W/bad.out" \
  'OCI runtime create failed: container "bad" of pod default/web: metadata.annotations\[ulimits.noderesource.dev/container.bad\]: securityContext.ulimits\[0\].soft: Invalid value: 10: must be less than or equal to hard limit 5'
ctrd_stop
detail "containerd $CTRD_VERSION, $(basename "${CTRD_RUNTIME:-crun}"): pids.max 4096 -> 2048, nofile 1024/4096, writable + bounds 250/50"
