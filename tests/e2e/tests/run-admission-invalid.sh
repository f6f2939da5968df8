# e2e-timeout: 60
# `podlimits run` admits the pod as the apiserver would: an invalid pod PID limit is rejected
# with the apiserver's message, exit 1, and nothing is created.
need_podlimits_run
pl_run pid-too-low.yaml
expect_rejected '^Error from server \(Invalid\): Pod "pid-too-low" is invalid: spec\.resources\.limits\[pid\]: Invalid value: "512": must be between 1024 and 16384, inclusive$'
expect_no_file_match "container output" "$W/run.err" 'should never run'
