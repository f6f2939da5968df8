# e2e-timeout: 90
# A container exiting 3 (restartPolicy Never): phase Failed, exit code 3 in the status, podlimits
# exits 1, and nothing is left behind (the driver's teardown check).
need_pods
pl_run failed-pod.yaml
expect_eq "podlimits run exit status" "$RUN_RC" 1
jexpect "$W/run.flat" phase Failed
jexpect "$W/run.flat" containers.0.exitCode 3
jexpect "$W/run.flat" containers.0.restarts 0
expect_eq "container output" "$(container_lines app)" failing
