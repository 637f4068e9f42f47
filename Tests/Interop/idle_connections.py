#!/usr/bin/env python3
"""Checks the gRPC listener's connection limits from outside, with raw sockets:

1. a TCP connection that never starts TLS is closed within --handshake seconds (+3);
2. a TLS connection that sends only the HTTP/2 preface and SETTINGS gets the server's SETTINGS with
   SETTINGS_MAX_CONCURRENT_STREAMS = --max-streams, then GOAWAY after --idle seconds (+3).

    idle_connections.py --target 127.0.0.1:PORT --ca CERT.pem --handshake 1 --idle 1 --max-streams 7

Bounded: each socket waits at most its limit plus 3 s. Exits 0 when every check passes.
"""

import argparse
import socket
import ssl
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS, GOAWAY = 0x4, 0x7
MAX_CONCURRENT_STREAMS = 0x3


def read_until_closed(sock, deadline):
    """(everything the server sent, whether it closed the connection before `deadline`)."""
    received = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except (ConnectionResetError, ssl.SSLError):
            return received, True
        if not chunk:
            return received, True
        received += chunk
    return received, False


def frames(data):
    while len(data) >= 9:
        length = int.from_bytes(data[:3], "big")
        kind, payload = data[3], data[9:9 + length]
        yield kind, payload
        data = data[9 + length:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--handshake", type=float, required=True)
    parser.add_argument("--idle", type=float, required=True)
    parser.add_argument("--max-streams", type=int, required=True)
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    failures = []

    def check(name, condition, detail=""):
        print(("ok   " if condition else "FAIL ") + name + (f" ({detail})" if detail and not condition else ""))
        if not condition:
            failures.append(name)

    started = time.monotonic()
    plain = socket.create_connection((host, int(port)), timeout=5)
    _, closed = read_until_closed(plain, started + args.handshake + 3)
    check(f"a TCP connection without a TLS handshake is closed within {args.handshake + 3:.0f} s",
          closed, "still open")
    plain.close()

    context = ssl.create_default_context(cafile=args.ca)
    context.check_hostname = False
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection((host, int(port)), timeout=5)
    tls = context.wrap_socket(raw, server_hostname="localhost")
    tls.sendall(PREFACE + struct.pack(">I", 0)[1:] + bytes([SETTINGS, 0]) + struct.pack(">I", 0))
    started = time.monotonic()
    # GOAWAY after the idle time. (The server then pings and waits for the answer before it closes;
    # a client that never answers keeps the socket: see the README.)
    received, _ = read_until_closed(tls, started + args.idle + 3)
    settings = {}
    for kind, payload in frames(received):
        if kind == SETTINGS:
            for index in range(0, len(payload) - 5, 6):
                identifier, value = struct.unpack(">HI", payload[index:index + 6])
                settings[identifier] = value
    check(f"the server advertises at most {args.max_streams} concurrent streams",
          settings.get(MAX_CONCURRENT_STREAMS) == args.max_streams, f"settings {settings}")
    check(f"an idle HTTP/2 connection is told GOAWAY within {args.idle + 3:.0f} s",
          any(kind == GOAWAY for kind, _ in frames(received)))
    tls.close()
    print(f"connections: {3 - len(failures)} of 3 checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
