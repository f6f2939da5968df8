#!/usr/bin/python3
"""A gRPC server for the grpc probe tests, on Debian's python3-grpcio (an independent gRPC
implementation): grpc.health.v1.Health/Check with hand-written protobuf bytes.

  grpc_health_server.py health     Check answers by service name:
                                     ""        SERVING
                                     "down"    NOT_SERVING
                                     "missing" NOT_FOUND "unknown service missing"
                                     "slow"    SERVING after 1.5 s
  grpc_health_server.py none       no health service (UNIMPLEMENTED)

Listens on 127.0.0.1 (a free port), prints the port on stdout, and stops when its stdin closes
or after 120 s, whichever comes first."""
import sys
import threading
import time
from concurrent import futures

import grpc

SERVING, NOT_SERVING = 1, 2


def request_service(data):
    # HealthCheckRequest: field 1 (service), length-delimited; lengths here are < 128.
    if len(data) >= 2 and data[0] == 0x0A:
        return data[2:2 + data[1]].decode()
    return ""


def check(request, context):
    service = request_service(request)
    if service == "down":
        return bytes([0x08, NOT_SERVING])
    if service == "missing":
        context.abort(grpc.StatusCode.NOT_FOUND, "unknown service missing")
    if service == "slow":
        time.sleep(1.5)
    return bytes([0x08, SERVING])


def main():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    if sys.argv[1] == "health":
        handler = grpc.method_handlers_generic_handler(
            "grpc.health.v1.Health", {"Check": grpc.unary_unary_rpc_method_handler(check)})
        server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait(120)
    server.stop(0)


if __name__ == "__main__":
    main()
