# e2e-timeout: 60
# KEP-5758: ulimits are allowed only at the Pod Security "privileged" level: in a "baseline"
# namespace the pod is rejected with the apiserver's message, exit 1, and nothing is created.
need_podlimits_run
pl_run ulimits-baseline.yaml
expect_rejected '^Error from server \(Forbidden\): pods "ulimits-baseline" is forbidden: violates PodSecurity "baseline:latest": ulimits \(container "app" must not set securityContext\.ulimits\)$'
expect_no_file_match "container output" "$W/run.err" 'should never run'
