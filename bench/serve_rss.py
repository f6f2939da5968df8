#!/usr/bin/env python3
"""bench/serve_rss.py PODLIMITS [--deployments D] [--replicas R]: podlimits serve's memory.

Starts `podlimits serve` on a scratch data directory and a free loopback port (needs root), as
bench/serve_deployment.py does, and reads the daemon's VmRSS and PSS (/proc/PID/status and
smaps_rollup: PSS divides the binary's shared pages among their users) three times: idle, once D
apps/v1 Deployments of R replicas each (serve_deployment.py's busybox template; 20 x 5 = 100 pods,
issue 31's "daemon RSS <= 50 MB with 100 pods and 20 Deployments") are all available, and again
10 s later with them running (the node's status updates, probes, the controllers' resyncs). The
pods' own processes (their monitors, the containers) are not serve's and are not counted; their
sum is printed beside it. Everything it started is stopped and removed at the end.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_api  # noqa: E402
import serve_deployment  # noqa: E402


def monitors_rss_kb(data):
    """The pods' monitors, by the pid in each pod's monitor.lock (monitor_files.h)."""
    total = 0
    pods = os.path.join(data, "pods")
    for uid in os.listdir(pods) if os.path.isdir(pods) else []:
        try:
            with open(os.path.join(pods, uid, "monitor.lock")) as f:
                text = f.read().split()
            if text:
                total += serve_api.rss_kb(int(text[0]))
        except (OSError, ValueError):
            pass
    return total


def report(label, pid, data):
    rss, pss = serve_api.rss_kb(pid), serve_api.pss_kb(pid)
    print(f"{label}: serve VmRSS {rss / 1024:.1f} MiB, PSS {pss / 1024:.1f} MiB"
          f" (monitors' RSS {monitors_rss_kb(data) / 1024:.1f} MiB); load {open('/proc/loadavg').read().split()[:3]}")
    return rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("podlimits")
    ap.add_argument("--deployments", type=int, default=20)
    ap.add_argument("--replicas", type=int, default=5)
    args = ap.parse_args()
    binary = os.path.realpath(args.podlimits)
    work = tempfile.mkdtemp(prefix="podlimits-rss-bench.")
    data = os.path.join(work, "node")
    serve = None
    try:
        serve, port = serve_api.start_serve(binary, work, data)
        api = serve_api.Api(data, port)
        c = api.conn()
        time.sleep(2)
        report("idle", serve.pid, data)
        base = "/apis/apps/v1/namespaces/default/deployments"
        started = time.monotonic()
        for i in range(args.deployments):
            status, body = api.call(c, "POST", base, serve_deployment.deployment(f"rss-{i}", args.replicas))
            if status != 201:
                sys.exit(f"create rss-{i}: {status} {body[:200]}")
        want = args.deployments * args.replicas
        deadline = started + 600
        while time.monotonic() < deadline:
            status, body = api.call(c, "GET", base)
            items = json.loads(body)["items"]
            available = sum(d.get("status", {}).get("availableReplicas", 0) for d in items)
            if available >= want:
                break
            time.sleep(0.5)
        else:
            sys.exit(f"not all {want} replicas available within 600 s ({available})")
        print(f"{args.deployments} Deployments x {args.replicas} replicas all available in "
              f"{time.monotonic() - started:.1f} s")
        status, body = api.call(c, "GET", "/api/v1/namespaces/default/pods")
        running = sum(1 for p in json.loads(body)["items"] if p.get("status", {}).get("phase") == "Running")
        print(f"pods Running: {running}")
        report(f"{want} pods, {args.deployments} Deployments", serve.pid, data)
        time.sleep(10)
        report("10 s later", serve.pid, data)
        for i in range(args.deployments):
            api.call(c, "DELETE", f"{base}/rss-{i}")
        serve_api.wait_no_pods(api, c, limit=300)
    finally:
        if serve:
            serve.terminate()
            serve.wait(timeout=300)
        serve_api.stop_monitors(data)
        subprocess.run(["rm", "-rf", work], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
