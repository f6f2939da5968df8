# e2e-timeout: 90
# emptyDir (disk, setgid to fsGroup, mode 2777), emptyDir medium Memory (a tmpfs that stops at
# its 1 MiB sizeLimit), hostPath DirectoryOrCreate with a subPath and a read-only mount, on cgroup
# v2: what the container wrote to the host path is there after the pod, and the pod's directory
# with its emptyDirs is gone.
need_pods
rm -rf /tmp/e2e-volume
pl_run volumes.yaml
expect_succeeded
expect_eq "a write to the read-only mount" "$(container_value app ro)" refused
expect_eq "the emptyDir's mode" "$(container_value app scratch-mode)" 2777
expect_eq "the emptyDir's group (fsGroup)" "$(container_value app scratch-group)" 2000
expect_eq "the memory emptyDir's file system" "$(container_value app mem-type)" tmpfs
expect_eq "KiB written before the tmpfs was full" "$(container_value app mem-kib)" 1024
expect_eq "the host file" "$(cat /tmp/e2e-volume/kept 2>/dev/null)" kept
expect_eq "the host file through the subPath" "$(cat /tmp/e2e-volume/logs/file 2>/dev/null)" in-sub
# Nothing of the pod is left on the node: its directory (and the emptyDirs in it) is gone.
[ -z "$(ls -A /run/podlimits/pods 2>/dev/null | grep -v '\.lock$')" ] ||
  fail "pod state left: $(ls /run/podlimits/pods | one_line)"
rm -rf /tmp/e2e-volume
