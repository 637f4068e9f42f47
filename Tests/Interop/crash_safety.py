#!/usr/bin/env python3
"""Crash safety: a mixed write load against spotterd while spotterd and PostgreSQL are killed with
SIGKILL at random moments. After every restart, every write the server acknowledged must be there
exactly once, and a second sync device that pulled incrementally across the crashes must hold what a
fresh full pull holds.

    crash_safety.py --spotterd .build/release/spotterd --cycles 20 [--seed 1]

It makes its own PostgreSQL cluster (fsync on, the defaults) and data directory in a temporary
directory and removes them at the end. Each cycle starts whatever is down, runs the load for 0.5–3 s
(four writers: LogWorkout with the client's own workout_id, SyncService/Push of 1–3 new workouts
from device A, a coach's CommentOnWorkout on an acknowledged workout, and a lifter's AddComment),
then kills spotterd, PostgreSQL or both with SIGKILL while calls are in flight. A call that failed is
retried as a client would after the restart: LogWorkout with the same workout_id, Push with the
same mutation ids (comments have no client id, so a failed comment is only checked for duplicates).

Prints one line per cycle and at the end `crash safety: N cycles, A acknowledged, L lost,
D duplicated, devices converged: yes`; exits 1 when anything was lost or duplicated, a retry was
not answered as the same write, or the devices differ. Bounded by --cycles.
"""

import argparse
import collections
import glob
import os
import pathlib
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import spotter_client  # noqa: E402

import grpc  # noqa: E402

SQUAT = "c0000000-0000-4000-8000-000000000001"
PASSWORD = "crash safety password"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lasting_port():
    """A free port below the kernel's range of ephemeral ports, for a server restarted on it: a port
    from that range can be taken, while the server is down, as the local end of any outgoing
    connection on the machine (once, the clients retrying here took it, and the restarted spotterd
    failed with "Address already in use")."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_low = int(f.read().split()[0])
    pick = random.SystemRandom()
    for _ in range(500):
        port = pick.randint(min(10000, ephemeral_low - 1000), ephemeral_low - 1)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")


class Postgres:
    """A throwaway cluster on a unix socket, run as `postgres` when this script runs as root."""

    def __init__(self, root, pg_bin):
        self.dir = root / "pg"
        self.dir.mkdir()
        self.bin = pg_bin
        self.port = free_port()
        self.as_pg = []
        if os.geteuid() == 0:
            shutil.chown(root, "postgres", "postgres")
            shutil.chown(self.dir, "postgres", "postgres")
            self.as_pg = ["runuser", "-u", "postgres", "--"]
        subprocess.run(self.as_pg + [f"{pg_bin}/initdb", "-D", str(self.dir / "data"), "-U", "postgres",
                                     "--auth=trust", "-E", "UTF8", "--locale=C"], check=True,
                       stdout=subprocess.DEVNULL)
        self.url = f"host={self.dir} port={self.port} user=postgres dbname=postgres"

    def start(self):
        for attempt in range(30):
            # After SIGKILL the old backends need a moment to notice their postmaster is gone.
            done = subprocess.run(self.as_pg + [
                f"{self.bin}/pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "-t", "60",
                "-o", f"-c listen_addresses='' -c unix_socket_directories='{self.dir}' -c port={self.port}",
                "start"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if done.returncode == 0:
                return
            time.sleep(0.5)
        raise RuntimeError("PostgreSQL did not restart:\n" + (self.dir / "log").read_text()[-2000:])

    def pid(self):
        try:
            return int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        except (FileNotFoundError, ValueError, IndexError):
            return None

    def running(self):
        pid = self.pid()
        if pid is None:
            return False
        try:
            # A killed postmaster can linger as a zombie where nothing reaps orphans (containers).
            return pathlib.Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
        except (FileNotFoundError, IndexError):
            return False

    def kill(self):
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGKILL)

    def stop(self):
        subprocess.run(self.as_pg + [f"{self.bin}/pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w",
                                     "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Spotterd:
    def __init__(self, binary, root, database_url):
        self.binary = binary
        self.data = root / "spotter"
        self.data.mkdir()
        self.port = lasting_port()
        self.env = dict(os.environ, SPOTTER_DATABASE_URL=database_url, SPOTTER_DATA_DIR=str(self.data),
                        SPOTTER_GRPC_PORT=str(self.port), SPOTTER_SCRYPT_LOG_N="10", SPOTTER_LOG_LEVEL="warning",
                        SPOTTER_METRICS_ADDRESS="127.0.0.1:0", SPOTTER_PORTAL_PORT="0")
        self.process = None
        self.log = open(root / "spotterd.log", "ab")

    def start(self):
        self.process = subprocess.Popen([self.binary], env=self.env, stdout=self.log, stderr=self.log)

    def running(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        if self.running():
            self.process.kill()
            self.process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spotterd", required=True)
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pg-bin", default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    pg_bin = args.pg_bin or sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
    root = pathlib.Path(tempfile.mkdtemp(prefix="spotter-crash-"))
    os.chmod(root, 0o755)
    postgres = Postgres(root, pg_bin)
    spotterd = Spotterd(os.path.abspath(args.spotterd), root, postgres.url)
    s = spotter_client.load_stubs()
    try:
        return run(args, rng, seed, s, postgres, spotterd, root)
    finally:
        spotterd.kill()
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)


def run(args, rng, seed, s, postgres, spotterd, root):
    postgres.start()
    spotterd.start()
    ca = spotterd.data / "tls" / "dev-cert.pem"
    deadline = time.monotonic() + 120
    while not ca.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    channel = spotter_client.channel(f"127.0.0.1:{spotterd.port}", str(ca))

    def call(method, request, token=None, timeout=10):
        return spotter_client.call(channel, method, request, token=token, timeout=timeout)

    def wait_serving():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                reply = call("grpc.health.v1.Health/Check", s.health.HealthCheckRequest(), timeout=2)
                if reply.status == s.health.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
        raise RuntimeError("spotterd did not become healthy:\n" + (root / "spotterd.log").read_text()[-3000:])

    wait_serving()
    lifter = spotter_client.register_and_sign_in(channel, s, "crash" + uuid.uuid4().hex[:8], PASSWORD)
    coach_name = "coach" + uuid.uuid4().hex[:8]
    coach = spotter_client.register_and_sign_in(channel, s, coach_name, PASSWORD, kind=s.common.TENANT_KIND_COACH)
    invite = call("spotter.v1.CoachService/CreateInvite", s.coaching.CreateInviteRequest(), coach.access_token)
    call("spotter.v1.CoachingService/RedeemInvite",
         s.coaching.RedeemInviteRequest(code=invite.code, scopes=["history", "details"]), lifter.access_token)
    device_a = call("spotter.v1.SyncService/RegisterDevice", s.sync.RegisterDeviceRequest(label="A"),
                    lifter.access_token).device_id
    device_b_id = call("spotter.v1.SyncService/RegisterDevice", s.sync.RegisterDeviceRequest(label="B"),
                       lifter.access_token).device_id
    tokens = {"lifter": lifter, "coach": coach}

    def token(who):
        return tokens[who].access_token

    def refresh_tokens():
        # Access tokens live 15 minutes; a long run signs in again after each restart.
        for who, name in (("lifter", None), ("coach", coach_name)):
            login = name or lifter_name
            tokens[who] = call("spotter.v1.AuthService/SignIn", s.auth.SignInRequest(login=login, password=PASSWORD))

    lifter_name = call("spotter.v1.AccountService/GetProfile", s.account.GetProfileRequest(),
                       lifter.access_token).username

    def workout(name):
        started = int((time.time() - 3600) * 1_000_000)
        return s.workout.WorkoutInput(
            name=name, started_at=s.common.Timestamp(unix_micros=started), duration_seconds=3600,
            exercises=[s.workout.WorkoutExerciseInput(exercise_id=SQUAT, sets=[
                s.workout.SetInput(reps=5, weight=s.common.Weight(value=100, unit=s.common.WEIGHT_UNIT_KG))])])

    acked_workouts = {}      # workout id -> name (LogWorkout and Push)
    unsure_workouts = {}     # workout id -> the request of a failed LogWorkout, retried next cycle
    pending_push = []        # the mutations of a failed push, retried with the same ids next cycle
    acked_comments = set()   # bodies
    unsure_comments = set()
    mutation_id = [0]
    problems = []
    lock = threading.Lock()

    def log_workout(request, retry=False):
        """Logs a workout; a failed call is kept to be sent again, the very same request."""
        try:
            reply = call("spotter.v1.WorkoutService/LogWorkout", request, token("lifter"))
            if reply.workout_id != request.workout_id or reply.name != request.workout.name:
                problems.append(f"LogWorkout {request.workout_id} answered another workout")
            with lock:
                acked_workouts[request.workout_id] = request.workout.name
                unsure_workouts.pop(request.workout_id, None)
            return True
        except grpc.RpcError as error:
            if retry:
                problems.append(f"retrying LogWorkout {request.workout_id} on a healthy server: "
                                f"{error.code().name} {error.details()}")
            with lock:
                unsure_workouts[request.workout_id] = request
            return False

    def push(mutations):
        try:
            reply = call("spotter.v1.SyncService/Push",
                         s.sync.PushRequest(device_id=device_a, mutations=mutations), token("lifter"))
        except grpc.RpcError:
            return False
        for result, mutation in zip(reply.results, mutations):
            if result.status != s.sync.MutationResult.STATUS_APPLIED:
                problems.append(f"push of mutation {mutation.mutation_id}: {result.status} {result.message}")
            with lock:
                acked_workouts[mutation.object_id] = mutation.workout.name
        return True

    def comment(who):
        with lock:
            choices = list(acked_workouts)
        if not choices:
            return
        workout_id = rng.choice(choices)
        body = f"{who} {uuid.uuid4().hex[:12]}"
        try:
            if who == "coach":
                call("spotter.v1.CoachService/CommentOnWorkout", s.coaching.CommentOnWorkoutRequest(
                    client_id=str(tokens["lifter"].tenant_id), workout_id=workout_id, body=body), token("coach"))
            else:
                call("spotter.v1.CoachingService/AddComment",
                     s.coaching.AddCommentRequest(workout_id=workout_id, body=body), token("lifter"))
            with lock:
                acked_comments.add(body)
        except grpc.RpcError:
            with lock:
                unsure_comments.add(body)
            time.sleep(0.1)

    def writer(kind, stop):
        while not stop.is_set():
            if kind == "log":
                request = s.workout.LogWorkoutRequest(
                    workout_id=str(uuid.uuid4()), workout=workout("log " + uuid.uuid4().hex[:12]))
                if not log_workout(request):
                    time.sleep(0.1)  # the server is down: wait for the restart like a client would
            elif kind == "push":
                with lock:
                    if pending_push:
                        mutations = list(pending_push)
                    else:
                        mutations = []
                        for _ in range(rng.randint(1, 3)):
                            mutation_id[0] += 1
                            mutations.append(s.sync.Mutation(
                                mutation_id=mutation_id[0], kind=s.sync.SYNC_KIND_WORKOUT,
                                object_id=str(uuid.uuid4()), workout=workout("push " + uuid.uuid4().hex[:12])))
                        pending_push[:] = mutations
                if push(mutations):
                    with lock:
                        pending_push.clear()
                else:
                    time.sleep(0.1)
            else:
                comment(kind)

    def pull_all(cursor, device):
        """(the changes by (kind, object id), the new cursor) from `cursor` on."""
        objects = {}
        while True:
            page = call("spotter.v1.SyncService/Pull",
                        s.sync.PullRequest(cursor=cursor, page_size=500, device_id=device), token("lifter"))
            for change in page.changes:
                # Achievements are derived from the workouts by spotterd's reconciler, after their
                # commits and asynchronously, so one may land between the two pulls compared here;
                # their exactness is checked by ActivityTests, not by this convergence check.
                if change.kind == s.sync.SYNC_KIND_ACHIEVEMENT:
                    continue
                objects[(change.kind, change.object_id)] = change
            cursor = page.cursor
            if not page.more:
                return objects, cursor

    device_b = {"state": {}, "cursor": ""}

    def restart_and_retry():
        """Starts whatever is down, waits for health, and retries what failed, with the same ids."""
        if not postgres.running():
            postgres.start()
        if not spotterd.running():
            spotterd.start()
        wait_serving()
        refresh_tokens()
        with lock:
            retry = dict(unsure_workouts)
            retry_push = list(pending_push)
        for request in retry.values():
            log_workout(request, retry=True)
        if retry_push and push(retry_push):
            with lock:
                pending_push.clear()

    def check():
        """(acknowledged, lost, duplicated, converged): every acknowledged write, exactly once, as a
        fresh device sees it; and device B, which pulls incrementally across every crash so far,
        holding the same objects."""
        objects, _ = pull_all("", "")
        names = collections.Counter(change.workout.name for change in objects.values() if change.HasField("workout"))
        bodies = collections.Counter(change.comment.body for change in objects.values() if change.HasField("comment"))
        with lock:
            lost = [w for w, name in acked_workouts.items() if names[name] == 0]
            lost += [b for b in acked_comments if bodies[b] == 0]
            acknowledged = len(acked_workouts) + len(acked_comments)
        duplicated = [n for n, count in names.items() if count > 1] + [b for b, count in bodies.items() if count > 1]
        changes, device_b["cursor"] = pull_all(device_b["cursor"], device_b_id)
        for key, change in changes.items():
            if change.WhichOneof("object") is None:
                device_b["state"].pop(key, None)
            else:
                device_b["state"][key] = change
        fresh = {key for key, change in objects.items() if change.WhichOneof("object") is not None}
        converged = fresh == set(device_b["state"])
        if lost or duplicated or not converged:
            problems.append(f"lost {lost[:5]}, duplicated {duplicated[:5]}, device B holds "
                            f"{len(device_b['state'])} objects and a fresh pull {len(fresh)}")
        return acknowledged, lost, duplicated, converged

    totals = collections.Counter()
    for cycle in range(1, args.cycles + 1):
        restart_and_retry()
        acknowledged, lost, duplicated, _ = check()

        # Load, then SIGKILL while calls are in flight.
        stop = threading.Event()
        writers = [threading.Thread(target=writer, args=(kind, stop))
                   for kind in ("log", "log", "push", "coach", "lifter")]
        for thread in writers:
            thread.start()
        time.sleep(rng.uniform(0.5, 3.0))
        victim = rng.choice(["spotterd", "postgres", "both"])
        if victim in ("spotterd", "both"):
            spotterd.kill()
        if victim in ("postgres", "both"):
            postgres.kill()
        time.sleep(0.3)
        stop.set()
        for thread in writers:
            thread.join()
        totals[victim] += 1
        print(f"cycle {cycle}: {acknowledged} acknowledged writes checked ({len(lost)} lost, "
              f"{len(duplicated)} duplicated); killed {victim}", flush=True)

    # After the last kill: restart, retry, check once more.
    restart_and_retry()
    acknowledged, lost, duplicated, converged = check()
    print(f"kills: spotterd {totals['spotterd']}, PostgreSQL {totals['postgres']}, both {totals['both']}; "
          f"unacknowledged comments {len(unsure_comments)} (checked for duplicates only); seed {seed}")
    print(f"crash safety: {args.cycles} cycles, {acknowledged} acknowledged ({len(acked_workouts)} workouts, "
          f"{len(acked_comments)} comments), {len(lost)} lost, {len(duplicated)} duplicated, "
          f"devices converged: {'yes' if converged else 'no'}")
    for problem in problems[:20]:
        print("FAIL " + problem)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
