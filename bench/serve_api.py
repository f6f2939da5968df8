#!/usr/bin/env python3
"""bench/serve_api.py PODLIMITS [--pods N] [--objects M] [--watchers W] [--podman P]: podlimits serve's speed.

Starts `podlimits serve` on a scratch data directory and a free loopback port (needs root), then:

  1. create -> Running: N one-container busybox pods created one after another through the API;
     each pod's latency is from just before its POST to the watch event that shows it Running
     with its container ready (one watch over all pods, opened first). Median and p99. The
     daemon's RSS while the N pods run, and the sum of their monitors' RSS.
  2. with M pod objects stored (bound to another node, so this node runs none of them): a plain
     list, the Table `kubectl get pods` asks for, and GET of one pod (p50/p99 over 1000 requests
     on one keep-alive connection). Times are client-side over loopback TLS, so they include the
     TLS and HTTP work (an upper bound of the server time).
  3. watch fan-out: W watchers on pods; the delay from a write to its event at every watcher.
  4. (--podman P, P > 0; 0, the default, skips it) side by side with Debian's podman, once
     sections 1-3 have removed their pods: P pods on each, interleaved (podlimits pod i, podman
     pod i, podlimits pod i+1, ...), each measurement after a 100 ms pause, after one warm-up pod
     on each (podman builds its pause image at its first pod). Both run the same pod object (the
     one of section 1) from the same busybox OCI layout. podlimits: create -> Running as in 1.
     podman: "create -> Running" is the wall time of `podman kube play --network none FILE`
     (FILE holds the pod as JSON) returning, which it does once the pod's infra and app
     containers are started; also the time from that command's start to the app container's
     State.StartedAt (podman inspect, run after it returned, which also checks that the
     container is running). Medians, p99s and the podman/podlimits ratios. podman runs through
     bench/podman_env.sh: a private mount namespace whose /sys/fs/cgroup shows only the v1
     hierarchies it may use, its storage and state in a scratch directory, cgroupfs, crun,
     overlay (see that script). All its pods, containers and images are removed at the end.

Everything it started is stopped and removed at the end (pods deleted, serve stopped).
"""

import argparse
import http.client
import json
import os
import secrets
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def prepare_node(binary, work, data):
    """busybox:latest in DATA's image store and WORK/node.yaml with its state under WORK."""
    subprocess.run([os.path.join(ROOT, "scripts", "build-busybox-image"), os.path.join(work, "image")],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([binary, "image", "--data-dir", data, "load",
                    os.path.join(work, "image", "busybox-oci"), "--name", "busybox:latest"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "node.yaml"), "w") as f:
        f.write("apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\n"
                f"stateDirectory: {work}/state\n")


def work_dir(prefix):
    """A new scratch directory /tmp/PREFIX-<hex> (mode 0700). Not tempfile.mkdtemp: podman pulls
    the image as oci:WORK/image/busybox-oci and names it after that path, and mkdtemp's letters
    ("._", "-_") can make the name an invalid reference ("invalid reference format")."""
    while True:
        path = os.path.join(tempfile.gettempdir(), f"{prefix}-{secrets.token_hex(4)}")
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue


def start_serve(binary, work, data):
    """Prepares the node in `work`, starts `podlimits serve` on a free loopback port with its log
    in work/serve.log, and waits (up to 10 s) for it to listen. Returns (process, port)."""
    prepare_node(binary, work, data)
    port = free_port()
    log = open(os.path.join(work, "serve.log"), "w")
    serve = subprocess.Popen([binary, "serve", "--data-dir", data, "--listen", f"127.0.0.1:{port}",
                              "--node-config", os.path.join(work, "node.yaml")],
                             stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        if "listening on" in open(os.path.join(work, "serve.log")).read():
            break
        time.sleep(0.05)
    return serve, port


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def pss_kb(pid):
    """Proportional set size: shared pages (the binary's text) divided among their users."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Api:
    def __init__(self, data, port):
        self.ctx = ssl.create_default_context(cafile=os.path.join(data, "pki", "ca.crt"))
        self.ctx.load_cert_chain(os.path.join(data, "pki", "admin.crt"),
                                 os.path.join(data, "pki", "admin.key"))
        self.port = port

    def conn(self, timeout=60):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx,
                                           timeout=timeout)

    def call(self, conn, method, path, body=None, headers=None):
        h = {"Content-Type": "application/json", "Accept": "application/json"}
        h.update(headers or {})
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
        r = conn.getresponse()
        data = r.read()
        return r.status, data


def stop_monitors(data):
    """Pods an interrupted run left running: each live monitor (its lock held) gets SIGTERM with
    no grace period and is waited for, so that it tears its pod down."""
    import fcntl
    import signal
    pods = os.path.join(data, "pods")
    live = []
    for uid in os.listdir(pods) if os.path.isdir(pods) else []:
        lock = os.path.join(pods, uid, "monitor.lock")
        try:
            fd = os.open(lock, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            continue  # nobody holds it: no monitor
        except OSError:
            pid = int(os.pread(fd, 32, 0).split()[0])
        finally:
            os.close(fd)
        with open(os.path.join(pods, uid, "stop"), "w") as f:
            f.write("0\n")
        os.kill(pid, signal.SIGTERM)
        live.append(pid)
    for pid in live:
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)


def pod(name, node=None):
    spec = {"terminationGracePeriodSeconds": 5, "dnsPolicy": "Default",
            "containers": [{"name": "app", "image": "busybox:latest",
                            "command": ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def create_until_running(api, c, ready_at, name):
    """POSTs the pod and waits for the watch (watch_running) to see it Running and ready: the
    latency in ms, from just before the POST."""
    started = time.monotonic()
    status, body = api.call(c, "POST", "/api/v1/namespaces/default/pods", pod(name))
    if status != 201:
        sys.exit(f"create {name}: {status} {body[:200]}")
    deadline = time.monotonic() + 60
    while name not in ready_at and time.monotonic() < deadline:
        time.sleep(0.001)
    if name not in ready_at:
        sys.exit(f"{name} not Running within 60 s")
    return (ready_at[name] - started) * 1000


def wait_no_pods(api, c, limit=120):
    """Until the default namespace has no pod left (deleted pods go once the node stopped them)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        status, body = api.call(c, "GET", "/api/v1/namespaces/default/pods")
        if not json.loads(body)["items"]:
            return
        time.sleep(0.2)


def watch_running(api, ready_at, stop):
    """Records when each pod is first Running with its container ready."""
    c = api.conn(timeout=600)
    c.request("GET", "/api/v1/namespaces/default/pods?watch=1",
              headers={"Accept": "application/json"})
    r = c.getresponse()
    buf = b""
    while not stop.is_set():
        try:
            chunk = r.read1(65536)
        except (http.client.HTTPException, OSError):
            break  # the server ended the watch (it stops at the end of the run)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            ev = json.loads(line)
            o = ev["object"]
            st = o.get("status", {})
            cs = st.get("containerStatuses", [])
            if st.get("phase") == "Running" and cs and cs[0].get("ready"):
                ready_at.setdefault(o["metadata"]["name"], time.monotonic())
    c.close()


# Runs inside bench/podman_env.sh's view, as one long-lived process, so that every podman command
# sees the same mount namespace (conmon and the containers' mounts live in it) and its time is
# taken right around the command. Reads a JSON argv per line, answers a JSON line with the exit
# code, the wall time (ms), the wall clock at the start, stdout and stderr. At the end of its input
# it removes every pod, container and image of this podman and waits for the processes left in
# the namespace (conmon, `podman container cleanup`) to end. It and the podman commands it runs
# ignore SIGINT (podman_env.sh sets it so), so that a Ctrl-C of the benchmark cannot cut that short.
PODMAN_AGENT = r"""
import json, os, subprocess, sys, time

def mountpoints():
    with open("/proc/self/mountinfo") as f:
        return {line.split()[4] for line in f}

def clear_unmounted_controllers():
    # podman creates its pod cgroups in every v1 controller it knows, and crun enters every
    # controller /proc/self/cgroup lists whose directory exists: under a controller that the view
    # does not mount (memory) that is a plain directory on the view's tmpfs, and the files they
    # write there (tasks, cgroup.procs, memory.*) keep podman from removing the directory.
    m = mountpoints()
    if "/sys/fs/cgroup" not in m:
        sys.exit("podman agent: /sys/fs/cgroup is not the view's tmpfs")
    for name in os.listdir("/sys/fs/cgroup"):
        top = "/sys/fs/cgroup/" + name
        if any(p == top or p.startswith(top + "/") for p in m):
            continue  # a real hierarchy of the view: podman removes its own cgroups there
        for d, _, files in os.walk(top):
            for f in files:
                os.unlink(os.path.join(d, f))

def run(argv):
    t0 = time.time()
    s = time.monotonic()
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        return {"rc": 127, "ms": 0, "t0": t0, "out": "", "err": str(e)}
    ms = (time.monotonic() - s) * 1000
    return {"rc": p.returncode, "ms": ms, "t0": t0, "out": p.stdout, "err": p.stderr}

def others():
    own = os.readlink("/proc/self/ns/mnt")
    keep, pid = set(), os.getpid()
    while pid > 1:
        keep.add(pid)
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    left = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) not in keep:
            try:
                if os.readlink(f"/proc/{p}/ns/mnt") == own:
                    left.append(int(p))
            except OSError:
                pass
    return left

for line in sys.stdin:
    try:
        print(json.dumps(run(json.loads(line))), flush=True)
    except BrokenPipeError:
        break  # the benchmark is gone: clean up all the same
clear_unmounted_controllers()
for argv in (["podman", "pod", "rm", "--all", "--force", "--time", "0"],
             ["podman", "rm", "--all", "--force", "--time", "0"],
             ["podman", "rmi", "--all", "--force"]):
    r = run(argv)
    if r["rc"]:
        print("podman agent:", " ".join(argv), r["err"], file=sys.stderr)
deadline = time.monotonic() + 60
while others() and time.monotonic() < deadline:
    time.sleep(0.1)
clear_unmounted_controllers()
left = others()
if left:
    print("podman agent: processes left in the namespace:", left, file=sys.stderr)
    sys.exit(1)
"""


def end_podman_agent(agent, log_path):
    """Closes the agent's input and waits while it removes everything of podman's (minutes for
    100 pods); the scratch directory may go only after that."""
    try:
        agent.stdin.close()
    except OSError:
        pass
    while True:
        try:
            agent.wait()
            break
        except KeyboardInterrupt:
            print("waiting for podman's cleanup to end", file=sys.stderr)
    if agent.returncode != 0:
        print(f"podman cleanup failed (exit {agent.returncode}); {log_path}:\n"
              + open(log_path).read()[-2000:], file=sys.stderr)


def start_podman_agent(work):
    """PODMAN_AGENT in podman_env.sh's view of work/podman, its stderr in work/podman.log.
    Returns (process, pm, log path): pm(*argv, check=True) runs one command through it and
    returns {"rc", "out", "err", "ms", "t0"}, exiting the benchmark when the agent ended or
    (with check) the command failed."""
    pmdir = os.path.join(work, "podman")
    log_path = os.path.join(work, "podman.log")
    with open(log_path, "w") as log:
        agent = subprocess.Popen([os.path.join(HERE, "podman_env.sh"), pmdir, "python3", "-u", "-c",
                                  PODMAN_AGENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=log, text=True)

    def pm(*argv, check=True):
        agent.stdin.write(json.dumps(list(argv)) + "\n")
        agent.stdin.flush()
        line = agent.stdout.readline()
        if not line:
            sys.exit(f"podman agent ended: {open(log_path).read()[-2000:]}")
        r = json.loads(line)
        if check and r["rc"] != 0:
            sys.exit(f"{' '.join(argv)}: exit {r['rc']}: {r['err'][-500:]}")
        return r

    return agent, pm, log_path


def podman_side_by_side(api, c, ready_at, work, n, agents):
    """Section 4: n pods on podlimits and n through `podman kube play`, interleaved. The agent
    started is appended to `agents`, for main to wait for if this ends by an exception."""
    pmdir = os.path.join(work, "podman")
    agent, pm, log_path = start_podman_agent(work)
    agents.append(agent)

    def podlimits_pod(name):
        return create_until_running(api, c, ready_at, name)

    def podman_pod(name):
        path = os.path.join(pmdir, "pods", name + ".json")
        with open(path, "w") as f:
            json.dump(pod(name), f)
        r = pm("podman", "kube", "play", "--network", "none", path)
        st = pm("podman", "inspect", "--format", "{{.State.Status}} {{.State.StartedAt.UnixNano}}",
                f"{name}-app")["out"].split()
        if st[0] != "running":
            sys.exit(f"podman {name}-app: {st[0]}, not running")
        return r["ms"], (int(st[1]) / 1e9 - r["t0"]) * 1000

    names = []
    try:
        os.makedirs(os.path.join(pmdir, "pods"), exist_ok=True)
        versions = [pm("podman", "--version")["out"].strip(), pm("conmon", "--version")["out"].split("\n")[0],
                    pm("crun", "--version")["out"].split("\n")[0]]
        info = pm("podman", "info", "--format",
                  "{{.Store.GraphDriverName}} {{.Host.CgroupManager}} cgroup {{.Host.CgroupsVersion}} "
                  "{{.Host.OCIRuntime.Name}} {{.Host.NetworkBackend}}")["out"].split()
        image = pm("podman", "pull", "-q", f"oci:{work}/image/busybox-oci")["out"].strip()
        pm("podman", "tag", image, "localhost/busybox:latest")
        digest = pm("podman", "image", "inspect", "--format", "{{.Digest}}", "localhost/busybox:latest")["out"].strip()
        print(f"podman: {', '.join(versions)}; storage {info[0]}, cgroup manager {info[1]} "
              f"(cgroup {info[3]}, a view without memory), runtime {info[4]}, network none "
              f"(backend {info[5]} unused); image localhost/busybox:latest = the OCI layout podlimits "
              f"loaded (manifest {digest}, image {image[:12]})")
        # Warm-up, not counted: podman builds its pause image at its first pod.
        for name in ("pair-warm",):
            names.append(name)
            podlimits_pod(name)
            podman_pod(name)
        ours, plays, starts = [], [], []
        for i in range(n):
            name = f"pair-{i}"
            names.append(name)
            time.sleep(0.1)
            ours.append(podlimits_pod(name))
            time.sleep(0.1)
            play, start = podman_pod(name)
            plays.append(play)
            starts.append(start)
        mo, mp = statistics.median(ours), statistics.median(plays)
        po, pp = pct(ours, 99), pct(plays, 99)
        print(f"side by side, {n} pods each, interleaved, 100 ms pause before each:")
        print(f"  podlimits create->Running (POST to the watch event Running+ready): "
              f"median {mo:.1f} ms, p99 {po:.1f} ms, max {max(ours):.1f} ms")
        print(f"  podman create->Running = wall time of `podman kube play --network none FILE` "
              f"returning (it returns once the pod's containers are started): "
              f"median {mp:.1f} ms, p99 {pp:.1f} ms, max {max(plays):.1f} ms")
        print(f"  podman, its start to the app container's State.StartedAt: "
              f"median {statistics.median(starts):.1f} ms, p99 {pct(starts, 99):.1f} ms")
        print(f"  podman / podlimits: median {mp / mo:.1f}x, p99 {pp / po:.1f}x")
    finally:
        try:
            for name in names:
                api.call(c, "DELETE", f"/api/v1/namespaces/default/pods/{name}")
        finally:
            agents.remove(agent)
            end_podman_agent(agent, log_path)
    wait_no_pods(api, c)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("podlimits")
    ap.add_argument("--pods", type=int, default=100)
    ap.add_argument("--objects", type=int, default=1000)
    ap.add_argument("--watchers", type=int, default=10)
    ap.add_argument("--podman", type=int, default=0,
                    help="pods for the side-by-side podman kube play comparison (0: skip)")
    args = ap.parse_args()
    binary = os.path.realpath(args.podlimits)

    work = work_dir("podlimits-serve-bench")
    data = os.path.join(work, "node")
    serve = None
    podman_agents = []
    try:
        serve, port = start_serve(binary, work, data)
        api = Api(data, port)
        c = api.conn()

        # 1. create -> Running
        ready_at, stop = {}, threading.Event()
        watcher = threading.Thread(target=watch_running, args=(api, ready_at, stop), daemon=True)
        watcher.start()
        time.sleep(0.3)
        # One pod at a time: each waited for before the next.
        latencies = [create_until_running(api, c, ready_at, f"bench-{i}") for i in range(args.pods)]
        daemon_rss = rss_kb(serve.pid)
        monitors = []  # the live monitors' pids, from their locks (monitor_files.h)
        for uid in os.listdir(os.path.join(data, "pods")):
            with open(os.path.join(data, "pods", uid, "monitor.lock")) as f:
                text = f.read().split()
            if text:
                monitors.append(text[0])
        monitor_rss = sum(rss_kb(int(p)) for p in monitors)
        monitor_pss = sum(pss_kb(int(p)) for p in monitors)
        print(f"create->Running ({len(latencies)} of {args.pods} pods, one at a time): "
              f"median {statistics.median(latencies):.1f} ms, p99 {pct(latencies, 99):.1f} ms, "
              f"max {max(latencies):.1f} ms")
        print(f"daemon RSS with {len(monitors)} running pods: {daemon_rss / 1024:.1f} MiB; "
              f"their monitors: {monitor_rss / 1024:.1f} MiB in all "
              f"({monitor_rss / 1024 / max(1, len(monitors)):.1f} MiB each, shared pages counted in each); "
              f"PSS {monitor_pss / 1024:.1f} MiB in all ({monitor_pss / 1024 / max(1, len(monitors)):.2f} MiB each)")

        # 2. M stored pod objects, bound elsewhere.
        for i in range(args.objects):
            status, body = api.call(c, "POST", "/api/v1/namespaces/default/pods",
                                    pod(f"stored-{i}", node="elsewhere"))
            if status != 201:
                sys.exit(f"create stored-{i}: {status} {body[:200]}")
        total = args.objects + args.pods

        def timed(method, path, headers=None, n=20):
            times = []
            for _ in range(n):
                t = time.monotonic()
                status, body = api.call(c, method, path, headers=headers)
                times.append((time.monotonic() - t) * 1000)
                if status != 200:
                    sys.exit(f"{path}: {status}")
            return times, body

        plain, body = timed("GET", "/api/v1/namespaces/default/pods")
        table, _ = timed("GET", "/api/v1/namespaces/default/pods", headers={
            "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
        get, _ = timed("GET", f"/api/v1/namespaces/default/pods/stored-{args.objects // 2}", n=1000)
        print(f"list of {total} pods: median {statistics.median(plain):.1f} ms "
              f"({len(body) / 1e6:.1f} MB); as a Table: median {statistics.median(table):.1f} ms; "
              f"GET one pod: p50 {statistics.median(get):.2f} ms, p99 {pct(get, 99):.2f} ms")

        # 3. watch fan-out
        delays = []
        got = [threading.Event() for _ in range(args.watchers)]
        arrived = [0.0] * args.watchers

        def fan(i, rv):
            wc = api.conn(timeout=60)
            wc.request("GET", f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}")
            r = wc.getresponse()
            try:
                r.read1(65536)
            except (http.client.HTTPException, OSError):
                return
            arrived[i] = time.monotonic()
            got[i].set()
            wc.close()

        status, body = api.call(c, "GET", "/api/v1/namespaces/default/configmaps")
        rv = json.loads(body)["metadata"]["resourceVersion"]
        threads = [threading.Thread(target=fan, args=(i, rv), daemon=True) for i in range(args.watchers)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        api.call(c, "POST", "/api/v1/namespaces/default/configmaps",
                 {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fan"}})
        for e in got:
            e.wait(10)
        delays = [(a - t0) * 1000 for a in arrived if a]
        print(f"watch fan-out to {len(delays)} watchers: the write reached all in "
              f"{max(delays):.1f} ms (median {statistics.median(delays):.1f} ms)")

        # Clean up: every pod goes (the stored ones with grace 0: no node runs them).
        for i in range(args.objects):
            api.call(c, "DELETE", f"/api/v1/namespaces/default/pods/stored-{i}", {"gracePeriodSeconds": 0})
        for i in range(args.pods):
            api.call(c, "DELETE", f"/api/v1/namespaces/default/pods/bench-{i}")
        wait_no_pods(api, c)

        # 4. side by side with podman kube play
        if args.podman > 0:
            podman_side_by_side(api, c, ready_at, work, args.podman, podman_agents)
        stop.set()
    finally:
        for agent in podman_agents:
            end_podman_agent(agent, os.path.join(work, "podman.log"))
        if serve:
            serve.terminate()
            serve.wait(30)
        stop_monitors(data)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
