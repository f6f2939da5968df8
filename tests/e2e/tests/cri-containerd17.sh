# e2e-timeout: 360
# cri-containerd2.sh under containerd 1.7 (Debian 13's): the kubelet's CRI calls with the
# wrapper's handler (deploy/runc-wrapper/containerd-1.6-1.7.toml), then with `podlimits nri` on
# the NRI socket deploy/nri/containerd-1.7.toml turns on, on one containerd, in the cgroup v2
# guest with nsdelegate.
CRI_LINE=1.7
. "$E2E/tests/cri-containerd2.sh"
