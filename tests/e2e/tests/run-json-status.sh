# e2e-timeout: 90
# `podlimits run -o json`: stdout holds exactly one PodRunStatus object (pod identity, QoS class,
# phase, the pod cgroup, each container's exit code and restarts, the events), the container's
# lines go to stderr as "[app] ...", and a Succeeded pod exits 0.
need_pods
uid=0e2e0000-0000-4000-8000-000000000001
pl_run json-status.yaml
expect_succeeded
compact=$(tr -d ' \t\r\n' <"$W/run.json")
expect_eq "first character of stdout" "$(printf '%s' "$compact" | head -c 1)" "{"
expect_eq "last character of stdout" "$(printf '%s' "$compact" | tail -c 1)" "}"
expect_eq "JSON objects on stdout" "$(grep -c '^{' "$W/run.json")" 1
f=$W/run.flat
jexpect "$f" kind PodRunStatus
jexpect "$f" pod.name json-status
jexpect "$f" pod.namespace default
jexpect "$f" pod.uid "$uid"
jexpect "$f" qosClass BestEffort
jexpect "$f" phase Succeeded
jexpect "$f" cgroup.path "/kubepods/besteffort/pod$uid"
jexpect "$f" containers.0.name app
jexpect "$f" containers.0.exitCode 0
jexpect "$f" containers.0.restarts 0
grep -q '^events\.' "$f" || grep -q '^events=\[\]' "$f" || fail "PodRunStatus has no events"
expect_eq "container output on stderr" "$(container_lines app)" "hello from app"
expect_no_file_match "stdout" "$W/run.json" 'hello from app'
