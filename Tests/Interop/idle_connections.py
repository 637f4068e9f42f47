#!/usr/bin/env python3
"""Checks the gRPC listener's connection limits from outside, with raw sockets:

1. a TCP connection that never starts TLS is closed within --handshake seconds (+8);
2. a TLS connection that sends only the HTTP/2 preface and SETTINGS gets the server's SETTINGS with
   SETTINGS_MAX_CONCURRENT_STREAMS = --max-streams, then GOAWAY after --idle seconds (+3), and,
   never answering the ping that follows, is closed --idle-grace seconds later (+3);
3. a request message larger than --max-request-bytes is answered RESOURCE_EXHAUSTED naming the
   limit (grpcio), and the next call on the same channel works; a call with 8 KB of metadata is
   answered, and one whose metadata is larger than the 16 KiB header list limit fails; a call whose HEADERS come but whose message never does is answered DEADLINE_EXCEEDED
   within --deadline seconds (+3), naming the limit (raw HTTP/2 with `h2`);
4. with --per-address connections open from this address, one more is closed at once (within 1 s,
   long before the handshake limit), and once one closes a new one is accepted again;
5. TLS 1.2 offering only CBC-SHA1 suites is refused; an AEAD suite is accepted.

    idle_connections.py --target 127.0.0.1:PORT --ca CERT.pem --handshake 3 --idle 1 --idle-grace 1 \
        --max-streams 7 --max-request-bytes 2048 --per-address 5 --deadline 2

Bounded: each socket waits at most its limit plus 3 s. Exits 0 when every check passes.
"""

import argparse
import pathlib
import select
import socket
import ssl
import struct
import sys
import time

from checks import Checks

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


def message_never_sent(host, port, ca, wait):
    """(grpc-status, grpc-message) the server answers a Health/Check whose HEADERS are sent but
    never its message; ("none", what happened) when nothing comes within `wait` seconds."""
    import h2.config
    import h2.connection
    import h2.events

    context = ssl.create_default_context(cafile=ca)
    context.check_hostname = False
    context.set_alpn_protocols(["h2"])
    with context.wrap_socket(socket.create_connection((host, port), timeout=5), server_hostname="localhost") as sock:
        connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        connection.initiate_connection()
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, [
            (":method", "POST"), (":scheme", "https"), (":path", "/grpc.health.v1.Health/Check"),
            (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers")])
        sock.sendall(connection.data_to_send())
        answer = {}
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                data = sock.recv(65536)
            except socket.timeout:
                break
            if not data:
                return "none", "connection closed"
            for event in connection.receive_data(data):
                if isinstance(event, (h2.events.ResponseReceived, h2.events.TrailersReceived)):
                    answer.update((name.decode(), value.decode()) for name, value in event.headers)
                if isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)) and "grpc-status" in answer:
                    return answer["grpc-status"], answer.get("grpc-message", "")
            sock.sendall(connection.data_to_send())
        return "none", f"no answer within {wait:.0f} s"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--handshake", type=float, required=True)
    parser.add_argument("--idle", type=float, required=True)
    parser.add_argument("--idle-grace", type=float, required=True)
    parser.add_argument("--max-streams", type=int, required=True)
    parser.add_argument("--max-request-bytes", type=int, required=True)
    parser.add_argument("--per-address", type=int, required=True)
    parser.add_argument("--deadline", type=float, required=True)
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    check = Checks()

    # The limit's slack: once in CI's full run (two cores shared by every suite) the close came
    # more than 3 s after the limit; a connection the limit misses stays open for good.
    started = time.monotonic()
    plain = socket.create_connection((host, int(port)), timeout=5)
    _, closed = read_until_closed(plain, started + args.handshake + 8)
    check(f"a TCP connection without a TLS handshake is closed within {args.handshake + 8:.0f} s",
          closed, f"still open after {time.monotonic() - started:.1f} s")
    plain.close()

    context = ssl.create_default_context(cafile=args.ca)
    context.check_hostname = False
    context.set_alpn_protocols(["h2"])
    raw = socket.create_connection((host, int(port)), timeout=5)
    tls = context.wrap_socket(raw, server_hostname="localhost")
    tls.sendall(PREFACE + struct.pack(">I", 0)[1:] + bytes([SETTINGS, 0]) + struct.pack(">I", 0))
    started = time.monotonic()
    # GOAWAY after the idle time; the server then pings, and this client never answers.
    received, closed = read_until_closed(tls, started + args.idle + args.idle_grace + 3)
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
    check(f"a client that never answers the ping after GOAWAY is closed within "
          f"{args.idle + args.idle_grace + 3:.0f} s", closed, "still open")
    tls.close()

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
    import grpc
    import spotter_client

    s = spotter_client.load_stubs()
    channel = spotter_client.channel(args.target, args.ca)
    big = s.auth.RequestPasswordResetRequest(email="x" * (args.max_request_bytes + 100) + "@example.com")
    try:
        spotter_client.call(channel, "spotter.v1.AuthService/RequestPasswordReset", big, timeout=30)
        code, details = "OK", ""
    except grpc.RpcError as error:
        code, details = error.code().name, error.details() or ""
    check(f"a request over {args.max_request_bytes} bytes is RESOURCE_EXHAUSTED naming the limit",
          code == "RESOURCE_EXHAUSTED" and f"larger than the limit of {args.max_request_bytes} bytes" in details,
          f"{code}: {details}")
    health = spotter_client.call(channel, "grpc.health.v1.Health/Check", s.health.HealthCheckRequest(), timeout=30)
    check("the next call on that channel is answered", health.status == s.health.HealthCheckResponse.SERVING)

    def check_health(metadata):
        try:
            spotter_client.call(channel, "grpc.health.v1.Health/Check", s.health.HealthCheckRequest(),
                                timeout=30, metadata=metadata)
            return "OK"
        except grpc.RpcError as error:
            return f"{error.code().name}: {error.details()}"

    # 8 KB first, on the connection that is up: the refusal of 20 KB ends its connection (GOAWAY with
    # PROTOCOL_ERROR), and once on a loaded machine the reconnection grpcio made for a call after
    # it was refused the same way, failing this check for the client's sake, not the server's.
    outcome = check_health([("x-padding", "a" * 8_000)])
    check("a call with 8 KB of metadata is answered", outcome == "OK", outcome)
    outcome = check_health([("x-padding", "a" * 20_000)])
    check("a call with 20 KB of metadata (over the 16 KiB header list limit) fails", outcome != "OK", outcome)
    channel.close()

    status, message = message_never_sent(host, int(port), args.ca, args.deadline + 3)
    check(f"a call whose message never comes is DEADLINE_EXCEEDED within {args.deadline + 3:.0f} s",
          status == "4" and f"limit of {args.deadline:.0f} s" in message, f"grpc-status {status}: {message}")
    time.sleep(0.5)

    # One more than the limit at once: whatever order the server accepts them in, exactly one is
    # closed at once (the others would only be closed by the handshake limit, seconds later).
    opened = [socket.create_connection((host, int(port)), timeout=5) for _ in range(args.per_address + 1)]
    closed = set()
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline and not closed:
        readable, _, _ = select.select(opened, [], [], max(0.01, deadline - time.monotonic()))
        for sock in readable:
            try:
                if not sock.recv(1):
                    closed.add(sock)
            except OSError:
                closed.add(sock)
    check(f"with {args.per_address} connections open from this address, one more is closed at once",
          len(closed) == 1, f"{len(closed)} closed within 1.5 s")
    held = [sock for sock in opened if sock not in closed]
    for sock in closed:
        sock.close()
    held.pop().close()
    time.sleep(0.3)
    again = socket.create_connection((host, int(port)), timeout=5)
    _, closed_again = read_until_closed(again, time.monotonic() + 0.5)
    check("once one of them closes, a new connection is accepted", not closed_again, "closed at once")
    for sock in held + [again]:
        sock.close()
    time.sleep(0.3)

    def handshake(ciphers):
        """The cipher a TLS 1.2 handshake offering only `ciphers` ends with, or the error."""
        tls12 = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        tls12.check_hostname = False
        tls12.verify_mode = ssl.CERT_NONE
        tls12.maximum_version = ssl.TLSVersion.TLSv1_2
        tls12.set_ciphers(ciphers)
        tls12.set_alpn_protocols(["h2"])
        try:
            with tls12.wrap_socket(socket.create_connection((host, int(port)), timeout=5)) as sock:
                return sock.cipher()[0]
        except (ssl.SSLError, OSError) as error:
            return f"refused: {error}"

    cbc = handshake("ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA")
    check("TLS 1.2 with only CBC-SHA1 cipher suites is refused", cbc.startswith("refused"), cbc)
    aead = handshake("ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256")
    check("TLS 1.2 with an AEAD suite is accepted", "GCM" in aead, aead)
    return check.finish("connections")


if __name__ == "__main__":
    sys.exit(main())
