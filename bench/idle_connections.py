#!/usr/bin/env python3
"""bench/idle_connections.py BINARY [--target serve|webhook] [--count N] [--sources K]

Connections that never send a byte against `podlimits serve` (kubectl's view) or `podlimits
webhook` (an AdmissionReview's view), as issue 29 found them: 1,030 of them once locked every
client out of the thread-per-connection listener.

Opens COUNT TCP connections to the server from K loopback addresses (127.0.0.2 ...), holds them,
and measures, before, while they are held and after the server's header deadline (32 s) has
passed:
  - a real client's latency (kubectl get nodes against serve; a review with curl against the
    webhook), median and max of 10;
  - the server's RSS, threads and open descriptors (/proc/PID);
  - how many of the idle connections the server still holds.
The server listens on loopback; everything it starts is stopped at the end. serve needs root.
"""
import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REVIEW = ('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1",'
          '"kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1",'
          '"resource":"pods"},"namespace":"ci","operation":"CREATE","object":{"apiVersion":"v1",'
          '"kind":"Pod","metadata":{"name":"runner","annotations":{}},"spec":{"containers":'
          '[{"name":"app","image":"busybox"}]}}}}')


def proc_stats(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                out["rss_mb"] = int(line.split()[1]) / 1024
            if line.startswith("Threads:"):
                out["threads"] = int(line.split()[1])
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


def start(args, work):
    log = open(os.path.join(work, "server.log"), "w+")
    if args.target == "serve":
        with open(os.path.join(work, "node.yaml"), "w") as f:
            f.write("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                    "cgroupRoot: /podlimits-bench-idle\n---\n"
                    "apiVersion: podlimits.dev/v1alpha1\nkind: NodeConfiguration\n"
                    f"stateDirectory: {work}/state\n")
        cmd = [args.binary, "serve", "--data-dir", os.path.join(work, "node"), "--listen",
               f"127.0.0.1:{args.port}", "--node-config",
               os.path.join(work, "node.yaml")]
    else:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                        f"{work}/key.pem", "-out", f"{work}/cert.pem", "-days", "1", "-subj",
                        "/CN=bench", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        cmd = [args.binary, "webhook", "--tls-cert-file", f"{work}/cert.pem",
               "--tls-private-key-file", f"{work}/key.pem", "--listen", f"127.0.0.1:{args.port}"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=log)
    for _ in range(200):
        log.seek(0)
        if "listening on" in log.read():
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    log.seek(0)
    sys.exit(f"server did not start: {log.read()}")


def client_call(args, work):
    if args.target == "serve":
        cmd = ["kubectl", "--kubeconfig", os.path.join(work, "node", "kubeconfig"),
               "--request-timeout=20s", "get", "nodes", "-o", "name"]
    else:
        cmd = ["curl", "-sS", "--max-time", "20", "--cacert", f"{work}/cert.pem", "-H",
               "Content-Type: application/json", "--data-binary", REVIEW,
               f"https://127.0.0.1:{args.port}/validate"]
    began = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    took = (time.monotonic() - began) * 1000
    ok = r.returncode == 0 and (("node/" in r.stdout) if args.target == "serve"
                                else '"allowed"' in r.stdout)
    return took, ok


def measure(args, work, pid, label, idle):
    times, failures = [], 0
    for _ in range(10):
        took, ok = client_call(args, work)
        times.append(took)
        failures += not ok
    held = 0
    for s in idle:
        try:
            data = s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            held += data != b""
        except BlockingIOError:
            held += 1
        except OSError:
            pass
    st = proc_stats(pid)
    print(f"{label:<34} client median {statistics.median(times):7.1f} ms  max {max(times):7.1f} ms"
          f"  failed {failures}/10 | server RSS {st['rss_mb']:6.1f} MB  threads {st['threads']:4d}"
          f"  fds {st['fds']:6d} | idle held {held}/{len(idle)}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("--target", choices=["serve", "webhook"], default="webhook")
    p.add_argument("--count", type=int, default=10000)
    p.add_argument("--sources", type=int, default=1)
    p.add_argument("--port", type=int, default=18600)
    p.add_argument("--hold", type=int, default=40, help="seconds to hold them (past 32 s)")
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    work = tempfile.mkdtemp(prefix="podlimits-bench-idle.")
    proc = None
    idle = []
    try:
        proc = start(args, work)
        print(f"== {args.target} {args.binary}: {args.count} idle connections from "
              f"{args.sources} address(es)")
        measure(args, work, proc.pid, "before", idle)
        for i in range(args.count):
            s = socket.socket()
            s.setblocking(False)
            s.bind((f"127.0.0.{2 + i % args.sources}", 0))
            try:
                s.connect(("127.0.0.1", args.port))
            except BlockingIOError:
                pass
            idle.append(s)
        time.sleep(2)
        measure(args, work, proc.pid, f"{args.count} idle connections held", idle)
        time.sleep(max(0, args.hold - 2))
        measure(args, work, proc.pid, f"after {args.hold} s", idle)
    finally:
        for s in idle:
            s.close()
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
