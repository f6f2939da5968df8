# e2e-timeout: 90
# `podlimits run` without -o json: the container's lines on stdout as "[app] ...", the events on
# stderr as kubectl describe lists them ("  Normal  Reason  Message"), exit 0 for a Succeeded pod.
need_pods
pl_run_text json-status.yaml
[ "$RUN_RC" = 0 ] || fail "podlimits run exited $RUN_RC: $(tail -n 3 "$W/run.err" | one_line)"
expect_eq "stdout" "$(cat "$W/run.out")" "[app] hello from app"
expect_file_match "an event line on stderr" "$W/run.err" '^  (Normal|Warning) +[A-Za-z]+  +[^ ]'
expect_no_file_match "container output on stderr" "$W/run.err" 'hello from app'
