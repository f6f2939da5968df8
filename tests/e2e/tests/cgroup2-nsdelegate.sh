# e2e-mode: nsdelegate
# e2e-timeout: 30
# The node the suite runs on: /sys/fs/cgroup is cgroup2 (no v1 hierarchy anywhere) mounted with
# nsdelegate, the pids controller is enabled for the root's children, and nsdelegate is in
# force: from inside a cgroup namespace, the namespace root's pids.max cannot be written.
line=$(awk '$2 == "/sys/fs/cgroup"' /proc/self/mounts)
expect_match "the /sys/fs/cgroup mount" "$line" '^cgroup2 /sys/fs/cgroup cgroup2 '
opts=$(echo "$line" | cut -d' ' -f4)
case ",$opts," in
  *,nsdelegate,*) ;;
  *) fail "cgroup2 is mounted with '$opts', without nsdelegate" ;;
esac
v1=$(awk '$3 == "cgroup" { print $2 }' /proc/self/mounts | tr '\n' ' ')
[ -z "$v1" ] || fail "cgroup v1 hierarchies are mounted: $v1"
expect_eq "filesystem type of /sys/fs/cgroup" "$(stat -f -c %t /sys/fs/cgroup)" 63677270
expect_match "root cgroup.subtree_control" "$(cat /sys/fs/cgroup/cgroup.subtree_control)" '(^| )pids( |$)'

# The delegation boundary itself.
probe=/sys/fs/cgroup/e2e-nsdelegate-probe
mkdir "$probe"
out=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec /e2e/bin/unshare --cgroup sh -c "echo 7 >$1/pids.max" 2>&1' \
  probe "$probe") && rc=0 || rc=$?
value=$(cat "$probe/pids.max")
rmdir "$probe"
[ "$rc" -ne 0 ] || fail "inside a cgroup namespace, writing its root's pids.max succeeded (value now $value)"
expect_match "write error inside the namespace" "$out" 'Operation not permitted'
expect_eq "pids.max after the refused write" "$value" max
