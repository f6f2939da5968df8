#!/usr/bin/env python3
"""bench/serve_deployment.py PODLIMITS [--replicas N] [--runs R] [--podman]: a Deployment's create -> all Running.

Starts `podlimits serve` on a scratch data directory and a free loopback port (needs root), as
bench/serve_api.py does, then R times: POSTs an apps/v1 Deployment of N replicas (the one-container
busybox pod of serve_api.py's section 1 as its template) and polls the Deployment until its status
says N replicas available (each pod Running with its container ready, through the controllers:
Deployment -> ReplicaSet -> pods -> the node -> the status back up). The time is from just before
the POST to the first GET that shows it. Then deletes the Deployment and waits until its pods are
gone (the garbage collector's work, not timed). Median and max over the runs. Everything it
started is stopped and removed at the end.

With --podman, each run is followed by `podman kube play --network none FILE` of the same
Deployment (another name) through bench/podman_env.sh's view and serve_api.py's podman agent, as
serve_api.py's section 4 plays pods: its time is the wall time of the play, which returns once
the pods' containers are started; then the Deployment's app containers podman runs are counted
(`podman ps`), since podman may play fewer replicas than asked. One play first, not counted
(podman builds its pause image at its first pod). Medians and the podman/podlimits ratio.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_api  # noqa: E402  (Api, free_port, prepare_node, pod, wait_no_pods, stop_monitors)


def deployment(name, replicas):
    template = serve_api.pod("unused")
    template["metadata"] = {"labels": {"app": name}}
    del template["apiVersion"], template["kind"]
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": template}}


def start_podman(work):
    """serve_api.py's podman agent in podman_env.sh's view, the busybox image loaded into it."""
    pmdir = os.path.join(work, "podman")
    agent, pm, log_path = serve_api.start_podman_agent(work)
    os.makedirs(os.path.join(pmdir, "plays"), exist_ok=True)
    print(pm("podman", "--version")["out"].strip())
    image = pm("podman", "pull", "-q", f"oci:{work}/image/busybox-oci")["out"].strip()
    pm("podman", "tag", image, "localhost/busybox:latest")
    return agent, pm, log_path


def play(pm, work, name, replicas):
    """`podman kube play` of the Deployment: its wall time (ms) and how many of its app
    containers are running once it returned."""
    path = os.path.join(work, "podman", "plays", name + ".json")
    with open(path, "w") as f:
        json.dump(deployment(name, replicas), f)
    r = pm("podman", "kube", "play", "--network", "none", path)
    ps = pm("podman", "ps", "--format", "{{.Names}} {{.State}}")["out"].split("\n")
    # "NAME-pod-I-app Up 3 seconds ago": podman 4.3 plays each replica as a pod of its own.
    running = sum(1 for line in ps if line.startswith(name + "-pod-") and line.split()[1:2] == ["Up"])
    return r["ms"], running


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("podlimits")
    ap.add_argument("--replicas", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--podman", action="store_true", help="and podman kube play of the same, interleaved")
    args = ap.parse_args()
    binary = os.path.realpath(args.podlimits)
    work = serve_api.work_dir("podlimits-deployment-bench")
    data = os.path.join(work, "node")
    serve = None
    agent, pm = None, None
    try:
        serve, port = serve_api.start_serve(binary, work, data)
        api = serve_api.Api(data, port)
        c = api.conn()
        base = "/apis/apps/v1/namespaces/default/deployments"
        if args.podman:
            agent, pm, log_path = start_podman(work)
            play(pm, work, "warm", 1)
        times, plays, counts = [], [], []
        for run in range(args.runs):
            name = f"bench-{run}"
            started = time.monotonic()
            status, body = api.call(c, "POST", base, deployment(name, args.replicas))
            if status != 201:
                sys.exit(f"create {name}: {status} {body[:200]}")
            deadline = started + 120
            while time.monotonic() < deadline:
                status, body = api.call(c, "GET", f"{base}/{name}")
                available = json.loads(body).get("status", {}).get("availableReplicas", 0)
                if available >= args.replicas:
                    break
                time.sleep(0.005)
            else:
                sys.exit(f"{name}: not all {args.replicas} replicas available within 120 s")
            times.append((time.monotonic() - started) * 1000)
            api.call(c, "DELETE", f"{base}/{name}")
            serve_api.wait_no_pods(api, c)
            if pm:
                time.sleep(0.1)
                ms, running = play(pm, work, f"pm-{run}", args.replicas)
                plays.append(ms)
                counts.append(running)
        print(f"load average {open('/proc/loadavg').read().split()[:3]}")
        print(f"Deployment of {args.replicas} replicas, create -> all available ({args.runs} runs): "
              f"median {statistics.median(times):.0f} ms, max {max(times):.0f} ms "
              f"({', '.join(f'{t:.0f}' for t in times)})")
        if plays:
            print(f"podman kube play of the same Deployment ({args.runs} runs, interleaved): "
                  f"median {statistics.median(plays):.0f} ms, max {max(plays):.0f} ms "
                  f"({', '.join(f'{t:.0f}' for t in plays)}); app containers running after each: {counts}")
            print(f"podman / podlimits: median {statistics.median(plays) / statistics.median(times):.1f}x")
    finally:
        if agent:
            serve_api.end_podman_agent(agent, log_path)
        if serve:
            serve.terminate()
            serve.wait(timeout=120)
        serve_api.stop_monitors(data)
        subprocess.run(["rm", "-rf", work], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
