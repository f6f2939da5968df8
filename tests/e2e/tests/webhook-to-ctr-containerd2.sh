# e2e-timeout: 150
# webhook-to-ctr.sh under containerd 2.x (Debian unstable's) over runc: the webhook's patch
# becomes a sandbox and a container through containerd 2's runc shim and podlimits-runc. Over
# runc because containerd 2's ctr writes runtime-spec 1.2, which Debian 12's crun 1.8 refuses.
CTRD_LINE=2
CTRD_RUNTIME=/usr/bin/runc
. "$E2E/tests/webhook-to-ctr.sh"
