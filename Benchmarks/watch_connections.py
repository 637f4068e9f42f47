#!/usr/bin/env python3
"""Holds many concurrent TLS/HTTP-2 connections to spotterd, each with an open
`spotter.v1.SyncService/Watch` stream, and measures what holding them costs the server and whether a
change still reaches a watching device quickly.

What it measures:
- how many connections complete TLS (ALPN h2) and get their Watch stream's first event, OPENED, and
  why the others failed: the connect or TLS error, the GOAWAY, RST_STREAM or the grpc-status and
  grpc-message that ended the stream;
- the time from starting a connection to its OPENED event (p50/p90/p99/max);
- with --bare, connections with no call at all (TLS and HTTP/2 up, the server's SETTINGS received,
  which stands for OPENED): what a connection costs the server without its stream;
- with --server-pid, spotterd's resident memory (VmRSS, VmHWM), open descriptors, threads and CPU
  time from /proc: before connecting, once every connection is up, after the probe, at its peak
  while they are held and after they have closed; with --metrics, spotterd's own count of open
  Watch streams (`spotter_sync_watch_streams`);
- the probe, while every connection is held: --probe-changes workouts logged (LogWorkout, one every
  --probe-interval seconds) for the lifter of the first token, and for each the time from sending it
  to the CHANGED event on a Watch stream of the parent's own (grpcio), and on every held connection
  of that lifter. p50/p90/max of both.

How: --processes worker processes each hold their share of --connections with asyncio, `ssl` and
`h2` (a grpcio channel per connection would cost far more memory and CPU than the server's side of
it). Connection i uses token i mod len(tokens) (so each lifter has about connections/tokens streams,
which must not exceed the server's SPOTTER_SYNC_WATCH_LIMIT; the probe adds one to the first lifter)
and source address i mod len(sources): the server limits connections per client address
(SPOTTER_GRPC_MAX_CONNECTIONS_PER_ADDRESS), and on Linux every address of 127.0.0.0/8 reaches
loopback without any set-up. The probe's connection comes from the default address.

Bounds: at most --connections connections, each attempted once (no reconnects), opened at --ramp
per second per process with at most --max-pending handshakes at once per process. Everything
stops --hold seconds after the start, whatever state it is in: the workers close their
connections and exit at that deadline by themselves, and the parent kills any worker still alive
15 s later. The open-files limit is raised to its hard limit; a process that cannot hold its share
stops before connecting. Access tokens live 15 minutes, so --hold is at most 840 s.

    # the tokens: registers (or signs in) N lifters, writes their access tokens as a JSON list
    watch_connections.py --target 127.0.0.1:PORT --ca CERT.pem --make-tokens 1000 --out tokens.json
    # the run
    watch_connections.py --target 127.0.0.1:PORT --ca CERT.pem --tokens tokens.json \\
        --connections 10000 --processes 4 --sources 127.0.1.1,127.0.1.2,... --ramp 125 --hold 120 \\
        --server-pid PID [--metrics http://127.0.0.1:PORT/metrics]

Exits 0 when every connection got OPENED, every probe change arrived within --max-latency seconds
on the probe stream and on each held stream of the probe's lifter, and (with --server-pid) the
server's RSS with every connection held stayed under --max-rss-mb; 1 otherwise. Benchmarks/
connections.sh starts a throwaway PostgreSQL and spotterd and runs all of this.
"""

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import pathlib
import queue
import resource
import socket
import ssl
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

WATCH_PATH = "/spotter.v1.SyncService/Watch"
# A gRPC message is a 1-byte compressed flag and a 4-byte big-endian length, then the message.
# WatchRequest has no fields, so the whole request is the prefix of an empty message.
EMPTY_MESSAGE = b"\x00\x00\x00\x00\x00"
# WatchEvent.Reason (proto/spotter/v1/sync.proto).
REASONS = {0: "UNSPECIFIED", 1: "OPENED", 2: "CHANGED", 3: "RECONNECTED"}
OPENED, CHANGED = 1, 2
GRPC_STATUS = ["OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
               "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
               "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"]
SQUAT = "c0000000-0000-4000-8000-000000000001"  # a built-in exercise
PASSWORD = "watch-benchmark-7Qp2"
TOKEN_LIFETIME = 15 * 60
KILL_GRACE = 15.0
END_MARGIN = 2.0  # the parent's last sample is taken this long before the workers close everything


# ---------------------------------------------------------------------------------------------
# Small helpers shared by the parent and the workers.

def grpc_status_name(value):
    try:
        return GRPC_STATUS[int(value)]
    except (ValueError, IndexError):
        return f"status {value}"


def describe_error(error):
    """A short, stable description of a connect/TLS failure, so that equal failures group."""
    if isinstance(error, asyncio.TimeoutError):
        return "timed out"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error.reason or error}"
    if isinstance(error, OSError) and error.errno:
        return f"{type(error).__name__}: {os.strerror(error.errno)}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def quantiles(values):
    """'p50 … p90 … p99 … max …' in milliseconds, or 'none'."""
    if not values:
        return "none"
    ordered = sorted(values)

    def at(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (f"p50 {at(0.50):.0f} ms, p90 {at(0.90):.0f} ms, p99 {at(0.99):.0f} ms, "
            f"max {ordered[-1] * 1000:.0f} ms (n={len(ordered)})")


def own_rss_kb():
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def raise_open_files(needed):
    """Raises this process's soft open-files limit to its hard limit; exits when that is below
    `needed` (raising the hard limit needs privileges: run under `ulimit -Hn` large enough)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft < needed:
        sys.exit(f"open-files limit {soft} is below the {needed} this process needs: raise the hard "
                 f"limit (ulimit -Hn) or use more --processes")
    return soft


# ---------------------------------------------------------------------------------------------
# Worker side: one asyncio loop holding this process's share of the connections.

class WatchConnection(asyncio.Protocol):
    """One TLS connection with one HTTP/2 stream calling Watch, read until it ends or we close it.

    The protocol object is created by `loop.create_connection`; `connection_made` runs after the
    TLS handshake, so from there on HTTP/2 can be spoken. h2 answers PINGs and SETTINGS by itself
    (its replies are in `data_to_send` after `receive_data`).
    """

    def __init__(self, worker, index, token_index, token, authority):
        import h2.config
        import h2.connection

        self.worker = worker
        self.index = index
        self.token_index = token_index
        self.token = token
        self.authority = authority
        self.h2 = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.transport = None
        self.stream_id = None
        self.buffer = bytearray()        # received message bytes not yet parsed
        self.started = time.monotonic()
        self.opened = False
        self.ended = False               # a failure is recorded, or we are closing: nothing more counts
        self.goaway = None               # the GOAWAY the server sent, for the reason of a later close
        self.response = {}               # grpc-status / grpc-message from headers or trailers

    # asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport):
        self.transport = transport
        ssl_object = transport.get_extra_info("ssl_object")
        protocol = ssl_object.selected_alpn_protocol() if ssl_object else None
        self.worker.on_connected(self)
        if protocol != "h2":
            self.fail(f"connect: ALPN selected {protocol!r}, not h2")
            return
        self.h2.initiate_connection()
        if self.worker.options["bare"]:
            self.flush()  # the preface and SETTINGS only; the server's SETTINGS make it ready
            return
        self.stream_id = self.h2.get_next_available_stream_id()
        self.h2.send_headers(self.stream_id, [
            (":method", "POST"), (":scheme", "https"), (":path", WATCH_PATH), (":authority", self.authority),
            ("content-type", "application/grpc"), ("te", "trailers"),
            ("authorization", f"Bearer {self.token}"), ("user-agent", "watch_connections.py"),
        ])
        # The whole request: the empty WatchRequest, then half-close, as a gRPC client does for a
        # server-streaming call.
        self.h2.send_data(self.stream_id, EMPTY_MESSAGE, end_stream=True)
        self.flush()

    def data_received(self, data):
        import h2.exceptions

        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError as error:
            self.fail(f"HTTP/2 protocol error: {type(error).__name__}: {error}")
            return
        for event in events:
            self.handle(event)
        self.flush()

    def connection_lost(self, exc):
        self.worker.on_lost(self)
        if not self.ended:
            reason = "connection closed by the server"
            if self.goaway:
                reason += f" after {self.goaway}"
            elif exc is not None:
                reason += f" ({describe_error(exc)})"
            self.record_failure(reason)

    # HTTP/2 events ---------------------------------------------------------------------------

    def handle(self, event):
        import h2.events

        if isinstance(event, h2.events.ResponseReceived):
            self.response.update(event.headers)
            status = self.response.get(":status")
            if status != "200":
                self.fail(f"HTTP :status {status}")
        elif isinstance(event, h2.events.DataReceived):
            # Give the flow-control window back, or the server stops sending after 64 KiB.
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            self.buffer += event.data
            self.parse_messages()
        elif isinstance(event, h2.events.TrailersReceived):
            self.response.update(event.headers)
        elif isinstance(event, h2.events.StreamEnded):
            # The server ended the Watch stream: with a status (trailers, or trailers-only when the
            # call was refused before it started), which is the failure's reason.
            status = self.response.get("grpc-status")
            message = urllib.parse.unquote(self.response.get("grpc-message", ""))
            if status is None:
                self.fail("stream ended without grpc-status")
            else:
                self.fail(f"stream ended {grpc_status_name(status)}" + (f": {message}" if message else ""))
        elif isinstance(event, h2.events.StreamReset):
            code = getattr(event.error_code, "name", event.error_code)
            self.fail(f"RST_STREAM {code}")
        elif isinstance(event, h2.events.RemoteSettingsChanged) and self.worker.options["bare"]:
            self.worker.on_ready(self)
        elif isinstance(event, h2.events.ConnectionTerminated):
            code = getattr(event.error_code, "name", event.error_code)
            data = (event.additional_data or b"").decode("utf-8", "replace")
            self.goaway = f"GOAWAY {code}" + (f" {data!r}" if data else "")
            self.worker.goaways[self.goaway] += 1

    def parse_messages(self):
        """Takes every complete length-prefixed message off the buffer. A WatchEvent is field 1
        (reason, a varint; tag byte 0x08), or empty for reason 0, so no protobuf is needed."""
        while len(self.buffer) >= 5:
            length = int.from_bytes(self.buffer[1:5], "big")
            if len(self.buffer) < 5 + length:
                return
            message = bytes(self.buffer[5:5 + length])
            del self.buffer[:5 + length]
            reason = 0
            if len(message) >= 2 and message[0] == 0x08:
                reason = message[1]  # every reason is below 128: a one-byte varint
            self.worker.on_event(self, reason)

    # Helpers ---------------------------------------------------------------------------------

    def flush(self):
        data = self.h2.data_to_send()
        if data and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def stage(self):
        return "after OPENED" if self.opened else "before OPENED"

    def record_failure(self, reason):
        if not self.ended:
            self.ended = True
            self.worker.failures[f"{self.stage()}: {reason}"] += 1

    def fail(self, reason):
        """Records why this connection is lost (once) and closes it: each is tried only once."""
        self.record_failure(reason)
        if self.transport is not None:
            self.transport.close()

    def close(self):
        """Our side ends it at the end of the run: GOAWAY, then close. Not a failure."""
        if self.ended or self.transport is None:
            return
        self.ended = True
        try:
            self.h2.close_connection()
            self.flush()
        except Exception:  # noqa: BLE001 — the connection may be half gone; we close it anyway
            pass
        self.transport.close()


class Worker:
    """This process's connections, their counters and the loop that opens and reports them."""

    def __init__(self, number, plan, options, reports, stop, deadline):
        self.number = number
        self.plan = plan              # [(global index, token index, token, source address)]
        self.options = options
        self.reports = reports        # multiprocessing.Queue to the parent
        self.stop = stop              # multiprocessing.Event: the parent's "stop now"
        self.deadline = deadline      # time.monotonic() at which everything stops
        self.attempted = 0
        self.connected = 0
        self.opened = 0
        self.active = 0               # TLS up and not lost yet
        self.pending = 0              # handshakes under way
        self.events = collections.Counter()
        self.failures = collections.Counter()
        self.goaways = collections.Counter()
        self.setup_times = []         # connect start → OPENED, seconds
        self.connections = set()
        self.ramp_done = False

    # Called by WatchConnection.
    def on_connected(self, connection):
        self.connected += 1
        self.active += 1
        self.connections.add(connection)

    def on_lost(self, connection):
        self.active -= 1
        self.connections.discard(connection)

    def on_event(self, connection, reason):
        self.events[REASONS.get(reason, f"reason {reason}")] += 1
        if reason == OPENED:
            self.on_ready(connection)
        elif reason == CHANGED:
            # CLOCK_MONOTONIC is one clock for every process of the machine: the parent compares
            # this with the time it sent the change.
            self.reports.put(("changed", self.number, connection.index, connection.token_index, time.monotonic()))

    def on_ready(self, connection):
        """The Watch stream's OPENED (or, with --bare, the server's first SETTINGS)."""
        if not connection.opened:
            connection.opened = True
            self.opened += 1
            self.setup_times.append(time.monotonic() - connection.started)

    def snapshot(self):
        return {
            "attempted": self.attempted, "connected": self.connected, "opened": self.opened,
            "active": self.active, "pending": self.pending, "planned": len(self.plan),
            "ramp_done": self.ramp_done, "events": dict(self.events), "failures": dict(self.failures),
            "goaways": dict(self.goaways), "rss_kb": own_rss_kb(),
        }

    def finished(self):
        return self.stop.is_set() or time.monotonic() >= self.deadline

    async def open_one(self, loop, context, index, token_index, token, source):
        host, port = self.options["host"], self.options["port"]
        started = time.monotonic()
        created = []

        def factory():
            connection = WatchConnection(self, index, token_index, token, self.options["authority"])
            connection.started = started
            created.append(connection)
            return connection

        timeout = self.options["connect_timeout"]
        try:
            await asyncio.wait_for(loop.create_connection(
                factory, host, port, ssl=context, server_hostname=self.options["server_name"],
                local_addr=(source, 0) if source else None, ssl_handshake_timeout=timeout), timeout)
        except (OSError, ssl.SSLError, asyncio.TimeoutError) as error:
            if not (created and created[0].ended):
                self.failures[f"connect: {describe_error(error)}"] += 1
        finally:
            self.pending -= 1

    async def run(self):
        loop = asyncio.get_running_loop()
        context = ssl.create_default_context(cafile=self.options["ca"])
        context.set_alpn_protocols(["h2"])
        interval = 1.0 / self.options["ramp"]
        limit = self.options["max_pending"]
        tasks = set()

        async def report():
            while not self.finished():
                self.reports.put(("progress", self.number, self.snapshot()))
                await asyncio.sleep(1.0)

        reporter = loop.create_task(report())
        next_start = time.monotonic()
        for index, token_index, token, source in self.plan:
            if self.finished():
                break
            while self.pending >= limit and not self.finished():
                await asyncio.sleep(0.01)
            delay = next_start - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            next_start = max(next_start + interval, time.monotonic() - 1.0)  # no bursts to catch up
            self.attempted += 1
            self.pending += 1
            task = loop.create_task(self.open_one(loop, context, index, token_index, token, source))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        while tasks and not self.finished():
            await asyncio.sleep(0.05)
        self.ramp_done = True
        self.reports.put(("progress", self.number, self.snapshot()))

        while not self.finished():
            await asyncio.sleep(0.2)

        # The end: close everything we hold (GOAWAY, then the socket) and give the closes a moment.
        held_at_end = sum(1 for connection in self.connections if connection.opened and not connection.ended)
        for task in list(tasks):
            task.cancel()
        for connection in list(self.connections):
            connection.close()
        await asyncio.sleep(1.0)
        reporter.cancel()
        final = self.snapshot()
        final["setup_times"] = self.setup_times
        final["held_at_end"] = held_at_end
        self.reports.put(("final", self.number, final))


def worker_main(number, plan, options, reports, stop, deadline):
    """Entry point of a worker process (started with the `spawn` method: nothing of the parent's
    grpcio is inherited)."""
    raise_open_files(len(plan) + 64)
    worker = Worker(number, plan, options, reports, stop, deadline)
    try:
        asyncio.run(worker.run())
    except KeyboardInterrupt:
        pass


# ---------------------------------------------------------------------------------------------
# Parent side: server samples, the probe, progress and the summary.

class ServerSampler:
    """spotterd's figures from /proc (and its metrics endpoint, when given)."""

    def __init__(self, pid, metrics_url):
        self.pid = pid
        self.metrics_url = metrics_url
        self.hz = os.sysconf("SC_CLK_TCK")
        self.peak_rss_kb = 0          # the highest VmRSS of the samples taken while `holding`
        self.holding = False

    def sample(self):
        if not self.pid:
            return None
        figures = {}
        try:
            for line in pathlib.Path(f"/proc/{self.pid}/status").read_text().splitlines():
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "Threads"):
                    figures[key] = int(value.split()[0])
            stat = pathlib.Path(f"/proc/{self.pid}/stat").read_text().rsplit(") ", 1)[1].split()
            figures["cpu"] = (int(stat[11]) + int(stat[12])) / self.hz
            figures["fds"] = len(os.listdir(f"/proc/{self.pid}/fd"))
        except (OSError, ValueError, IndexError):
            return None
        if self.holding:
            self.peak_rss_kb = max(self.peak_rss_kb, figures.get("VmRSS", 0))
        figures["watch_streams"] = self.watch_streams()
        return figures

    def watch_streams(self):
        if not self.metrics_url:
            return None
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=5) as response:
                for line in response.read().decode().splitlines():
                    if line.startswith("spotter_sync_watch_streams"):
                        return int(float(line.split()[-1]))
        except (OSError, ValueError):
            return None
        return None

    @staticmethod
    def format(figures):
        if figures is None:
            return "spotterd: no sample"
        text = (f"spotterd RSS {figures['VmRSS'] / 1024:.1f} MB (peak {figures['VmHWM'] / 1024:.1f} MB), "
                f"{figures['fds']} fds, {figures['Threads']} threads, CPU {figures['cpu']:.1f} s")
        if figures.get("watch_streams") is not None:
            text += f", {figures['watch_streams']} Watch streams"
        return text


class Progress:
    """The latest report of every worker, summed."""

    def __init__(self, workers):
        self.latest = {number: {} for number in range(workers)}
        self.finals = {}
        self.changed = []             # (time, worker, connection index, token index)

    def take(self, message):
        kind, number = message[0], message[1]
        if kind == "progress":
            self.latest[number] = message[2]
        elif kind == "final":
            self.latest[number] = message[2]
            self.finals[number] = message[2]
        elif kind == "changed":
            _, _, index, token_index, at = message
            self.changed.append((at, number, index, token_index))

    def total(self, key):
        return sum(report.get(key, 0) for report in self.latest.values())

    def counter(self, key):
        total = collections.Counter()
        for report in self.latest.values():
            total.update(report.get(key, {}))
        return total

    def all_started(self):
        return all(report.get("ramp_done") for report in self.latest.values())

    def line(self):
        failed = sum(self.counter("failures").values())
        return (f"attempted {self.total('attempted')}, connected {self.total('connected')}, "
                f"opened {self.total('opened')}, active {self.total('active')}, "
                f"handshaking {self.total('pending')}, failed {failed}")


class Probe(threading.Thread):
    """Logs --probe-changes workouts for one lifter and times each to the CHANGED event on a Watch
    stream of its own (grpcio). Runs in a thread so that the parent keeps draining its workers'
    reports meanwhile. `sent` holds each change's send time, for timing the held streams too."""

    def __init__(self, options, stubs, token):
        super().__init__(daemon=True)
        self.options = options
        self.stubs = stubs
        self.token = token
        self.sent = []                # time.monotonic() just before each LogWorkout
        self.latencies = []           # send → CHANGED on the probe stream, seconds
        self.call_times = []          # LogWorkout's own duration, seconds
        self.problems = []
        self.done = threading.Event()
        self.stop = threading.Event()  # set when the hold ends: no more changes

    def run(self):
        try:
            self.measure()
        except Exception as error:  # noqa: BLE001 — reported, never raised into the parent's loop
            self.problems.append(f"probe stopped: {type(error).__name__}: {error}")
        finally:
            self.done.set()

    def workout(self, number):
        """A LogWorkout request: an hour-long workout of one set of squats, an hour ago."""
        s = self.stubs
        started_at = s.common.Timestamp(unix_micros=int((time.time() - 3600) * 1_000_000))
        squats = s.workout.WorkoutExerciseInput(exercise_id=SQUAT, sets=[
            s.workout.SetInput(reps=5, weight=s.common.Weight(value=100, unit=s.common.WEIGHT_UNIT_KG))])
        return s.workout.LogWorkoutRequest(workout_id=str(uuid.uuid4()), workout=s.workout.WorkoutInput(
            name=f"probe {number + 1}", started_at=started_at, duration_seconds=3600, exercises=[squats]))

    def measure(self):
        import grpc
        import spotter_client

        o, s = self.options, self.stubs
        channel = spotter_client.channel(o.target, o.ca)
        events = queue.Queue()
        watch = spotter_client.call(channel, "spotter.v1.SyncService/Watch", s.sync.WatchRequest(), token=self.token)

        def read():
            try:
                for event in watch:
                    events.put((time.monotonic(), event.reason))
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.CANCELLED:
                    events.put((time.monotonic(), f"{error.code().name}: {error.details()}"))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            _, first = events.get(timeout=o.connect_timeout)
        except queue.Empty:
            first = "no event"
        if first != OPENED:
            self.problems.append(f"the probe's Watch stream did not open: {first}")
            watch.cancel()
            channel.close()
            return
        for number in range(o.probe_changes):
            if self.stop.is_set():
                self.problems.append(f"the hold ended after {number} of {o.probe_changes} changes")
                break
            request = self.workout(number)
            started = time.monotonic()
            self.sent.append(started)
            try:
                spotter_client.call(channel, "spotter.v1.WorkoutService/LogWorkout", request, token=self.token,
                                    timeout=30)
                self.call_times.append(time.monotonic() - started)
            except grpc.RpcError as error:
                self.problems.append(f"LogWorkout {number + 1}: {error.code().name}: {error.details()}")
            # The CHANGED for this change: the first one after it was sent (the stream keeps only
            # the newest event, so at most one waits; an older one cannot be left over, as each
            # change is awaited in turn).
            while True:
                try:
                    at, reason = events.get(timeout=max(0.0, started + o.max_latency * 5 - time.monotonic()))
                except queue.Empty:
                    self.problems.append(f"change {number + 1}: no CHANGED within {o.max_latency * 5:.0f} s")
                    break
                if reason == CHANGED and at >= started:
                    self.latencies.append(at - started)
                    break
                if not isinstance(reason, int):
                    self.problems.append(f"the probe's Watch stream ended: {reason}")
                    watch.cancel()
                    channel.close()
                    return
            self.stop.wait(max(0.0, started + o.probe_interval - time.monotonic()))
        watch.cancel()
        channel.close()


def make_tokens(o):
    """Registers (or, when the name is taken, signs in) --make-tokens lifters and writes their
    access tokens, in order, as a JSON list to --out."""
    import concurrent.futures

    import grpc
    import spotter_client

    s = spotter_client.load_stubs()
    channel = spotter_client.channel(o.target, o.ca)
    names = [f"{o.prefix}{number:04d}" for number in range(1, o.make_tokens + 1)]

    def one(name):
        # Bounded retries: RESOURCE_EXHAUSTED is the server's full scrypt queue, worth a retry.
        for attempt in range(10):
            try:
                try:
                    reply = spotter_client.register_and_sign_in(channel, s, name, PASSWORD)
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.ALREADY_EXISTS:
                        raise
                    reply = spotter_client.call(channel, "spotter.v1.AuthService/SignIn",
                                                s.auth.SignInRequest(login=name, password=PASSWORD), timeout=120)
                return reply.access_token
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or attempt == 9:
                    raise SystemExit(f"{name}: {error.code().name}: {error.details()}") from None
                time.sleep(0.2 * (attempt + 1))

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(o.threads) as pool:
        tokens = list(pool.map(one, names))
    channel.close()
    pathlib.Path(o.out).write_text(json.dumps(tokens))
    print(f"{len(tokens)} lifters ({names[0]} … {names[-1]}) signed in in {time.monotonic() - started:.1f} s; "
          f"access tokens in {o.out} (valid 15 minutes)")
    return 0


def plan_connections(o, tokens, sources):
    """The connections of each worker: connection i has token i mod T and source i mod S, and
    belongs to worker i mod P."""
    plans = [[] for _ in range(o.processes)]
    for index in range(o.connections):
        token_index = index % len(tokens)
        plans[index % o.processes].append((index, token_index, tokens[token_index], sources[index % len(sources)]))
    return plans


def run(o):
    tokens = json.loads(pathlib.Path(o.tokens).read_text())
    if not tokens:
        sys.exit("--tokens holds no tokens")
    sources = [source.strip() for source in (o.sources or "").split(",") if source.strip()] or [None]
    for source in sources:
        if source:
            socket.inet_aton(source)  # a typo fails here, not as 10,000 connect errors
    host, port = o.target.rsplit(":", 1)
    per_lifter = -(-o.connections // len(tokens))
    print(f"==> {o.connections} Watch connections to {o.target} from {o.processes} processes "
          f"({-(-o.connections // o.processes)} each), {len(tokens)} lifters (≤ {per_lifter} streams each, "
          f"+1 probe stream on the first), {len(sources)} source address(es) "
          f"(≤ {-(-o.connections // len(sources))} each), ramp {o.ramp}/s per process, hold {o.hold:.0f} s")

    raise_open_files(64)
    stubs = None
    if o.probe_changes:
        import spotter_client

        stubs = spotter_client.load_stubs()  # protoc at run time: done before anything is timed
    sampler = ServerSampler(o.server_pid, o.metrics)
    samples = {"before connecting": sampler.sample()}
    print(f"  before connecting: {ServerSampler.format(samples['before connecting'])}")

    started = time.monotonic()
    deadline = started + o.hold
    options = {
        "host": host.strip("[]"), "port": int(port), "ca": o.ca, "server_name": o.server_name,
        "authority": f"{o.server_name}:{port}", "ramp": o.ramp, "max_pending": o.max_pending,
        "connect_timeout": o.connect_timeout, "bare": o.bare,
    }
    context = multiprocessing.get_context("spawn")
    reports = context.Queue()
    stop = context.Event()
    workers = [context.Process(target=worker_main, args=(number, plan, options, reports, stop, deadline), daemon=True)
               for number, plan in enumerate(plan_connections(o, tokens, sources))]
    for worker in workers:
        worker.start()

    progress = Progress(len(workers))
    probe = None
    connected_at = None
    next_print = time.monotonic() + o.progress
    next_sample = time.monotonic()
    try:
        # Until just before the workers' deadline, so that the last sample still sees every
        # connection held.
        while time.monotonic() < deadline - END_MARGIN and len(progress.finals) < len(workers):
            try:
                progress.take(reports.get(timeout=0.2))
                while True:
                    progress.take(reports.get_nowait())
            except queue.Empty:
                pass
            now = time.monotonic()
            if now < next_sample:
                continue
            next_sample = now + 1.0
            if not any(worker.is_alive() for worker in workers):
                print("  every worker has exited", flush=True)
                break
            sample = sampler.sample()  # also keeps the peak RSS
            if now >= next_print:
                print(f"  {now - started:5.0f} s: {progress.line()} | {ServerSampler.format(sample)}", flush=True)
                next_print = now + o.progress
            if connected_at is None and progress.all_started() and progress.total("pending") == 0:
                connected_at = now
                print(f"  all {o.connections} attempted in {now - started:.1f} s: {progress.line()}", flush=True)
                time.sleep(o.settle)  # let the server settle before it is measured
                sampler.holding = True
                samples["all connected"] = sampler.sample()
                print(f"  with the connections held: {ServerSampler.format(samples['all connected'])}", flush=True)
                if o.probe_changes:
                    probe = Probe(o, stubs, tokens[0])
                    probe.start()
                    print(f"  probe: {o.probe_changes} changes, one every {o.probe_interval:g} s", flush=True)
            if probe is not None and probe.done.is_set() and "after the probe" not in samples:
                samples["after the probe"] = sampler.sample()
                print(f"  after the probe: {ServerSampler.format(samples['after the probe'])}", flush=True)
                if o.exit_after_probe:
                    break
        samples["shortly before the end of the hold"] = sampler.sample()
        sampler.holding = False
    except KeyboardInterrupt:
        print("  interrupted: stopping", flush=True)
    finally:
        if probe is not None:
            probe.stop.set()
        # The end, whatever happened: tell the workers, collect their final reports, and kill any
        # that has not exited KILL_GRACE seconds later.
        stop.set()
        give_up = time.monotonic() + KILL_GRACE
        while len(progress.finals) < len(workers) and time.monotonic() < give_up:
            try:
                progress.take(reports.get(timeout=0.2))
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers):
                    break
        for worker in workers:
            worker.join(timeout=max(0.0, give_up - time.monotonic()))
            if worker.is_alive():
                worker.kill()
                worker.join()
        for number, worker in enumerate(workers):
            if worker.exitcode != 0:
                print(f"  worker {number} exited with status {worker.exitcode}", flush=True)
    time.sleep(o.settle)
    samples["after closing"] = sampler.sample()
    return summary(o, tokens, progress, probe, samples, sampler, connected_at and connected_at - started)


def summary(o, tokens, progress, probe, samples, sampler, ramp_seconds):
    print("==> summary")
    unreported = len(progress.latest) - len(progress.finals)
    if unreported:
        print(f"  {unreported} worker(s) sent no final report (killed): their last progress report counts")
    opened = progress.total("opened")
    print(f"  connections: {o.connections} planned, {progress.total('attempted')} attempted, "
          f"{progress.total('connected')} TLS+h2 up, {opened} "
          f"{'got the server SETTINGS (--bare: no stream)' if o.bare else 'got OPENED'}"
          + (f", all attempted within {ramp_seconds:.1f} s" if ramp_seconds else ", not all attempted"))
    print(f"  Watch events on held streams: {dict(progress.counter('events')) or 'none'}")
    if len(progress.finals) == len(progress.latest):
        print(f"  Watch streams (OPENED, not ended) still open when the hold ended: "
              f"{sum(final.get('held_at_end', 0) for final in progress.finals.values())}")
    failures = progress.counter("failures")
    print(f"  failures: {sum(failures.values())}" + (":" if failures else ""))
    for reason, count in failures.most_common():
        print(f"    {count:6d}  {reason}")
    goaways = progress.counter("goaways")
    if goaways:
        print(f"  GOAWAY frames received: {dict(goaways)}")
    setup = [value for final in progress.finals.values() for value in final.get("setup_times", [])]
    print(f"  connect → OPENED: {quantiles(setup)}")
    client_rss = [report.get("rss_kb", 0) for report in progress.latest.values()]
    print(f"  client processes' RSS: {sum(client_rss) / 1024:.0f} MB in all "
          f"({', '.join(f'{kb / 1024:.0f}' for kb in client_rss)} MB)")
    for name, sample in samples.items():
        print(f"  {name}: {ServerSampler.format(sample)}")

    ok = opened == o.connections
    with_all = samples.get("all connected")
    if o.server_pid and with_all:
        before = samples.get("before connecting")
        if before and opened:
            per = (with_all["VmRSS"] - before["VmRSS"]) / opened
            print(f"  spotterd memory per held connection: {per:.1f} kB "
                  f"(RSS growth from before connecting to all connected, over {opened} connections)")
        rss_mb = max(with_all["VmRSS"], sampler.peak_rss_kb) / 1024
        within = rss_mb < o.max_rss_mb
        print(f"  spotterd RSS with the connections held, highest sample (1 s apart): {rss_mb:.1f} MB "
              f"({'under' if within else 'OVER'} {o.max_rss_mb} MB)")
        ok = ok and within

    if probe is not None:
        probe.join(timeout=5)
        for problem in probe.problems:
            print(f"  probe problem: {problem}")
        print(f"  probe LogWorkout call: {quantiles(probe.call_times)}")
        print(f"  probe change → CHANGED on the probe's own stream: {quantiles(probe.latencies)}")
        # The held streams of the probe's lifter: the j-th CHANGED on a stream answers the j-th
        # change (only the probe changes that lifter's data, and with changes a second apart none
        # coalesce; a missed one would make every later one look late, never early).
        arrivals = collections.defaultdict(list)
        for at, worker, index, token_index in progress.changed:
            if token_index == 0:
                arrivals[index].append(at)
        held = [at - sent for times in arrivals.values() for sent, at in zip(probe.sent, sorted(times))]
        watchers = 0 if o.bare else sum(1 for index in range(o.connections) if index % len(tokens) == 0)
        expected = watchers * len(probe.sent)
        print(f"  probe change → CHANGED on the {watchers} held streams of the probe's lifter: {quantiles(held)}; "
              f"{len(held)} of {expected} expected events arrived")
        worst = max(probe.latencies + held, default=None)
        within = (not probe.problems and len(probe.latencies) == o.probe_changes and len(held) == expected
                  and worst is not None and worst < o.max_latency)
        print(f"  every change reached every watching stream within {o.max_latency:g} s: {'yes' if within else 'NO'}")
        ok = ok and within
    elif o.probe_changes:
        print("  probe: not run (not every connection was attempted before the hold ended)")
        ok = False
    print(f"==> {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", required=True, help="host:port of spotterd")
    parser.add_argument("--ca", required=True, help="PEM certificate to verify the server with")
    parser.add_argument("--server-name", default="localhost", help="TLS server name (the dev certificate's)")
    tokens = parser.add_argument_group("making tokens")
    tokens.add_argument("--make-tokens", type=int, metavar="N", help="register/sign in N lifters and exit")
    tokens.add_argument("--out", help="where --make-tokens writes the tokens (JSON list)")
    tokens.add_argument("--prefix", default="watch_lifter_", help="username prefix of the lifters")
    tokens.add_argument("--threads", type=int, default=4, help="concurrent registrations")
    held = parser.add_argument_group("holding connections")
    held.add_argument("--tokens", help="JSON list of access tokens, spread round-robin over the connections")
    held.add_argument("--connections", type=int, default=200)
    held.add_argument("--processes", type=int, default=4)
    held.add_argument("--sources", default="", help="comma-separated local addresses to bind, round-robin")
    held.add_argument("--ramp", type=float, default=100, help="new connections per second per process")
    held.add_argument("--max-pending", type=int, default=64, help="handshakes under way at once per process")
    held.add_argument("--connect-timeout", type=float, default=20, help="TCP+TLS, seconds")
    held.add_argument("--hold", type=float, default=120, help="the run ends this many seconds after it starts")
    held.add_argument("--settle", type=float, default=3, help="seconds between the last connect and a sample")
    held.add_argument("--progress", type=float, default=5, help="seconds between progress lines")
    held.add_argument("--bare", action="store_true",
                      help="TLS and HTTP/2 only, no Watch stream: the cost of a connection alone")
    held.add_argument("--server-pid", type=int, help="spotterd's pid, to sample its memory from /proc")
    held.add_argument("--metrics", help="spotterd's metrics URL, to read its count of Watch streams")
    held.add_argument("--max-rss-mb", type=float, default=1024, help="the server's allowed RSS with every stream")
    probe = parser.add_argument_group("probe")
    probe.add_argument("--probe-changes", type=int, default=20, help="changes to time (0: no probe)")
    probe.add_argument("--probe-interval", type=float, default=1.0, help="seconds between changes")
    probe.add_argument("--max-latency", type=float, default=1.0, help="allowed change → CHANGED seconds")
    probe.add_argument("--exit-after-probe", action="store_true", help="end the run once the probe is done")
    o = parser.parse_args()

    if o.make_tokens is not None:
        if not o.out or not 1 <= o.make_tokens <= 100_000 or not 1 <= o.threads <= 64:
            parser.error("--make-tokens needs --out, 1 to 100,000 lifters and 1 to 64 --threads")
        return make_tokens(o)
    if not o.tokens:
        parser.error("--tokens (or --make-tokens) is required")
    # The bounds: a run never grows past these, whatever it is given.
    if not 1 <= o.connections <= 200_000:
        parser.error("--connections must be 1 to 200,000")
    if not 1 <= o.processes <= 64 or o.processes > o.connections:
        parser.error("--processes must be 1 to 64, and no more than --connections")
    if not 0 < o.ramp <= 5_000 or not 1 <= o.max_pending <= 1_000:
        parser.error("--ramp must be over 0 and at most 5,000 per second; --max-pending 1 to 1,000")
    if not 1 <= o.hold <= TOKEN_LIFETIME - 60:
        parser.error(f"--hold must be 1 to {TOKEN_LIFETIME - 60} s (access tokens live {TOKEN_LIFETIME // 60} minutes)")
    if not 0 <= o.probe_changes <= 1_000 or not 0 < o.probe_interval <= 60:
        parser.error("--probe-changes must be 0 to 1,000 and --probe-interval over 0 and at most 60 s")
    return run(o)


if __name__ == "__main__":
    sys.exit(main())
