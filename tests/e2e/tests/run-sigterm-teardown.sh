# e2e-timeout: 90
# SIGTERM to podlimits while the pod runs (a user's ^C): the pod is stopped within its grace
# period (2 s; its container ignores SIGTERM, so SIGKILL ends it), podlimits exits with a failure
# status, and the node is left as it was: no pod cgroup, mount, bundle or process (the driver's
# teardown check).
need_pods
uid=0e2e0000-0000-4000-8000-000000000004
pl_start sigterm.yaml
wait_ready app
pod_cgroup "$uid" >/dev/null
kill -TERM "$RUN_PID"
pl_wait 30
[ "$RUN_RC" != 0 ] || fail "podlimits run exited 0 after SIGTERM stopped its pod"
[ -z "$(find /sys/fs/cgroup/kubepods -type d -name "pod$uid" 2>/dev/null)" ] || fail "the pod cgroup is still there"
detail "exit status $RUN_RC after SIGTERM"
