# e2e-timeout: 150
# runc-wrapper-v2.sh's cases under containerd 2.x (Debian unstable's) on cgroup v2 with
# nsdelegate: the pod PID limit, ulimits and the writable cgroup mount with its bounds, through
# containerd 2's runc shim. Over runc: containerd 2's ctr writes runtime-spec 1.2, which Debian
# 12's crun 1.8 refuses ("unknown version specified") with or without podlimits-runc.
CTRD_LINE=2
CTRD_RUNTIME=/usr/bin/runc
. "$E2E/tests/runc-wrapper-v2.sh"
