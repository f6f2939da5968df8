#!/bin/sh
# shellcheck disable=SC2016
# Runs e2e tests inside the guest and reports one line per test (docs/e2e.md):
#
#   E2E-RESULT <name> <PASS|FAIL> <seconds> <detail on one line>
#
# on fd 3 (the results channel) and on the console. Before each test it writes
# `E2E-BEGIN <name> <timeout seconds>` on fd 3, by which the host times the guest's progress.
# Usage: driver.sh MODE TESTS, where TESTS is "all" (every test whose `# e2e-mode:` is MODE) or
# a comma list of names.
#
# Each test runs as `sh` sourcing lib.sh and tests/NAME.sh, in its own session (so a timeout
# can stop everything it started), with `# e2e-timeout:` seconds (default 60): then SIGTERM to
# its process group, SIGKILL 10 s later. The teardown check is part of every verdict: the cgroup
# tree (find /sys/fs/cgroup -type d), the mount table, the files under /run/podlimits and the
# crun/runc/podlimits processes must be as they were before the test. Whatever a test leaves
# behind is reported, then removed, so the next test starts from a clean node.
mode=$1
list=$2
tests_dir=/e2e/tests
work=/run/e2e/work
mkdir -p "$work"

say() { echo "$*"; echo "$*" >&3; }

centis() {  # the guest's uptime in hundredths of a second
  read -r up _ </proc/uptime
  c=${up%.*}${up#*.}
  while [ ${#c} -gt 1 ] && [ "${c#0}" != "$c" ]; do c=${c#0}; done
  echo "$c"
}
seconds() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }

meta() {  # meta FILE KEY: the value of a "# e2e-KEY: value" header line
  sed -n "s/^# e2e-$2: *//p" "$1" | head -n 1
}

# The processes (not zombies) of process group $1.
group_members() {
  want=$1
  for stat in /proc/[0-9]*/stat; do
    read -r line <"$stat" 2>/dev/null || continue
    # shellcheck disable=SC2086 # the fields after "(comm) ": state ppid pgrp ...
    set -- ${line##*) }
    if [ "$3" = "$want" ] && [ "$1" != Z ]; then
      p=${stat#/proc/}
      echo "${p%/stat}"
    fi
  done
}

runtime_processes() {  # "pid:comm" of every crun, runc and podlimits process
  for comm in /proc/[0-9]*/comm; do
    read -r name <"$comm" 2>/dev/null || continue
    case "$name" in
      crun | runc | podlimits) p=${comm#/proc/}; echo "${p%/comm}:$name" ;;
    esac
  done
}

snapshot() {  # snapshot DIR
  mkdir -p "$1"
  find /sys/fs/cgroup -type d | sort >"$1/cgroups"
  awk '{print $2, $3}' /proc/self/mounts | sort >"$1/mounts"
  find /run/podlimits ! -type d 2>/dev/null | sort >"$1/files"
  runtime_processes | sort >"$1/procs"
}

added() {  # added BEFORE AFTER: lines of AFTER that BEFORE does not have
  awk 'NR == FNR { seen[$0] = 1; next } !($0 in seen)' "$1" "$2"
}
removed() { added "$2" "$1"; }

join_words() { tr '\n' ' ' | sed 's/ *$//'; }

# What the test left behind (or took away), one line; empty when the node is as it was.
teardown_problems() {  # teardown_problems DIR
  d=$1
  problems=
  x=$(added "$d/before/cgroups" "$d/after/cgroups" | sed 's|^/sys/fs/cgroup||' | join_words)
  [ -n "$x" ] && problems="$problems cgroups left: $x;"
  x=$(removed "$d/before/cgroups" "$d/after/cgroups" | sed 's|^/sys/fs/cgroup||' | join_words)
  [ -n "$x" ] && problems="$problems cgroups removed: $x;"
  x=$(added "$d/before/mounts" "$d/after/mounts" | join_words)
  [ -n "$x" ] && problems="$problems mounts left: $x;"
  x=$(removed "$d/before/mounts" "$d/after/mounts" | join_words)
  [ -n "$x" ] && problems="$problems mounts removed: $x;"
  x=$(added "$d/before/files" "$d/after/files" | join_words)
  [ -n "$x" ] && problems="$problems files left: $x;"
  x=$(added "$d/before/procs" "$d/after/procs" | join_words)
  [ -n "$x" ] && problems="$problems processes left: $x;"
  echo "${problems# }" | sed 's/;$//'
}

# Removes what a test left behind: processes, cgroups (deepest first), mounts.
clean_up() {  # clean_up DIR
  d=$1
  for p in $(added "$d/before/procs" "$d/after/procs" | cut -d: -f1); do kill -KILL "$p" 2>/dev/null; done
  for cg in $(added "$d/before/cgroups" "$d/after/cgroups" | sort -r); do
    [ -f "$cg/cgroup.kill" ] && echo 1 >"$cg/cgroup.kill" 2>/dev/null
    i=0
    while [ -d "$cg" ] && ! rmdir "$cg" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  done
  for mp in $(added "$d/before/mounts" "$d/after/mounts" | cut -d' ' -f1 | sort -r); do
    umount -l "$mp" 2>/dev/null
  done
}

one_line() { tr '\r\n' '  ' | sed 's/  */ /g; s/^ //; s/ $//' | cut -c1-600; }

result() {  # result NAME VERDICT CENTISECONDS DETAIL
  say "E2E-RESULT $1 $2 $(seconds "$3") ${4:-}"
}

dump_failure() {  # dump_failure NAME DIR: the test's log and output files, to the console
  echo "----- e2e log of $1 (the test traced with set -x; last 120 lines) -----"
  tail -n 120 "$2/log" 2>/dev/null
  for f in "$2"/tmp/*; do
    [ -f "$f" ] || continue
    echo "----- $1: ${f##*/} -----"
    head -c 4000 "$f"
    echo
  done
  echo "----- end of $1 -----"
}

run_one() {
  name=$1
  file=$tests_dir/$name.sh
  if [ ! -f "$file" ]; then
    result "$name" FAIL 0 "no such test: $file"
    return
  fi
  tmode=$(meta "$file" mode)
  tmode=${tmode:-nsdelegate}
  if [ "$tmode" != "$mode" ]; then
    result "$name" FAIL 0 "needs a $tmode boot; this boot is $mode"
    return
  fi
  limit=$(meta "$file" timeout)
  limit=${limit:-60}
  dir=$work/$name
  rm -rf "$dir"
  mkdir -p "$dir/tmp"
  : >"$dir/detail"
  snapshot "$dir/before"
  echo "=== e2e test $name (mode $mode, timeout ${limit}s)"
  echo "E2E-BEGIN $name $limit" >&3

  t0=$(centis)
  E2E_TEST=$name E2E_DETAIL=$dir/detail E2E_WORK=$dir/tmp \
    setsid sh -c '. /e2e/lib.sh && set -x && . "$1"' "e2e:$name" "$file" </dev/null >"$dir/log" 2>&1 &
  pid=$!
  setsid sh -c 'sleep "$1"; echo x >"$2"; kill -TERM "-$3"; sleep 10; kill -KILL "-$3"' \
    watchdog "$limit" "$dir/timedout" "$pid" </dev/null >/dev/null 2>&1 &
  wd=$!
  rc=0
  wait "$pid" || rc=$?
  kill -KILL "-$wd" 2>/dev/null
  wait "$wd" 2>/dev/null
  t1=$(centis)

  # Processes the test started and left running (a background podlimits, a stray sleep): SIGTERM
  # (a podlimits gets its teardown), SIGKILL what is left after 10 s.
  stray=$(group_members "$pid" | join_words)
  if [ -n "$stray" ]; then
    kill -TERM "-$pid" 2>/dev/null
    i=0
    while [ -n "$(group_members "$pid")" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
    kill -KILL "-$pid" 2>/dev/null
    sleep 0.2
  fi

  snapshot "$dir/after"
  teardown=$(teardown_problems "$dir")
  [ -n "$stray" ] && teardown="test processes left running: $stray${teardown:+; $teardown}"
  [ -n "$teardown" ] && clean_up "$dir"

  detail=$(one_line <"$dir/detail")
  if [ -e "$dir/timedout" ]; then
    verdict=FAIL
    detail="timed out after ${limit}s${detail:+: $detail}"
  elif [ "$rc" -ne 0 ]; then
    verdict=FAIL
    if [ -z "$detail" ]; then
      detail="exit status $rc; last output: $(grep -v '^[[:space:]]*$' "$dir/log" | tail -n 1 | one_line)"
    fi
  else
    verdict=PASS
  fi
  if [ -n "$teardown" ]; then
    verdict=FAIL
    detail="${detail:+$detail; }teardown: $teardown"
  fi
  result "$name" "$verdict" $((t1 - t0)) "$(echo "$detail" | one_line)"
  if [ "$verdict" = FAIL ]; then
    dump_failure "$name" "$dir"
  else
    rm -rf "$dir"
  fi
}

if [ "$list" = all ]; then
  names=
  for f in "$tests_dir"/*.sh; do
    m=$(meta "$f" mode)
    [ "${m:-nsdelegate}" = "$mode" ] || continue
    [ -z "$(meta "$f" benchmark)" ] || continue  # a benchmark runs only when named
    n=${f##*/}
    names="$names ${n%.sh}"
  done
else
  names=$(echo "$list" | tr ',' ' ')
fi

for name in $names; do
  run_one "$name"
done
