# e2e-timeout: 90
# The pod sandbox on cgroup v2: both containers are in the holder's network, IPC, UTS and (with
# shareProcessNamespace) PID namespaces; loopback is up, the client reaches the server on
# 127.0.0.1, the hostname is the pod's name and PID 1 is the holder. Nothing is left after.
need_pods
pl_run sandbox-shared.yaml
expect_succeeded
for ns in net ipc pid; do
  s=$(container_value server "$ns")
  [ -n "$s" ] || fail "the server printed no $ns namespace"
  expect_eq "the client's $ns namespace" "$(container_value client "$ns")" "$s"
done
expect_eq "the client's hostname" "$(container_value client host)" sandbox-shared
expect_eq "the server's hostname" "$(container_value server host)" sandbox-shared
expect_match "the shared PID namespace's PID 1" "$(container_value server pid1)" '^catatonit -P'
# IFF_UP is bit 0 of the interface flags.
lo=$(container_value server lo)
[ $(( lo & 1 )) -eq 1 ] || fail "loopback is not up in the pod's network namespace (flags $lo)"
expect_eq "what the client got from the server on localhost" "$(container_value client reply)" hello-from-server
