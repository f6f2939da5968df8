# e2e-timeout: 150
# The cluster path end to end, without an apiserver (issue 14): an AdmissionReview of a pod that
# asks for ulimits by annotation, in a namespace whose LimitRange defaults the pod PID limit, goes
# through `podlimits webhook` (/mutate, then /validate of the patched pod, as the apiserver calls
# them); the patched pod's runtime class selects podlimits-runc and its annotations become the
# sandbox's and the container's (as containerd's pod_annotations passes them); under containerd
# 1.6 the container's /proc/self/limits and the pod cgroup's pids.max are what the pod asked for.
# webhook-to-ctr-containerd2.sh runs it with CTRD_LINE and CTRD_RUNTIME set.
. "$E2E/containerd.sh"
tls=$E2E/webhook-tls
cat >"$W/webhook.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: ci, labels: {pod-security.kubernetes.io/enforce: privileged}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: pod-pids, namespace: ci}
spec:
  limits:
  - type: Pod
    default: {pid: "2048"}
    max: {pid: "4096"}
YAML
podlimits webhook --tls-cert-file "$tls/cert.pem" --tls-private-key-file "$tls/key.pem" \
  --listen 127.0.0.1:0 --config "$W/webhook.yaml" 2>"$W/webhook.log" &
WEBHOOK_PID=$!
stop_webhook() { kill -TERM "$WEBHOOK_PID" 2>/dev/null; wait "$WEBHOOK_PID" 2>/dev/null; ctrd_stop; }
i=0
while ! grep -qs listening "$W/webhook.log"; do
  alive "$WEBHOOK_PID" || fail "the webhook exited: $(one_line <"$W/webhook.log")"
  [ $i -lt 100 ] || fail "the webhook did not listen in 20 s"
  sleep 0.2; i=$((i + 1))
done
port=$(sed -n 's/.*https:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$W/webhook.log")

ulimits='[{"type":"RLIMIT_NOFILE","soft":1024,"hard":4096}]'
review() {  # review ANNOTATIONS-JSON [RUNTIME-CLASS]
  q=$(printf '%s' "$ulimits" | sed 's/"/\\"/g')
  printf '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e-1",'
  printf '"kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},'
  printf '"namespace":"ci","operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod",'
  printf '"metadata":{"name":"runner","namespace":"ci","annotations":{"ulimits.noderesource.dev/container.app":"%s"%s}},' "$q" "$1"
  printf '"spec":{%s"containers":[{"name":"app","image":"busybox"}]}}}}' "${2:+\"runtimeClassName\":\"$2\",}"
}
post() {  # post PATH BODY-FILE OUT
  curl -sS --fail-with-body --cacert "$tls/cert.pem" -H 'Content-Type: application/json' \
    --data-binary "@$2" -o "$3" "https://127.0.0.1:$port$1" 2>"$W/curl.err" ||
    fail "POST $1 failed: $(cat "$W/curl.err" "$3" 2>/dev/null | one_line)"
}

review "" >"$W/review.json"
post /mutate "$W/review.json" "$W/mutate.json"
jflat "$W/mutate.json" >"$W/mutate.flat"
jexpect "$W/mutate.flat" response.allowed true
jget "$W/mutate.flat" response.patch | base64 -d >"$W/patch.json" || fail "the patch is not base64"
jflat "$W/patch.json" >"$W/patch.flat"
log "patch: $(one_line <"$W/patch.json")"

# Apply the JSONPatch as the apiserver would: here only adds to the runtime class and annotations.
runtime_class="" extra=""
i=0
while op=$(jget "$W/patch.flat" "$i.op"); do
  path=$(jget "$W/patch.flat" "$i.path")
  value=$(jget "$W/patch.flat" "$i.value")
  expect_eq "patch op $i" "$op" add
  case "$path" in
    (/spec/runtimeClassName) runtime_class=$value ;;
    (/metadata/annotations/*)
      key=$(printf '%s' "${path#/metadata/annotations/}" | sed 's|~1|/|g; s|~0|~|g')
      extra="$extra $key=$value" ;;
    (*) fail "unexpected patch path $path" ;;
  esac
  i=$((i + 1))
done
# A PID limit needs cgroup v2: the class whose nodes declare PerPodPIDLimit (default names).
expect_eq "the runtime class the webhook sets" "$runtime_class" podlimits-pid
expect_eq "the PID limit the LimitRange defaults" "$extra" " podlimits.dev/pod-pid-limit=2048"

# The apiserver then validates the mutated pod.
review ',"podlimits.dev/pod-pid-limit":"2048"' podlimits-pid >"$W/review2.json"
post /validate "$W/review2.json" "$W/validate.json"
jflat "$W/validate.json" >"$W/validate.flat"
jexpect "$W/validate.flat" response.allowed true

# The node: every podlimits runtime class has the handler whose BinaryName is podlimits-runc.
ctrd_start "${CTRD_RUNTIME:-/usr/bin/crun}"
make_pod_cgroup 0e2e0000-0000-4000-8000-0000000000c3 4096
pc=$POD_CGROUP
pod_annotations="ulimits.noderesource.dev/container.app=$ulimits$extra"
# shellcheck disable=SC2046,SC2086
ctr_run "$pc" sandbox $(cri_sandbox ci runner) $pod_annotations -- true
expect_eq "sandbox create" "$CTR_RC" 0
# shellcheck disable=SC2046,SC2086
ctr_run "$pc" app $(cri_container ci runner app) $pod_annotations -- cat /proc/self/limits
expect_eq "container create" "$CTR_RC" 0
expect_eq "nofile of the container" "$(limit_of "$W/app.out" 'Max open files')" "1024 4096"
expect_eq "pids.max of the pod cgroup" "$(cg_read "/sys/fs/cgroup$pc/pids.max")" 2048
stop_webhook
detail "containerd $CTRD_VERSION: runtimeClassName podlimits-pid, pid default 2048 -> pids.max 2048, nofile 1024/4096"
