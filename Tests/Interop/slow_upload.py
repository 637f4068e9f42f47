#!/usr/bin/env python3
"""Phones on a slow network against spotterd: --uploads LogWorkout calls whose HEADERS (with a valid
token) and first bytes of body arrive at once, and the rest of whose bodies arrives --hold seconds
later. Meanwhile, over another connection, the same lifter's plain reads must answer at once: an
upload still arriving must not hold one of the server's database connections (with more slow
uploads than the pool has connections, every other call would wait for them, then fail). Then the
bodies arrive and every upload must be logged.

    slow_upload.py --target 127.0.0.1:PORT --ca CERT.pem [--uploads 4] [--hold 3]

Uses the `h2` package for the uploads (to send a request's headers and body apart) and grpcio for
the reads. Prints each read's time and `slow upload: N of N checks passed`. Bounded by --hold.
"""

import argparse
import pathlib
import socket
import ssl
import struct
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import spotter_client  # noqa: E402
from checks import Checks  # noqa: E402

import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.events  # noqa: E402

SQUAT = "c0000000-0000-4000-8000-000000000001"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--uploads", type=int, default=4)
    parser.add_argument("--hold", type=float, default=3)
    args, s, ch = spotter_client.connect(parser)
    host, port = args.target.rsplit(":", 1)
    check = Checks()

    token = spotter_client.register_and_sign_in(ch, s, f"slow{int(time.time())}", "correct horse battery 7").access_token
    log = spotter_client.stub(ch, "spotter.v1.WorkoutService/LogWorkout")
    listing = spotter_client.stub(ch, "spotter.v1.WorkoutService/ListWorkouts")
    list_request = listing.request_type()
    list_request.page.page_size = 50
    listing(list_request, token)  # the reads' connection, open before the uploads begin

    started = int(time.time() * 1e6) - 3600 * 1_000_000
    bodies = []
    for index in range(args.uploads):
        request = log.request_type()
        request.workout.name = f"Upload {index}"
        request.workout.started_at.unix_micros = started + index * 1_000_000
        request.workout.duration_seconds = 3600
        exercise = request.workout.exercises.add(exercise_id=SQUAT)
        for _ in range(10):
            weight = exercise.sets.add(reps=5).weight
            weight.value = 100
            weight.unit = s.common.WEIGHT_UNIT_KG
        message = request.SerializeToString()
        bodies.append(struct.pack(">BI", 0, len(message)) + message)

    context = ssl.create_default_context(cafile=args.ca)
    context.check_hostname = False
    context.set_alpn_protocols(["h2"])
    sock = context.wrap_socket(socket.create_connection((host, int(port)), timeout=10), server_hostname="localhost")
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    headers = [(":method", "POST"), (":scheme", "https"), (":path", "/spotter.v1.WorkoutService/LogWorkout"),
               (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers"),
               ("authorization", f"Bearer {token}")]
    # Each call's headers and the first bytes of its body now (the server starts a call when its
    # body begins to arrive), the rest after --hold seconds.
    streams = []
    for body in bodies:
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, headers)
        conn.send_data(stream, body[:20])
        streams.append(stream)
    sock.sendall(conn.data_to_send())

    # While the bodies are held back: reads over the other connection, one after another.
    reads, failures = [], []
    hold_until = time.monotonic() + args.hold
    time.sleep(0.3)
    while time.monotonic() < hold_until - 0.2:
        begun = time.monotonic()
        try:
            listing(list_request, token, timeout=10)
            reads.append(time.monotonic() - begun)
        except Exception as error:  # noqa: BLE001: the answer is what is checked
            failures.append(repr(error)[:200])
        time.sleep(0.1)
    while time.monotonic() < hold_until:
        time.sleep(0.05)

    for stream, body in zip(streams, bodies):
        conn.send_data(stream, body[20:], end_stream=True)
    sock.sendall(conn.data_to_send())
    statuses = {}
    sock.settimeout(10)
    while len(statuses) < len(streams):
        data = sock.recv(65536)
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, (h2.events.TrailersReceived, h2.events.ResponseReceived)):
                fields = {key.decode() if isinstance(key, bytes) else key: value.decode() if isinstance(value, bytes)
                          else value for key, value in event.headers}
                if "grpc-status" in fields:
                    statuses[event.stream_id] = (fields["grpc-status"], fields.get("grpc-message", ""))
        sock.sendall(conn.data_to_send())
    sock.close()

    slowest = max(reads, default=None)
    print(f"{args.uploads} uploads held {args.hold:.1f} s; {len(reads)} reads meanwhile, "
          f"slowest {1000 * slowest:.1f} ms" if slowest is not None else "no read answered meanwhile")
    check("reads answered while the uploads' bodies were on their way", reads and not failures,
          f"{len(reads)} answered, failures: {failures[:2]}")
    # Far above a read's few milliseconds (a busy machine may be slow), far below a wait for the
    # uploads to finish.
    check("each read within half the hold", slowest is not None and slowest < args.hold / 2,
          f"slowest {slowest if slowest is None else round(1000 * slowest)} ms")
    check("every upload answered OK once its body arrived",
          len(statuses) == len(streams) and all(code == "0" for code, _ in statuses.values()), str(statuses))
    logged = listing(list_request, token).workouts
    check("every upload is in the lifter's history", len(logged) == args.uploads, f"{len(logged)} workouts")
    return check.finish("slow upload")


if __name__ == "__main__":
    sys.exit(main())
