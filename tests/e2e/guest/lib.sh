# shellcheck shell=sh disable=SC2013,SC2016
# Helpers every e2e test has: the driver sources this file, then tests/NAME.sh, in one busybox
# sh with `set -eu`. The driver sets E2E_TEST (the name), E2E_DETAIL (the file whose first line
# becomes the result's detail) and E2E_WORK (a scratch directory, dumped to the console when the
# test fails). A test passes when it returns 0; `fail` ends it with a reason.
#
# Conventions for pod tests (docs/e2e.md):
#   - manifests live in /e2e/pods (tests/e2e/pods in the tree) with a fixed metadata.uid, so the
#     pod cgroup is /sys/fs/cgroup/kubepods/<qos>/pod<uid>; node configs are pods/node-*.yaml
#   - a container that must wait while the test reads the kernel prints a line ("ready") and
#     waits for SIGTERM, which `pod_release` sends to every process of the pod (or of one
#     container): `trap 'go=1' TERM; sleep 100000 & echo ready; wait; ...` (no fork while it
#     waits, so the pod's pids.current stays still)
#   - with -o json the containers' lines are on stderr as "[NAME] line"
#   - commands go through the kubelet's $(VAR) expansion: write $$ as $$$$ (or avoid it)
set -eu

E2E=/e2e
PODS=$E2E/pods
W=$E2E_WORK
RUN_PID=

log() { echo "# $*" >&2; }
one_line() { tr '\r\n' '  ' | sed 's/  */ /g; s/^ //; s/ $//' | cut -c1-500; }

# Ends the test with a failure. A pod still running in the background is stopped first (SIGTERM,
# as a user's ^C), so that the teardown check judges podlimits' own teardown.
fail() {
  printf '%s\n' "$*" >"$E2E_DETAIL"
  echo "FAIL: $*" >&2
  if [ -n "$RUN_PID" ] && alive "$RUN_PID"; then
    kill -TERM "$RUN_PID" 2>/dev/null || true
    i=0
    while alive "$RUN_PID" && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
  fi
  exit 1
}
# A note on a passing test (shown with the result).
detail() { printf '%s\n' "$*" >"$E2E_DETAIL"; }

alive() {  # alive PID: the process exists and is not a zombie
  [ -r "/proc/$1/stat" ] || return 1
  read -r line <"/proc/$1/stat" 2>/dev/null || return 1
  rest=${line##*) }
  [ "${rest%% *}" != Z ]
}

expect_eq() {  # expect_eq WHAT GOT WANT
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}
expect_match() {  # expect_match WHAT TEXT ERE
  printf '%s\n' "$2" | grep -Eq -- "$3" || fail "$1: '$(printf '%s' "$2" | one_line)' does not match /$3/"
}
expect_file_match() {  # expect_file_match WHAT FILE ERE
  grep -Eq -- "$3" "$2" 2>/dev/null || fail "$1: no line matches /$3/ in $(basename "$2"): $(tail -n 3 "$2" 2>/dev/null | one_line)"
}
expect_no_file_match() {  # expect_no_file_match WHAT FILE ERE
  if grep -Eq -- "$3" "$2" 2>/dev/null; then
    fail "$1: unexpected line: $(grep -E -- "$3" "$2" | head -n 1 | one_line)"
  fi
}

# --- JSON (jsonflat.awk: PATH=VALUE lines) -------------------------------------------------------
jflat() { awk -f "$E2E/jsonflat.awk" "$1"; }
jget() {  # jget FLAT PATH: the value, or exit status 1 when absent
  awk -v k="$2=" 'index($0, k) == 1 { print substr($0, length(k) + 1); found = 1; exit }
    END { exit !found }' "$1"
}
jexpect() {  # jexpect FLAT PATH WANT
  v=$(jget "$1" "$2") || fail "JSON has no $2 ($(basename "$1"))"
  expect_eq "JSON $2" "$v" "$3"
}
jhas() {  # jhas FLAT ARRAY VALUE: some element of the array of scalars equals VALUE
  awk -v p="$2." -v v="$3" 'index($0, p) == 1 { r = substr($0, length(p) + 1)
      if (r ~ /^[0-9]+=/ && substr(r, index(r, "=") + 1) == v) f = 1 }
    END { exit !f }' "$1"
}
jindex() {  # jindex FLAT ARRAY FIELD VALUE: the index of the first element whose FIELD is VALUE
  awk -v p="$2." -v s=".$3=$4" 'index($0, p) == 1 { r = substr($0, length(p) + 1)
      i = r; sub(/\..*/, "", i); if (substr(r, length(i) + 1) == s) { print i; f = 1; exit } }
    END { exit !f }' "$1"
}

# --- podlimits -------------------------------------------------------------------------------------
need_podlimits_run() {
  podlimits --help 2>&1 | grep -Eq '^ +run( |$)' ||
    fail "podlimits run is not implemented in this build (the test waits for it)"
}
need_image() {
  [ -e /run/e2e/image-loaded ] ||
    fail "busybox:latest is not in the image store: $(head -n 1 /run/e2e/image-load.log 2>/dev/null | one_line)"
}
need_pods() { need_podlimits_run; need_image; }

podlimits_run() {  # podlimits_run POD NODE [ARG...]: NODE "" for the default node
  _pod=$1 _node=$2
  shift 2
  if [ -n "$_node" ]; then
    log "podlimits run -f $PODS/$_pod --node-config $PODS/$_node $*"
    podlimits run -f "$PODS/$_pod" --node-config "$PODS/$_node" "$@"
  else
    log "podlimits run -f $PODS/$_pod $*"
    podlimits run -f "$PODS/$_pod" "$@"
  fi
}

# Runs a pod to completion with -o json: $W/run.json (stdout), $W/run.err (stderr: events and
# container lines), $W/run.flat (the JSON flattened); RUN_RC is the exit status.
pl_run() {  # pl_run POD [NODE]
  RUN_RC=0
  podlimits_run "$1" "${2:-}" -o json >"$W/run.json" 2>"$W/run.err" || RUN_RC=$?
  log "exit status $RUN_RC"
  jflat "$W/run.json" >"$W/run.flat" 2>/dev/null || true
}
# The same without -o json: container lines on $W/run.out, events on $W/run.err.
pl_run_text() {  # pl_run_text POD [NODE]
  RUN_RC=0
  podlimits_run "$1" "${2:-}" >"$W/run.out" 2>"$W/run.err" || RUN_RC=$?
  log "exit status $RUN_RC"
}
# Starts a pod in the background with -o json (files as pl_run); pl_wait collects it. RUN_PID is
# podlimits itself (not a subshell), so that a test can signal it.
pl_start() {  # pl_start POD [NODE]
  if [ -n "${2:-}" ]; then
    log "podlimits run -f $PODS/$1 --node-config $PODS/$2 -o json &"
    podlimits run -f "$PODS/$1" --node-config "$PODS/$2" -o json >"$W/run.json" 2>"$W/run.err" &
  else
    log "podlimits run -f $PODS/$1 -o json &"
    podlimits run -f "$PODS/$1" -o json >"$W/run.json" 2>"$W/run.err" &
  fi
  RUN_PID=$!
}
pl_wait() {  # pl_wait [SECONDS]
  limit=$((${1:-60} * 5))
  i=0
  while alive "$RUN_PID"; do
    i=$((i + 1))
    [ $i -le $limit ] || fail "podlimits run did not finish within ${1:-60}s: $(tail -n 3 "$W/run.err" | one_line)"
    sleep 0.2
  done
  RUN_RC=0
  wait "$RUN_PID" || RUN_RC=$?
  RUN_PID=
  log "exit status $RUN_RC"
  jflat "$W/run.json" >"$W/run.flat" 2>/dev/null || true
}

# Waits until FILE has a line matching ERE; fails when the background pod exits first.
wait_line() {  # wait_line FILE ERE [SECONDS]
  limit=$((${3:-60} * 5))
  i=0
  until grep -Eq -- "$2" "$1" 2>/dev/null; do
    if [ -n "$RUN_PID" ] && ! alive "$RUN_PID"; then
      grep -Eq -- "$2" "$1" 2>/dev/null && return 0
      fail "podlimits run exited before printing /$2/: $(tail -n 3 "$W/run.err" | one_line)"
    fi
    i=$((i + 1))
    [ $i -le $limit ] || fail "no line /$2/ within ${3:-60}s: $(tail -n 3 "$1" 2>/dev/null | one_line)"
    sleep 0.2
  done
}
wait_ready() {  # wait_ready CONTAINER [WORD]: "[CONTAINER] WORD" (default "ready") on stderr
  wait_line "$W/run.err" "^\[$1\] ${2:-ready}\$" 90
}

# The lines a container printed (-o json: on stderr; pl_run_text: FILE=$W/run.out).
container_lines() {  # container_lines NAME [FILE]
  sed -n "s/^\[$1\] //p" "${2:-$W/run.err}"
}
# The value of "KEY=VALUE" in a container's lines (the last one).
container_value() {  # container_value NAME KEY [FILE]
  container_lines "$1" "${3:-}" | sed -n "s/^$2=//p" | tail -n 1
}

# Succeeded and exit 0, or a failure naming what went wrong.
expect_succeeded() {
  [ "$RUN_RC" = 0 ] || fail "podlimits run exited $RUN_RC: $(grep -v '^\[' "$W/run.err" | tail -n 3 | one_line)"
  if [ -s "$W/run.json" ]; then
    jexpect "$W/run.flat" phase Succeeded
  fi
}

# An event line on stderr: "  TYPE  REASON  MESSAGE" (columns padded with spaces).
expect_event() {  # expect_event TYPE REASON [MESSAGE_ERE]
  expect_file_match "$1 $2 event" "$W/run.err" "^ +$1 +$2 +${3:-}"
}
expect_no_event() {  # expect_no_event REASON
  expect_no_file_match "event $1" "$W/run.err" "^ +(Normal|Warning) +$1( |\$)"
}

# A rejection: exit 1, the line on stderr, and (checked by the driver) nothing created.
expect_rejected() {  # expect_rejected LINE_ERE
  [ "$RUN_RC" = 1 ] || fail "podlimits run exited $RUN_RC, want 1 (rejected): $(tail -n 3 "$W/run.err" | one_line)"
  expect_file_match "rejection" "$W/run.err" "$1"
}

# --- the kernel's view -------------------------------------------------------------------------
pod_cgroup() {  # pod_cgroup UID: the pod cgroup's directory
  d=$(find /sys/fs/cgroup/kubepods -type d -name "pod$1" 2>/dev/null | head -n 1)
  [ -n "$d" ] || fail "no pod cgroup pod$1 under /sys/fs/cgroup/kubepods"
  echo "$d"
}
# The container cgroup (a child of the pod cgroup) one of whose processes has TEXT in its
# command line.
container_cgroup() {  # container_cgroup UID TEXT
  pc=$(pod_cgroup "$1")
  for procs in "$pc"/*/cgroup.procs; do
    for p in $(cat "$procs" 2>/dev/null); do
      if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$2"; then
        dirname "$procs"
        return 0
      fi
    done
  done
  fail "no container of pod $1 runs a process with '$2' in its command line"
}
signal_cgroup() {  # signal_cgroup SIGNAL DIR: every process of DIR and its children
  find "$2" -name cgroup.procs | while read -r procs; do
    for p in $(cat "$procs"); do kill "-$1" "$p" 2>/dev/null || true; done
  done
}
# SIGTERM to every process of the pod (or of one cgroup under it): ends a waiting container.
pod_release() {  # pod_release UID | pod_release -c DIR
  if [ "$1" = -c ]; then signal_cgroup TERM "$2"; else signal_cgroup TERM "$(pod_cgroup "$1")"; fi
}
cg_read() {  # cg_read FILE: the first line of a cgroup file
  [ -r "$1" ] || fail "cannot read $1"
  head -n 1 "$1"
}

# Runs CMD in a private mount namespace where the cgroup2 mount is gone and /sys/fs/cgroup is a
# tmpfs with cgroup v1 hierarchies only (devices, freezer, net_cls,net_prio, name=systemd) and no cgroup2 mount: what
# a pure cgroup v1 node looks like to podlimits. Only controllers that cgroup v2 does not use are
# bound, so the guest's v2 tree is untouched. V1_BEFORE / V1_AFTER get the v1 hierarchies'
# directories before and after CMD.
in_v1_view() {  # in_v1_view CMD...
  export V1_BEFORE="$W/v1.before" V1_AFTER="$W/v1.after"
  unshare -m --propagation private sh -c '
    set -e
    umount /sys/fs/cgroup
    mount -t tmpfs -o mode=0755 tmpfs /sys/fs/cgroup
    for c in devices freezer net_cls,net_prio; do
      mkdir -p "/sys/fs/cgroup/$c"
      mount -t cgroup -o "$c" cgroup "/sys/fs/cgroup/$c"
    done
    mkdir -p /sys/fs/cgroup/systemd
    mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd
    find /sys/fs/cgroup -type d | sort >"$V1_BEFORE"
    rc=0
    "$@" || rc=$?
    find /sys/fs/cgroup -type d | sort >"$V1_AFTER"
    exit $rc
  ' in_v1_view "$@"
}

# --- bare OCI runtime (no podlimits): the guest's own sanity checks ------------------------------
# Writes an OCI bundle to DIR: a rootfs with the guest's busybox, and a config.json running
# `sh -c SCRIPT` (SCRIPT must not contain double quotes or backslashes) in cgroup CGROUP with
# pids.limit PIDS and RLIMIT_NOFILE SOFT/HARD, in its own pid, mount and cgroup namespaces.
make_bundle() {  # make_bundle DIR CGROUP PIDS SOFT HARD SCRIPT
  mkdir -p "$1/rootfs/bin" "$1/rootfs/proc" "$1/rootfs/dev" "$1/rootfs/tmp" "$1/rootfs/sys/fs/cgroup"
  cp /bin/busybox "$1/rootfs/bin/busybox"
  for a in sh sleep cat grep echo; do ln -s busybox "$1/rootfs/bin/$a"; done
  cat >"$1/config.json" <<JSON
{
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": {"uid": 0, "gid": 0},
    "args": ["/bin/sh", "-c", "$6"],
    "env": ["PATH=/bin"],
    "cwd": "/",
    "rlimits": [{"type": "RLIMIT_NOFILE", "soft": $4, "hard": $5}],
    "noNewPrivileges": true
  },
  "root": {"path": "rootfs", "readonly": false},
  "hostname": "bare",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
    {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]},
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
     "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}
  ],
  "linux": {
    "cgroupsPath": "$2",
    "resources": {"pids": {"limit": $3}},
    "namespaces": [{"type": "pid"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"},
                   {"type": "network"}, {"type": "cgroup"}]
  }
}
JSON
}

# The container script of the bare runtime checks: print the nofile limit, fork until fork fails
# (busybox sh exits on a failed fork, so the count goes through a file and only builtins run
# after it), then the cgroup's pids.events.
BARE_FORK_SCRIPT='grep open.files /proc/self/limits; sh -c '"'"'n=0; while true; do sleep 600 & n=$((n+1)); echo $n >/tmp/forks; done'"'"' 2>/tmp/fork.err; read n </tmp/forks; read e </tmp/fork.err; read ev </sys/fs/cgroup/pids.events; echo forks=$n; echo fork-error=$e; echo pids.events=$ev'

# Runs the bare fork check with RUNTIME (crun or runc) and checks what the kernel did.
bare_runtime_check() {  # bare_runtime_check RUNTIME
  rt=$1
  cg=/e2e-$rt-bare
  make_bundle "$W/bundle" "$cg" 8 256 512 "$BARE_FORK_SCRIPT"
  rc=0
  (cd "$W/bundle" && "$rt" --root "$W/state" run "e2e-$rt-bare") >"$W/$rt.out" 2>"$W/$rt.err" </dev/null || rc=$?
  expect_eq "$rt run exit status ($(tail -n 2 "$W/$rt.err" | one_line))" "$rc" 0
  expect_file_match "RLIMIT_NOFILE in the container" "$W/$rt.out" '^Max open files +256 +512 +files'
  forks=$(sed -n 's/^forks=//p' "$W/$rt.out")
  # pids.limit 8 = the container's sh + the forking sh + 6 sleeps.
  expect_eq "sleeps started before fork failed (pids.limit 8)" "$forks" 6
  expect_file_match "fork failure" "$W/$rt.out" "^fork-error=.*can't fork: Resource temporarily unavailable"
  expect_file_match "the container cgroup's pids.events" "$W/$rt.out" '^pids.events=max [1-9]'
  [ ! -d "/sys/fs/cgroup$cg" ] || fail "$rt left its cgroup /sys/fs/cgroup$cg"
  detail "$rt $("$rt" --version | head -n 1 | sed 's/.*version //'): nofile 256/512, fork EAGAIN after $forks sleeps at pids.limit 8"
}

# --- ulimits -----------------------------------------------------------------------------------
# "NAME SOFT HARD" for the six KEP-5758 ulimits, from the /proc/<pid>/limits a container printed.
container_limits() {  # container_limits CONTAINER [FILE]
  container_lines "$1" "${2:-}" | awk '
    /^Max open files /        { print "nofile", $4, $5 }
    /^Max locked memory /     { print "memlock", $4, $5 }
    /^Max core file size /    { print "core", $5, $6 }
    /^Max nice priority /     { print "nice", $4, $5 }
    /^Max realtime priority / { print "rtprio", $4, $5 }
    /^Max stack size /        { print "stack", $4, $5 }'
}
# Each "NAME SOFT HARD" must be what the container's /proc/1/limits showed and, with -o json, what
# PodRunStatus reports for the container.
expect_limits() {  # expect_limits CONTAINER "NAME SOFT HARD"...
  c=$1
  shift
  container_limits "$c" >"$W/limits-$c"
  [ -s "$W/limits-$c" ] || fail "container $c printed no /proc/1/limits"
  ci=
  if [ -s "$W/run.flat" ]; then
    ci=$(jindex "$W/run.flat" containers name "$c") || fail "PodRunStatus has no container $c"
  fi
  for want in "$@"; do
    # shellcheck disable=SC2086
    set -- $want
    got=$(awk -v n="$1" '$1 == n { print $2, $3 }' "$W/limits-$c")
    expect_eq "container $c /proc/1/limits $1 (soft hard)" "$got" "$2 $3"
    if [ -n "$ci" ]; then
      jexpect "$W/run.flat" "containers.$ci.rlimits.$1.soft" "$2"
      jexpect "$W/run.flat" "containers.$ci.rlimits.$1.hard" "$3"
    fi
  done
}
