#!/usr/bin/env bash
# bench/webhook_load.sh [BINARY] [SECONDS]: `podlimits webhook` under load from hey (Debian's
# HTTP load generator) on the same machine, over loopback TLS with keep-alive: one review that
# asks for ulimits in a privileged namespace (the work a real review does: decode, annotations,
# validation, Pod Security, the JSONPatch), posted to /mutate
#   - at fixed rates (hey -q per worker × -c workers), to read latency at a given throughput;
#   - flat out, for the throughput;
#   - with wrk (C, epoll; closed loop: each connection sends its next review when the answer
#     arrives) on 4 and 8 connections from one thread: latency at the throughput those reach,
#     with a client that takes less of the 2 cores than hey's Go runtime;
#   - with h2load (C, HTTP/1.1 as kube-apiserver calls a webhook behind a Service) at a fixed
#     10,000/s on 4, 8, 16 and 64 keep-alive connections, with the client's and the server's CPU
#     per review, when it is installed;
#   - with connection churn (part "churn", h2load): the same 10,000/s from 64 connections at a
#     time, each closed after CHURN_REVIEWS (default 100) reviews and replaced by a new one with a
#     full TLS handshake, as the apiserver's idle connections are closed and opened again.
# Prints hey's and wrk's p50/p99/max and rate, and the server's own histogram (time from body to
# response, without the client's share of the 2 cores). Figures go to docs/benchmarks.md.
# PARTS (default "hey wrk h2load") picks the clients to run, e.g. PARTS=h2load
# H2LOAD_CONNECTIONS="16 64" for the cluster issue's figure alone; WRK_CONNECTIONS (default
# "4 8") wrk's connection counts. On a shared machine run the whole script under
# `nice -n -10`: the server and the clients inherit it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/src/cli/podlimits}
seconds=${2:-10}
command -v hey >/dev/null || { echo "bench/webhook_load.sh: needs hey (apt-get install hey)" >&2; exit 2; }
work=$(mktemp -d /tmp/podlimits-webhook-bench.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill -TERM $pid 2>/dev/null; rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 1 \
  -subj /CN=podlimits-webhook -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
printf '%s\n' 'apiVersion: v1' 'kind: Namespace' 'metadata:' '  name: ci' \
  '  labels: {pod-security.kubernetes.io/enforce: privileged}' >"$work/config.yaml"
cat >"$work/review.json" <<'JSON'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ci","operation":"CREATE","userInfo":{"username":"system:serviceaccount:ci:runner"},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"runner","namespace":"ci","labels":{"app":"runner"},"annotations":{"ulimits.noderesource.dev/container.runner":"- type: RLIMIT_NOFILE\n  soft: 65536\n  hard: 65536\n- type: RLIMIT_CORE\n  soft: 0\n  hard: 0\n"}},"spec":{"containers":[{"name":"runner","image":"registry.example/ci/runner:1.4","command":["/bin/runner"],"resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"memory":"1Gi"}}}],"restartPolicy":"Never"}},"dryRun":false}}
JSON
"$bin" webhook --tls-cert-file "$work/cert.pem" --tls-private-key-file "$work/key.pem" \
  --listen 127.0.0.1:0 --config "$work/config.yaml" 2>"$work/log" &
pid=$!
for _ in $(seq 50); do grep -qs listening "$work/log" && break; sleep 0.1; done
port=$(sed -n 's/.*https:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/log")
url=https://127.0.0.1:$port/mutate
summary() {  # hey's output: rate, p50, p99, slowest, status codes
  awk '/Requests\/sec/{r=$2} /Slowest/{s=$2} / 50% in/{p50=$3} / 99% in/{p99=$3}
       /Status code distribution/{in_codes=1; next} in_codes && /\[[0-9]+\]/{codes=codes" "$1$2}
       END{printf "  %.0f reviews/s  p50 %.2f ms  p99 %.2f ms  max %.2f ms  status%s\n",
           r, p50*1000, p99*1000, s*1000, codes}'
}
# The CPU each side spent per review: the server's from /proc/PID/stat (user + system, in ticks),
# the client's from /usr/bin/time. Both share the machine's cores, so either one's share shows
# in the other's tail.
server_cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
ticks=$(getconf CLK_TCK)
cpu_per_review() {  # REVIEWS SERVER_TICKS TIME_FILE CLIENT_NAME
  awk -v n="$1" -v s="$2" -v hz="$ticks" -v client="$4" '{
    printf "  CPU per review: server %.0f us, client (%s) %.0f us\n",
      s / hz / n * 1e6, client, ($1 + $2) / n * 1e6 }' "$3"
}
# h2load's per-request log (it appends, so each run has its own) as percentiles.
percentiles() {
  sort -n -k3,3 "$1" | awk '{v[NR]=$3} END {
    printf "  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  p99.9 %.2f ms  max %.2f ms\n",
      v[int(NR*0.5)]/1000, v[int(NR*0.9)]/1000, v[int(NR*0.99)]/1000, v[int(NR*0.999)]/1000,
      v[NR]/1000}'
}
echo "== load before: $(cut -d' ' -f1-3 /proc/loadavg)"
parts=" ${PARTS:-hey wrk h2load} "
hey -n 2000 -c 8 -m POST -T application/json -D "$work/review.json" "$url" >/dev/null  # warm up
if [[ $parts == *" hey "* ]]; then
for rate in 1000 5000 10000; do
  echo "-- $rate reviews/s for ${seconds}s (16 connections)"
  hey -z "${seconds}s" -c 16 -q $((rate / 16)) -m POST -T application/json -D "$work/review.json" \
    "$url" | summary
done
echo "-- flat out for ${seconds}s (16 connections)"
hey -z "${seconds}s" -c 16 -m POST -T application/json -D "$work/review.json" "$url" | summary
fi
if [[ $parts == *" wrk "* ]] && command -v wrk >/dev/null; then
  cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/review.json", "rb"); wrk.body = f:read("*a"); f:close()
LUA
  for conns in ${WRK_CONNECTIONS:-4 8}; do
    echo "-- wrk, $conns connections, 1 thread, ${seconds}s (closed loop)"
    before=$(server_cpu)
    /usr/bin/time -f '%U %S' -o "$work/wrk.time" \
      wrk -t1 -c"$conns" -d"${seconds}s" --latency -s "$work/post.lua" "$url" >"$work/wrk.out"
    after=$(server_cpu)
    awk '/^ +[0-9]+ requests in/ {n=$1} /Requests\/sec/ {r=$2} /Non-2xx/ {bad=$NF}
      /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} /^ +Latency +[0-9]/ {max=$4}
      END {printf "  %s reviews/s  p50 %s  p99 %s  max %s  non-2xx %s\n", r, p50, p99, max, bad+0}' \
      "$work/wrk.out"
    reviews=$(awk '/^ +[0-9]+ requests in/ {print $1}' "$work/wrk.out")
    cpu_per_review "$reviews" $((after - before)) "$work/wrk.time" wrk
  done
fi
if [[ $parts == *" h2load "* ]] && command -v h2load >/dev/null; then
  # h2load (nghttp2's, C with libev, one thread) at a fixed rate: --rps per connection, its
  # connections started together, so their requests come in bursts (16 every 1.6 ms on 16
  # connections, as hey's do); it takes about half of hey's CPU. The same 10,000/s over 4, 8, 16
  # and 64 connections: the apiserver opens one per review in flight (its webhook client forces
  # HTTP/1.1 for webhooks behind a Service). Percentiles from its per-request log.
  for conns in ${H2LOAD_CONNECTIONS:-4 8 16 64}; do
    reviews=$((seconds * 10000))
    echo "-- h2load, fixed 10000 reviews/s, $conns connections, $reviews reviews"
    rm -f "$work/h2load.log"
    before=$(server_cpu)
    /usr/bin/time -f '%U %S' -o "$work/h2load.time" \
      h2load --h1 -n "$reviews" -c "$conns" --rps $((10000 / conns)) \
      -d "$work/review.json" -H 'content-type: application/json' --log-file="$work/h2load.log" \
      "$url" |
      awk '/^finished in/ {r=$4} /^status codes:/ {codes=$3" 2xx, "$5" 3xx, "$7" 4xx, "$9" 5xx"}
           END {printf "  %s reviews/s, %s\n", r, codes}'
    after=$(server_cpu)
    percentiles "$work/h2load.log"
    cpu_per_review "$reviews" $((after - before)) "$work/h2load.time" h2load
  done
fi
if [[ $parts == *" churn "* ]] && command -v h2load >/dev/null; then
  # 64 connections at a time, each making CHURN_REVIEWS reviews at 10000/64 per second and then
  # closing; h2load opens new ones at the rate that keeps 64 open (-r per 100 ms), each with a
  # full TLS handshake (h2load resumes no sessions, as the apiserver's Go client does not).
  per_connection=${CHURN_REVIEWS:-100}
  (( per_connection >= 1 && per_connection <= 1000 )) ||
    { echo "bench/webhook_load.sh: CHURN_REVIEWS is 1 to 1000" >&2; exit 2; }
  reviews=$((seconds * 10000))
  connections=$((reviews / per_connection))
  per_100ms=$((1000 / per_connection))
  echo "-- h2load, churn: fixed 10000 reviews/s, 64 connections at a time, each closed after" \
    "$per_connection reviews ($((per_100ms * 10)) new connections/s), $reviews reviews"
  rm -f "$work/h2load.log"
  before=$(server_cpu)
  /usr/bin/time -f '%U %S' -o "$work/h2load.time" \
    h2load --h1 -n "$reviews" -c "$connections" -r "$per_100ms" --rate-period 100ms \
    --rps $((10000 / 64)) -d "$work/review.json" -H 'content-type: application/json' \
    --log-file="$work/h2load.log" "$url" |
    awk '/^finished in/ {r=$4} /^status codes:/ {codes=$3" 2xx, "$5" 3xx, "$7" 4xx, "$9" 5xx"}
         END {printf "  %s reviews/s, %s\n", r, codes}'
  after=$(server_cpu)
  percentiles "$work/h2load.log"
  cpu_per_review "$reviews" $((after - before)) "$work/h2load.time" h2load
fi
echo "-- the server's own time per review (all runs): share answered within"
curl -sk "https://127.0.0.1:$port/metrics" | awk -F'[{}" ]+' '
  /review_duration_seconds_bucket\{path="mutate"/ {le[$5]=$NF}
  /review_duration_seconds_count\{path="mutate"/ {n=$NF}
  END{for (b in le) if (b!="+Inf") printf "  %s s: %.2f%%\n", b, 100*le[b]/n}' | sort -t: -k1,1g
echo "-- the server's CPU over all runs: $(awk '{printf "%.2f s user, %.2f s system", $14/100, $15/100}' /proc/$pid/stat)"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
