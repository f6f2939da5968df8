#!/usr/bin/env python3
"""bench/serve_soak.py PODLIMITS [--minutes 30] [--kill-every 20-90] [--pods 20] [--pod-network]:
a soak of serve.

As root, on a scratch data directory and a free loopback port. For --minutes, pods are created
and deleted in a loop through the API (about --pods alive at a time, each deleted a few seconds
after it was created), while the daemon is killed with kill -9 at random points (every
--kill-every seconds, a uniform pick in the range) and started again at once. The last fifth of
the time runs one daemon without kills, sampled at its start and end for leaks: its RSS and open
file descriptors.

Then the churn stops, the node settles (every pod left Running and ready, every deleted pod
gone) and the store, the node's own files, the kernel and the process table must agree: the
same set of pod uids in the API, in the live monitors, in the pod cgroups under kubepods (every
managed pids hierarchy), in the node's pod directories and in the state directory's pod records;
every mount under the data or state directory belonging to one of them. Then everything is
deleted and nothing may be left: no pod cgroup, mount, monitor, pod directory or new network
namespace. Exits 1 with the disagreements listed, 0 with a summary line.

With --pod-network the node's pods get addresses (podNetwork cni, the default network podlimits
writes), and the address allocations (host-local's, by pod uid) are one more part that must
agree, and be empty at the end. The script then runs itself in a network namespace of its own
(loopback up), so the bridge, ip_forward and portmap's rules never touch the machine's.

tests/soak runs it for 2 minutes in CI; the 30-minute run is a benchmark (docs/benchmarks.md).
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from serve_api import Api, free_port, rss_kb, stop_monitors  # noqa: E402
from serve_scale import monitor_pids, pod_cgroups, pids_roots  # noqa: E402


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"terminationGracePeriodSeconds": 2, "dnsPolicy": "Default",
                     "containers": [{"name": "app", "image": "busybox:latest",
                                     "command": ["sh", "-c",
                                                 "trap 'exit 0' TERM; while true; do sleep 1; done"]}]}}


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Node:
    def __init__(self, binary, work, cgroup_root, pod_network=False):
        self.binary, self.work, self.cgroup_root = binary, work, cgroup_root
        self.pod_network = pod_network
        self.data = os.path.join(work, "node")
        self.state = os.path.join(work, "state")
        self.port = free_port()
        self.config = os.path.join(work, "node.yaml")
        with open(self.config, "w") as f:
            f.write("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                    f"maxPods: 500\npodPidsLimit: 64\ncgroupRoot: {cgroup_root}\n---\n"
                    "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\n"
                    f"stateDirectory: {self.state}\n")
            if pod_network:
                f.write(f"podNetwork:\n  plugin: cni\n  confDir: {os.path.join(work, 'net.d')}\n")
        self.proc = None
        self.starts = 0

    def start(self):
        log_path = os.path.join(self.work, f"serve-{self.starts}.log")
        self.starts += 1
        log = open(log_path, "w")
        self.proc = subprocess.Popen([self.binary, "serve", "--data-dir", self.data, "--listen",
                                      f"127.0.0.1:{self.port}", "--node-config", self.config],
                                     stdout=log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if "listening on" in open(log_path).read():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit("serve did not start: " + open(log_path).read()[-2000:])

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=60)


def churn(api, stop, keep, counts):
    """Creates soak-N pods and deletes each one `keep` creations later; rides through the
    daemon's deaths (a refused connection is retried)."""
    i = 0
    c = None
    while not stop.is_set():
        try:
            if c is None:
                c = api.conn(timeout=10)
            status, _ = api.call(c, "POST", "/api/v1/namespaces/default/pods", pod(f"soak-{i}"))
            if status == 201:
                counts["created"] += 1
            if i >= keep:
                status, _ = api.call(c, "DELETE", f"/api/v1/namespaces/default/pods/soak-{i - keep}")
                if status in (200, 202):
                    counts["deleted"] += 1
            i += 1
            time.sleep(random.uniform(0.05, 0.4))
        except (OSError, Exception):  # the daemon is dead or restarting
            c = None
            counts["refused"] += 1
            time.sleep(0.2)


def pod_list(api, c):
    status, body = api.call(c, "GET", "/api/v1/namespaces/default/pods")
    return json.loads(body)["items"]


def settle(api, c, limit=180):
    """Until every pod is Running and ready or gone; returns the live pods' uids."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        items = pod_list(api, c)
        pending = []
        for p in items:
            st = p.get("status", {})
            cs = st.get("containerStatuses", [])
            if p["metadata"].get("deletionTimestamp") or not (
                    st.get("phase") == "Running" and cs and cs[0].get("ready")):
                pending.append(p["metadata"]["name"])
        if not pending:
            return {p["metadata"]["uid"] for p in items}
        time.sleep(0.5)
    raise SystemExit(f"not settled after {limit} s: {pending[:10]}")


def node_view(node):
    """The pod uids each part of the node holds."""
    view = {"monitors": set(), "cgroups": set(), "pod directories": set(), "pod records": set()}
    pods_dir = os.path.join(node.data, "pods")
    for uid in os.listdir(pods_dir) if os.path.isdir(pods_dir) else []:
        view["pod directories"].add(uid)
        try:
            with open(os.path.join(pods_dir, uid, "monitor.lock")) as f:
                text = f.read().split()
            if text and os.path.exists(f"/proc/{text[0]}"):
                view["monitors"].add(uid)
        except OSError:
            pass
    for root in pids_roots():
        view["cgroups"] |= set(pod_cgroups(os.path.join(root, node.cgroup_root.lstrip("/"))))
    records = os.path.join(node.state, "pods")
    for name in os.listdir(records) if os.path.isdir(records) else []:
        if not name.endswith(".lock"):
            view["pod records"].add(name)
    # host-local's allocations: a file per address holding the container ID (the pod's uid).
    view["ip allocations"] = set()
    networks = os.path.join(node.state, "cni", "networks")
    for net in os.listdir(networks) if os.path.isdir(networks) else []:
        for name in os.listdir(os.path.join(networks, net)):
            if name == "lock" or name.startswith("last_reserved_ip"):
                continue
            with open(os.path.join(networks, net, name)) as f:
                view["ip allocations"].add(f.read().split()[0])
    with open("/proc/self/mountinfo") as f:
        view["mounts"] = [l.split()[4] for l in f if node.data in l or node.state in l]
    return view


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("podlimits")
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--kill-every", default="20-90")
    ap.add_argument("--pods", type=int, default=20)
    ap.add_argument("--cgroup-root", default="/",
                    help="the node's cgroupRoot (another one lets it run beside a node on /)")
    ap.add_argument("--pod-network", action="store_true",
                    help="pods on a CNI network, in a network namespace of the soak's own")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("serve_soak: needs root (cgroups, mounts, an OCI runtime): skipped")
        sys.exit(77)
    if args.pod_network and os.environ.get("PODLIMITS_SOAK_NETNS") != "1":
        os.environ["PODLIMITS_SOAK_NETNS"] = "1"
        os.execvp("unshare", ["unshare", "--net", "--", "/bin/sh", "-c",
                              'ip link set lo up && exec "$0" "$@"', sys.executable] + sys.argv)
    lo, hi = (float(x) for x in args.kill_every.split("-"))
    binary = os.path.realpath(args.podlimits)
    work = tempfile.mkdtemp(prefix="podlimits-soak.")
    node = Node(binary, work, args.cgroup_root, args.pod_network)
    netns_before = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
    problems = []
    try:
        subprocess.run([os.path.join(ROOT, "scripts", "build-busybox-image"),
                        os.path.join(work, "image")], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([binary, "image", "--data-dir", node.data, "load",
                        os.path.join(work, "image", "busybox-oci"), "--name", "busybox:latest"],
                       check=True, stdout=subprocess.DEVNULL)
        node.start()
        api = Api(node.data, node.port)
        stop = threading.Event()
        counts = {"created": 0, "deleted": 0, "refused": 0}
        worker = threading.Thread(target=churn, args=(api, stop, args.pods, counts), daemon=True)
        worker.start()
        t0 = time.monotonic()
        total = args.minutes * 60
        kills = 0
        # Kills during the first four fifths; the last fifth is one daemon, watched for leaks.
        while time.monotonic() - t0 < total * 0.8:
            time.sleep(min(random.uniform(lo, hi), max(0.0, total * 0.8 - (time.monotonic() - t0))))
            node.kill9()
            kills += 1
            node.start()
        time.sleep(min(10, total * 0.05))
        rss0, fds0 = rss_kb(node.proc.pid), open_fds(node.proc.pid)
        while time.monotonic() - t0 < total:
            time.sleep(1)
        rss1, fds1 = rss_kb(node.proc.pid), open_fds(node.proc.pid)
        stop.set()
        worker.join(timeout=30)
        c = api.conn(timeout=60)
        live = settle(api, c)
        # What the node agrees on once settled (the agent's sweep of what the kills interrupted
        # may take a few resyncs).
        for _ in range(60):
            view = node_view(node)
            disagree = [f"{part}: {len(view[part] ^ live)} differ ({sorted(view[part] ^ live)[:3]})"
                        for part in ("monitors", "cgroups", "pod directories", "pod records")
                        + (("ip allocations",) if args.pod_network else ())
                        if view[part] != live]
            stray = [m for m in view["mounts"] if not any(uid in m for uid in live)]
            if stray:
                disagree.append(f"{len(stray)} mounts of no live pod: {stray[:3]}")
            if not disagree:
                break
            time.sleep(0.5)
        problems += disagree
        if fds1 > fds0 + 5:
            problems.append(f"the daemon's descriptors grew from {fds0} to {fds1}")
        if rss1 > rss0 + 8 * 1024:
            problems.append(f"the daemon's RSS grew from {rss0} kB to {rss1} kB")
        # Everything deleted: nothing may be left.
        for p in pod_list(api, c):
            api.call(c, "DELETE", f"/api/v1/namespaces/default/pods/{p['metadata']['name']}")
        deadline = time.monotonic() + 120
        while pod_list(api, c) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = pod_list(api, c)
        if left:
            problems.append(f"{len(left)} pods not deleted")
        for _ in range(40):
            view = node_view(node)
            leftovers = [f"{part}: {len(view[part])}" for part in
                         ("monitors", "cgroups", "pod directories", "pod records", "mounts",
                          "ip allocations")
                         if view[part]]
            if not leftovers:
                break
            time.sleep(0.5)
        netns_after = set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()
        if netns_after - netns_before:
            leftovers.append(f"network namespaces {sorted(netns_after - netns_before)}")
        problems += [f"left after deleting everything: {x}" for x in leftovers]
        print(f"soak {args.minutes:g} min{' with a pod network' if args.pod_network else ''}: "
              f"{kills} kill -9, {node.starts} daemon starts, "
              f"{counts['created']} pods created, {counts['deleted']} deleted, {len(live)} left "
              f"running and agreed on; last daemon {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB RSS, "
              f"{fds0} -> {fds1} descriptors; after deleting all: "
              f"{'nothing left' if not leftovers else '; '.join(leftovers)}", flush=True)
    finally:
        node.stop()
        stop_monitors(node.data)
        shutil.rmtree(work, ignore_errors=True)
    if problems:
        print("PROBLEMS:\n  " + "\n  ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
