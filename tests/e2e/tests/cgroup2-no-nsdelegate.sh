# e2e-mode: no-nsdelegate
# e2e-timeout: 30
# The second boot: cgroup2 at /sys/fs/cgroup WITHOUT nsdelegate, so the namespace root's files
# are writable from inside a cgroup namespace (the absence that CgroupOptions must refuse).
line=$(awk '$2 == "/sys/fs/cgroup"' /proc/self/mounts)
expect_match "the /sys/fs/cgroup mount" "$line" '^cgroup2 /sys/fs/cgroup cgroup2 '
opts=$(echo "$line" | cut -d' ' -f4)
case ",$opts," in
  *,nsdelegate,*) fail "cgroup2 is mounted with nsdelegate ($opts) in the no-nsdelegate boot" ;;
esac
expect_match "root cgroup.subtree_control" "$(cat /sys/fs/cgroup/cgroup.subtree_control)" '(^| )pids( |$)'

probe=/sys/fs/cgroup/e2e-nsdelegate-probe
mkdir "$probe"
rc=0
sh -c 'echo $$ >"$1/cgroup.procs" && exec /e2e/bin/unshare --cgroup sh -c "echo 7 >$1/pids.max"' \
  probe "$probe" || rc=$?
value=$(cat "$probe/pids.max")
rmdir "$probe"
expect_eq "exit status of the write inside the namespace" "$rc" 0
expect_eq "pids.max written from inside the namespace" "$value" 7
