#!/usr/bin/env bash
# bench/webhook_sigterm.sh [BINARY] [ROUNDS]: `podlimits webhook` gets SIGTERM in the middle of
# `hey -z 5s -q 200` (50 keep-alive connections, 10,000 reviews/s asked), as issue 29 measured it
# (4 to 31 of ~23,000 reviews lost). Per round: the reviews answered, and hey's errors sorted
# into those the webhook is to blame for (a request sent, the connection closed or reset before
# its answer: EOF, reset) and those it is not (the listener closed: connection refused, after the
# webhook has exited or while it drains). Loopback only; the webhook is stopped each round.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/src/cli/podlimits}
rounds=${2:-3}
command -v hey >/dev/null || { echo "bench/webhook_sigterm.sh: needs hey (apt-get install hey)" >&2; exit 2; }
work=$(mktemp -d /tmp/podlimits-webhook-sigterm.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null; rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 1 \
  -subj /CN=podlimits-webhook -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
printf '%s\n' 'apiVersion: v1' 'kind: Namespace' 'metadata:' '  name: ci' \
  '  labels: {pod-security.kubernetes.io/enforce: privileged}' >"$work/config.yaml"
cat >"$work/review.json" <<'JSON'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ci","operation":"CREATE","userInfo":{"username":"system:serviceaccount:ci:runner"},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"runner","namespace":"ci","annotations":{"ulimits.noderesource.dev/container.runner":"- type: RLIMIT_NOFILE\n  soft: 65536\n  hard: 65536\n"}},"spec":{"containers":[{"name":"runner","image":"registry.example/ci/runner:1.4"}],"restartPolicy":"Never"}},"dryRun":false}}
JSON
for round in $(seq "$rounds"); do
  "$bin" webhook --tls-cert-file "$work/cert.pem" --tls-private-key-file "$work/key.pem" \
    --listen 127.0.0.1:0 --config "$work/config.yaml" 2>"$work/log" &
  pid=$!
  for _ in $(seq 50); do grep -qs listening "$work/log" && break; sleep 0.1; done
  port=$(sed -n 's/.*https:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/log")
  hey -z 5s -q 200 -m POST -T application/json -D "$work/review.json" \
    "https://127.0.0.1:$port/mutate" >"$work/hey.txt" 2>&1 &
  hey_pid=$!
  sleep 2.5
  kill -TERM "$pid"
  wait "$pid" || true
  pid=
  wait "$hey_pid" || true
  awk -v round="$round" '
    /\[200\]/ {ok=$2}
    /Error distribution/ {in_errors=1; next}
    in_errors && /\[[0-9]+\]/ {
      n=substr($1, 2, length($1)-2)
      if ($0 ~ /connection refused/) refused+=n; else lost+=n
      if ($0 !~ /connection refused/) { sub(/^ +\[[0-9]+\] +/, ""); kinds[$0]+=n }
    }
    END {
      printf "round %s: %d answered, %d refused (listener closed), %d lost after sending\n",
        round, ok, refused, lost
      for (k in kinds) printf "    %d  %s\n", kinds[k], substr(k, 1, 160)
    }' "$work/hey.txt"
done
