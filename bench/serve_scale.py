#!/usr/bin/env python3
"""bench/serve_scale.py PODLIMITS [--counts 10,100,1000] [--idle 30]: podlimits serve at scale.

For each count N (a fresh node each time, as root, on a scratch data directory and a free
loopback port; node config maxPods N+10, podPidsLimit 64):

  1. N busybox `sleep` pods POSTed as fast as one keep-alive connection allows; the time from
     the first POST until every pod is Running with its container ready (one watch over all pods),
     and pods/s. Meanwhile a GET of one pod every 50 ms on its own connection: the API's p50/p99
     while the pods start.
  2. Every pod verified from the kernel: its pod cgroup exists in the pids hierarchy with
     pids.max 64, and kubepods' pids.max is the node's allocatable pid (the bound on the sum).
  3. The daemon's RSS, the monitors' PSS in all, and the daemon's CPU over --idle seconds with
     the N pods running and nothing else asked (% of one core).
  4. All N deleted (one DELETE each), the time until none is left; then nothing of them may be
     anywhere: no pod cgroup under kubepods in any managed hierarchy, no mount under the data or
     state directory, no monitor process, no pod directory, and no network namespace (pods have
     no network of their own yet: none may appear).

Prints one table row per N. Everything it started is stopped and removed at the end.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from serve_api import (Api, free_port, pct, pss_kb, rss_kb, stop_monitors,  # noqa: E402
                       watch_running)


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"terminationGracePeriodSeconds": 1, "dnsPolicy": "Default",
                     "containers": [{"name": "app", "image": "busybox:latest",
                                     "command": ["sleep", "1000000"]}]}}


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def pids_roots():
    """The managed hierarchies that hold pids: the v1 pids hierarchy, or the unified tree."""
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        return ["/sys/fs/cgroup"]
    return ["/sys/fs/cgroup/pids"]


def pod_cgroups(root):
    found = {}
    top = os.path.join(root, "kubepods")
    for d, dirs, _ in os.walk(top):
        for name in dirs:
            if name.startswith("pod"):
                found[name[3:]] = os.path.join(d, name)
        dirs[:] = [x for x in dirs if not x.startswith("pod")]
    return found


def monitor_pids(data):
    out = []
    pods = os.path.join(data, "pods")
    for uid in os.listdir(pods) if os.path.isdir(pods) else []:
        try:
            with open(os.path.join(pods, uid, "monitor.lock")) as f:
                text = f.read().split()
        except OSError:
            continue
        if text and os.path.exists(f"/proc/{text[0]}"):
            out.append(int(text[0]))
    return out


def one_run(binary, work, n, idle):
    data = os.path.join(work, f"node-{n}")
    state = os.path.join(work, f"state-{n}")
    subprocess.run([binary, "image", "--data-dir", data, "load",
                    os.path.join(work, "image", "busybox-oci"), "--name", "busybox:latest"],
                   check=True, stdout=subprocess.DEVNULL)
    config = os.path.join(work, f"node-{n}.yaml")
    with open(config, "w") as f:
        f.write("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                f"maxPods: {n + 10}\npodPidsLimit: 64\n---\n"
                "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\n"
                f"stateDirectory: {state}\n")
    port = free_port()
    log_path = os.path.join(work, f"serve-{n}.log")
    log = open(log_path, "w")
    netns_before = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    serve = subprocess.Popen([binary, "serve", "--data-dir", data, "--listen", f"127.0.0.1:{port}",
                              "--node-config", config], stdout=log, stderr=subprocess.STDOUT)
    row = {"pods": n}
    try:
        for _ in range(400):
            if "listening on" in open(log_path).read():
                break
            time.sleep(0.05)
        else:
            raise SystemExit("serve did not start: " + open(log_path).read()[-2000:])
        api = Api(data, port)
        c = api.conn()
        ready_at, stop = {}, threading.Event()
        threading.Thread(target=watch_running, args=(api, ready_at, stop), daemon=True).start()
        time.sleep(0.3)
        # The API's latency while the pods start: GET of the first pod every 50 ms.
        latencies, probing = [], threading.Event()

        def probe():
            pc = api.conn()
            while not probing.is_set():
                t = time.monotonic()
                api.call(pc, "GET", "/api/v1/namespaces/default/pods/scale-0")
                latencies.append((time.monotonic() - t) * 1000)
                time.sleep(0.05)
        t0 = time.monotonic()
        for i in range(n):
            status, body = api.call(c, "POST", "/api/v1/namespaces/default/pods", pod(f"scale-{i}"))
            if status != 201:
                raise SystemExit(f"create scale-{i}: {status} {body[:300]}")
            if i == 0:
                prober = threading.Thread(target=probe, daemon=True)
                prober.start()
        posted = time.monotonic() - t0
        deadline = time.monotonic() + max(120, n * 2)
        while len(ready_at) < n and time.monotonic() < deadline:
            time.sleep(0.1)
        probing.set()
        if len(ready_at) < n:
            raise SystemExit(f"only {len(ready_at)} of {n} pods Running after {deadline - t0:.0f} s")
        total = max(ready_at.values()) - t0
        row.update(post_s=posted, running_s=total, pods_per_s=n / total,
                   api_p50=pct(latencies, 50), api_p99=pct(latencies, 99), api_max=max(latencies))

        # 2. Every pod from the kernel.
        status, body = api.call(c, "GET", "/api/v1/namespaces/default/pods")
        uids = {p["metadata"]["uid"] for p in json.loads(body)["items"]}
        status, body = api.call(c, "GET", "/api/v1/nodes")
        allocatable_pid = json.loads(body)["items"][0]["status"]["allocatable"]["pid"]
        bad = []
        for root in pids_roots():
            cgroups = pod_cgroups(root)
            for uid in uids:
                d = cgroups.get(uid)
                if d is None:
                    bad.append(f"{uid}: no pod cgroup under {root}")
                    continue
                with open(os.path.join(d, "pids.max")) as f:
                    v = f.read().strip()
                if v != "64":
                    bad.append(f"{uid}: pids.max {v}")
            with open(os.path.join(root, "kubepods", "pids.max")) as f:
                kubepods = f.read().strip()
            if kubepods != allocatable_pid:
                bad.append(f"kubepods pids.max {kubepods}, allocatable pid {allocatable_pid}")
        if bad:
            raise SystemExit("verification failed: " + "; ".join(bad[:5]))
        row["verified"] = len(uids)

        # 3. Memory and idle CPU.
        row["rss_mib"] = rss_kb(serve.pid) / 1024
        monitors = monitor_pids(data)
        row["monitors_pss_mib"] = sum(pss_kb(p) for p in monitors) / 1024
        ticks = os.sysconf("SC_CLK_TCK")
        # Settled first: the statuses of the last pods published, the first resyncs done.
        time.sleep(5)
        samples = []
        for _ in range(3):
            a, ta = cpu_ticks(serve.pid), time.monotonic()
            time.sleep(idle / 3)
            b, tb = cpu_ticks(serve.pid), time.monotonic()
            samples.append(100.0 * (b - a) / ticks / (tb - ta))
        print(f"  idle CPU samples at {n} pods: {[round(x, 2) for x in samples]}", flush=True)
        row["idle_cpu_pct"] = sorted(samples)[1]
        if os.environ.get("SCALE_PERF"):
            subprocess.run(["perf", "record", "--call-graph", "dwarf,16384", "-o",
                            os.environ["SCALE_PERF"], "-p", str(serve.pid), "--", "sleep", "3"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)

        # 4. Delete all, and nothing left.
        t0 = time.monotonic()
        for i in range(n):
            api.call(c, "DELETE", f"/api/v1/namespaces/default/pods/scale-{i}")
        while time.monotonic() < t0 + max(120, n):
            status, body = api.call(c, "GET", "/api/v1/namespaces/default/pods")
            if not json.loads(body)["items"]:
                break
            time.sleep(0.2)
        row["delete_s"] = time.monotonic() - t0
        stop.set()
        left = []
        for root in pids_roots():
            if pod_cgroups(root):
                left.append(f"{len(pod_cgroups(root))} pod cgroups under {root}/kubepods")
        with open("/proc/self/mountinfo") as f:
            mounts = [l for l in f if data in l or state in l]
        if mounts:
            left.append(f"{len(mounts)} mounts")
        if monitor_pids(data):
            left.append(f"{len(monitor_pids(data))} monitors")
        pods_dir = os.path.join(data, "pods")
        if os.path.isdir(pods_dir) and os.listdir(pods_dir):
            left.append(f"{len(os.listdir(pods_dir))} pod directories")
        netns_after = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
        if netns_after - netns_before:
            left.append(f"network namespaces {sorted(netns_after - netns_before)}")
        row["left"] = "; ".join(left) or "nothing"
    finally:
        serve.terminate()
        serve.wait(timeout=60)
        stop_monitors(data)
        log.close()
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("podlimits")
    ap.add_argument("--counts", default="10,100,1000")
    ap.add_argument("--idle", type=float, default=30)
    args = ap.parse_args()
    binary = os.path.realpath(args.podlimits)
    work = tempfile.mkdtemp(prefix="podlimits-scale.")
    try:
        subprocess.run([os.path.join(ROOT, "scripts", "build-busybox-image"),
                        os.path.join(work, "image")], check=True, stdout=subprocess.DEVNULL)
        print(f"load before: {open('/proc/loadavg').read().split()[:3]}")
        print("| pods | POSTs | all Running | pods/s | API GET p50 / p99 / max while starting | "
              "verified | daemon RSS | monitors PSS | daemon idle CPU | delete all | left |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for n in [int(x) for x in args.counts.split(",")]:
            r = one_run(binary, work, n, args.idle)
            print(f"| {r['pods']} | {r['post_s']:.1f} s | {r['running_s']:.1f} s | "
                  f"{r['pods_per_s']:.1f} | {r['api_p50']:.1f} / {r['api_p99']:.1f} / "
                  f"{r['api_max']:.1f} ms | {r['verified']} | {r['rss_mib']:.1f} MiB | "
                  f"{r['monitors_pss_mib']:.0f} MiB | {r['idle_cpu_pct']:.2f}% | "
                  f"{r['delete_s']:.1f} s | {r['left']} |", flush=True)
        print(f"load after: {open('/proc/loadavg').read().split()[:3]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
