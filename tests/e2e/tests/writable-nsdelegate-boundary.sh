# e2e-timeout: 120
# KEP-5474 with nsdelegate: a Writable container cannot write its own pids.max or
# cgroup.max.descendants (EPERM: its cgroup is its namespace root), and a process in its cgroup
# namespace cannot move into a sibling cgroup outside that namespace (the other container's, or
# the pod cgroup): the kernel refuses with ENOENT. The move is tried from the node with
# util-linux nsenter (a process first placed in container a's cgroup, then entering a's cgroup
# namespace with the node's full /sys/fs/cgroup mount); moving within the namespace is the
# control.
need_pods
uid=0e2e0000-0000-4000-8000-000000000031
pl_start writable-boundary.yaml
wait_ready a
wait_ready b
for f in pids.max cgroup.max.descendants; do
  expect_match "write of $f inside container a" "$(container_value a "write-$f")" '^failed .*Operation not permitted'
  expect_eq "$f inside container a after the refused write" "$(container_value a "$f")" max
done
pc=$(pod_cgroup "$uid")
ca=$(container_cgroup "$uid" e2e-boundary-a)
cb=$(container_cgroup "$uid" e2e-boundary-b)
apid=$(head -n 1 "$ca/cgroup.procs")
try_move() {  # try_move DEST_CGROUP: from a's cgroup and cgroup namespace; prints the error
  sh -c 'echo $$ >"$1/cgroup.procs" || exit 9
    exec /e2e/bin/nsenter --cgroup="/proc/$2/ns/cgroup" sh -c "echo \$\$ >$3/cgroup.procs"' \
    try_move "$ca" "$apid" "$1" 2>&1
}
out=$(try_move "$ca") || fail "the control move within a's own cgroup failed: $out"
if out=$(try_move "$cb"); then fail "a process in a's cgroup namespace moved into container b's cgroup"; fi
expect_match "moving into the sibling container's cgroup" "$out" 'No such file or directory'
if out=$(try_move "$pc"); then fail "a process in a's cgroup namespace moved into the pod cgroup"; fi
expect_match "moving into the pod cgroup" "$out" 'No such file or directory'
pod_release "$uid"
pl_wait
expect_succeeded
