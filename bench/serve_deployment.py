#!/usr/bin/env python3
"""bench/serve_deployment.py PODLIMITS [--replicas N] [--runs R]: a Deployment's create -> all Running.

Starts `podlimits serve` on a scratch data directory and a free loopback port (needs root), as
bench/serve_api.py does, then R times: POSTs an apps/v1 Deployment of N replicas (the one-container
busybox pod of serve_api.py's section 1 as its template) and polls the Deployment until its status
says N replicas available (each pod Running with its container ready, through the controllers:
Deployment -> ReplicaSet -> pods -> the node -> the status back up). The time is from just before
the POST to the first GET that shows it. Then deletes the Deployment and waits until its pods are
gone (the garbage collector's work, not timed). Median and max over the runs. Everything it
started is stopped and removed at the end.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("podlimits")
    ap.add_argument("--replicas", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    binary = os.path.realpath(args.podlimits)
    work = tempfile.mkdtemp(prefix="podlimits-deployment-bench.")
    data = os.path.join(work, "node")
    serve = None
    try:
        serve_api.prepare_node(binary, work, data)
        port = serve_api.free_port()
        log = open(os.path.join(work, "serve.log"), "w")
        serve = subprocess.Popen([binary, "serve", "--data-dir", data, "--listen",
                                  f"127.0.0.1:{port}", "--node-config",
                                  os.path.join(work, "node.yaml")],
                                 stdout=log, stderr=subprocess.STDOUT)
        for _ in range(200):
            if "listening on" in open(os.path.join(work, "serve.log")).read():
                break
            time.sleep(0.05)
        api = serve_api.Api(data, port)
        c = api.conn()
        base = "/apis/apps/v1/namespaces/default/deployments"
        times = []
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
        print(f"Deployment of {args.replicas} replicas, create -> all available ({args.runs} runs): "
              f"median {statistics.median(times):.0f} ms, max {max(times):.0f} ms "
              f"({', '.join(f'{t:.0f}' for t in times)})")
    finally:
        if serve:
            serve.terminate()
            serve.wait(timeout=120)
        serve_api.stop_monitors(data)
        subprocess.run(["rm", "-rf", work], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
