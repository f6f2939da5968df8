#!/usr/bin/env bash
# bench/podman_env.sh DIR CMD [ARG...]: runs CMD with Debian's podman set up in a scratch
# directory DIR, inside a private mount namespace whose /sys/fs/cgroup shows only the cgroup v1
# hierarchies podman may use. For the side-by-side comparison in bench/serve_api.py (--podman N).
# Needs root; installs podman (`apt-get install -y --no-install-recommends podman`) if missing.
#
# Why the view: podman's cgroupfs manager, conmon and the OCI runtime create cgroups in every v1
# hierarchy they see. On a hybrid machine whose `memory` hierarchy belongs to the machine, they
# must not see that one. CMD runs chrooted in a non-recursive bind of / (DIR must be on the root
# filesystem) with its own proc, sysfs and /dev, and a tmpfs at /sys/fs/cgroup holding only
# cpu, cpuacct, cpuset, devices, freezer, blkio and pids. The cgroup2 mount at
# /sys/fs/cgroup/unified is left out as well: crun 1.8 refuses the hybrid layout when the v2
# root lists a controller (here hugetlb), so podman sees pure cgroup v1. Nothing on the machine is
# mounted or remounted: every mount dies with the namespace.
#
# podman's configuration (written to DIR, passed with CONTAINERS_CONF and
# CONTAINERS_STORAGE_CONF; /etc/containers is not changed):
#   - storage: driver overlay, graphroot DIR/storage, runroot DIR/runroot;
#   - engine: cgroup_manager cgroupfs, runtime crun, tmp_dir DIR/libpod-tmp, events to
#     DIR/events.log (no journald here), image copies in DIR/tmp;
#   - containers: log_driver k8s-file; default_ulimits nofile at the hard limit this shell
#     has and nproc at that or 32768 (below), soft = hard, as
#     podlimits gives a container (default_rlimits.h). podman's own default nofile, 1048576,
#     cannot be set without CAP_SYS_RESOURCE (crun: `setrlimit RLIMIT_NOFILE: Operation not
#     permitted`); and podman 4.3 wrote "nofile=1024:20000" into the spec as soft 20000, hard
#     1024 (crun: `setrlimit RLIMIT_NOFILE: Invalid argument`);
#   - network: config dir DIR/net; the pods themselves are played with `--network none`.
# Inside the view, /run, /var/tmp and /var/lib are covered by directories of DIR and /dev/shm by a
# tmpfs, so that nothing podman writes there by default reaches the machine (its SHM locks, crun's
# state in /run/crun, and containers/image's blob-info cache, which podman 4.3 keeps in
# /var/lib/containers/cache whatever graphroot says).
#
# podman still makes its pod's cgroup directory under /sys/fs/cgroup/memory, which in the view is a
# plain directory on the tmpfs, and podman (moving conmon: `tasks`) and crun (`cgroup.procs`,
# `memory.*`) write plain files into it. Those keep `podman pod rm` / `kube down` from removing the
# pod ("remove .../conmon: directory not empty"): CMD must delete the regular files under the
# view's unmounted controller directories before it removes pods (serve_api.py's agent does,
# checking in /proc/self/mountinfo that they are not mounted).
#
# When CMD exits, the v1 cgroups podman left (libpod_parent, empty once its pods are removed)
# are removed with rmdir, still inside the view. The caller removes DIR.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: bench/podman_env.sh DIR CMD [ARG...]" >&2
  exit 2
fi
dir=$(realpath -m "$1")
shift

if ! command -v podman >/dev/null 2>&1; then
  echo "podman_env.sh: installing podman (Debian's)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends podman >&2 ||
    { apt-get update >&2 && apt-get install -y --no-install-recommends podman >&2; }
fi

mkdir -p "$dir"
if [ "$(stat -c %d "$dir")" != "$(stat -c %d /)" ]; then
  echo "podman_env.sh: $dir is not on the root filesystem (the view binds / non-recursively)" >&2
  exit 1
fi
mkdir -p "$dir"/{viewroot,storage,runroot,libpod-tmp,tmp,net,run,var-tmp,var-lib}

# podman 4.3 lowers its own RLIMIT_NPROC to 32768 (soft and hard; strace: setrlimit(RLIMIT_NPROC,
# {32*1024, 32*1024})) before it starts conmon, so no container of it can get more.
hard_nofile=$(ulimit -Hn) hard_nproc=$(ulimit -Hu)
[ "$hard_nproc" = unlimited ] || [ "$hard_nproc" -gt 32768 ] && hard_nproc=32768
cat >"$dir/containers.conf" <<EOF
[containers]
log_driver = "k8s-file"
default_ulimits = ["nofile=$hard_nofile:$hard_nofile", "nproc=$hard_nproc:$hard_nproc"]

[engine]
cgroup_manager = "cgroupfs"
runtime = "crun"
events_logger = "file"
events_logfile_path = "$dir/events.log"
tmp_dir = "$dir/libpod-tmp"
volume_path = "$dir/storage/volumes"
image_copy_tmp_dir = "$dir/tmp"

[network]
network_config_dir = "$dir/net"
EOF
cat >"$dir/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$dir/storage"
runroot = "$dir/runroot"
EOF

export PODMAN_VIEW_DIR=$dir
exec unshare -m --propagation private sh -ec '
  trap "" INT  # a Ctrl-C must not stop CMD (and the cleanup below) halfway; CMD inherits this
  d=$PODMAN_VIEW_DIR; R=$d/viewroot
  mount --bind / "$R"
  mount -t proc proc "$R/proc"
  mount -t sysfs sysfs "$R/sys"
  mount --rbind /dev "$R/dev"
  mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
  mount --bind "$d/run" "$R/run"
  mount --bind "$d/var-tmp" "$R/var/tmp"
  mount --bind "$d/var-lib" "$R/var/lib"
  mount -t tmpfs -o mode=0755 tmpfs "$R/sys/fs/cgroup"
  for c in cpu cpuacct cpuset devices freezer blkio pids; do
    mkdir "$R/sys/fs/cgroup/$c"
    mount -t cgroup -o "$c" cgroup "$R/sys/fs/cgroup/$c"
  done
  rc=0
  chroot "$R" env CONTAINERS_CONF="$d/containers.conf" CONTAINERS_STORAGE_CONF="$d/storage.conf" \
    TMPDIR="$d/tmp" "$@" || rc=$?
  for c in cpu cpuacct cpuset devices freezer blkio pids; do
    top=$R/sys/fs/cgroup/$c/libpod_parent
    [ -d "$top" ] && find "$top" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    [ -d "$top" ] && echo "podman_env.sh: $top not removed (not empty?)" >&2
  done
  exit $rc
' podman_env "$@"
