#!/usr/bin/env python3
"""What sign-in abuse costs a running spotterd, and what the real owner of an account sees meanwhile.
Bounded: every phase stops after its count or --seconds.

    Benchmarks/sign_in_abuse.py --target 127.0.0.1:8443 --ca /var/lib/spotter/tls/dev-cert.pem

1. parallel guessing: 40 wrong passwords for one account sent at once; how many were checked
   (UNAUTHENTICATED) and how many refused before any hash (RESOURCE_EXHAUSTED).
2. flood: --threads threads register new accounts (each costs a password hash) for --seconds, while
   the owner of an existing account signs in every second from a known device; the owner's latency
   and answers.
3. taken address: --threads threads register an already taken e-mail for --seconds: how many got
   answered, how fast, and how many of them the server hashed a password for (none should).
4. lockout: --threads threads guess one account's password for --seconds while its owner signs in
   every second from a known device (sending the device token of an earlier sign-in) and from a new
   one; how many guesses the server checked per second, and what the owner got.
5. spray: --threads threads guess the passwords of 30 accounts in turn for --seconds; how many
   guesses the server checked per second across all of them.

All traffic comes from one address, and phases 1–4 each count failures against it: run
`--phases lockout` and `--phases spray` each against a freshly started server (the default,
`guess,flood,taken`, is the first three).
"""

import argparse
import collections
import pathlib
import statistics
import sys
import threading
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts"))
import spotter_client  # noqa: E402

import grpc  # noqa: E402


def percentile(samples, q):
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(q * len(samples)))] if samples else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--phases", default="guess,flood,taken",
                        help="comma-separated, in order: guess, flood, taken, lockout, spray")
    args, s, channel = spotter_client.connect(parser)
    phases = args.phases.split(",")
    register = spotter_client.stub(channel, "spotter.v1.AuthService/Register")
    sign_in = spotter_client.stub(channel, "spotter.v1.AuthService/SignIn")

    def new_account(prefix):
        name = prefix + uuid.uuid4().hex[:10]
        register(s.auth.RegisterRequest(email=f"{name}@example.com", username=name, password="abuse password 1",
                                        kind=s.common.TENANT_KIND_LIFTER), timeout=120)
        return name

    details = collections.Counter()

    def outcome(call):
        started = time.perf_counter()
        try:
            call()
            code = "OK"
        except grpc.RpcError as error:
            code = error.code().name
            details[code + ": " + (error.details() or "")] += 1
        return code, time.perf_counter() - started

    def guessing(threads, seconds, logins):
        """Wrong passwords from `threads` threads for `seconds`, round-robin over `logins`."""
        stop = time.monotonic() + seconds
        answers = []

        def guesser(offset):
            index = offset
            while time.monotonic() < stop:
                login = logins[index % len(logins)]
                index += 1
                answers.append(outcome(lambda: sign_in(
                    s.auth.SignInRequest(login=login, password=f"guess {index}"), timeout=120)))

        workers = [threading.Thread(target=guesser, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        return workers, answers

    def report_guessing(what, answers):
        codes = collections.Counter(code for code, _ in answers)
        checked = codes.get("UNAUTHENTICATED", 0)
        print(f"{what} for {args.seconds:.0f} s -> {dict(codes)}: {checked} checked, "
              f"{checked / args.seconds:.2f} guesses/s")
        print(f"  answers by message: {dict(details)}")

    if "guess" in phases:
        parallel_guessing(new_account, sign_in, outcome, s)
    owner = None
    if "flood" in phases:
        owner = flood_phase(args, new_account, sign_in, outcome, details, s)
    if "taken" in phases:
        taken_phase(args, owner or new_account("owner"), register, outcome, s)

    if "lockout" in phases:
        owner = new_account("owner")
        first = sign_in(s.auth.SignInRequest(login=owner, password="abuse password 1", device_label="phone"),
                        timeout=120)
        details.clear()
        workers, answers = guessing(args.threads, args.seconds, [owner])
        known, unknown = [], []
        stop = time.monotonic() + args.seconds
        while time.monotonic() < stop:
            known.append(outcome(lambda: sign_in(s.auth.SignInRequest(
                login=owner, password="abuse password 1", device_token=first.device_token), timeout=120)))
            unknown.append(outcome(lambda: sign_in(s.auth.SignInRequest(
                login=owner, password="abuse password 1"), timeout=120)))
            time.sleep(1)
        for worker in workers:
            worker.join()
        report_guessing(f"lockout: {args.threads} threads guessing one account's password", answers)
        ok = [t for code, t in known if code == "OK"]
        print(f"  owner from the known device: {dict(collections.Counter(c for c, _ in known))}, OK in p50 "
              f"{percentile(ok, 0.5) * 1000:.0f} ms, max {max(ok, default=float('nan')) * 1000:.0f} ms")
        print(f"  owner from a new device: {dict(collections.Counter(c for c, _ in unknown))}")

    if "spray" in phases:
        accounts = [new_account("spray") for _ in range(30)]
        details.clear()
        workers, answers = guessing(args.threads, args.seconds, accounts)
        for worker in workers:
            worker.join()
        report_guessing(f"spray: {args.threads} threads guessing 30 accounts' passwords in turn", answers)
    return 0


def parallel_guessing(new_account, sign_in, outcome, s):
    victim = new_account("victim")
    results = []
    threads = [threading.Thread(target=lambda i=i: results.append(outcome(lambda: sign_in(
        s.auth.SignInRequest(login=victim, password=f"guess {i}"), timeout=120)))) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = collections.Counter(code for code, _ in results)
    print(f"parallel guessing: 40 wrong passwords at once -> {dict(counts)}")


def flood_phase(args, new_account, sign_in, outcome, details, s):
    owner = new_account("owner")
    # The owner's app keeps the device token of its first sign-in and sends it every time.
    device = sign_in(s.auth.SignInRequest(login=owner, password="abuse password 1"), timeout=120).device_token
    stop = time.monotonic() + args.seconds
    flood = []

    def flooder():
        while time.monotonic() < stop:
            flood.append(outcome(lambda: new_account("flood")))

    workers = [threading.Thread(target=flooder) for _ in range(args.threads)]
    for worker in workers:
        worker.start()
    owner_results = []
    while time.monotonic() < stop:
        owner_results.append(outcome(lambda: sign_in(
            s.auth.SignInRequest(login=owner, password="abuse password 1", device_token=device), timeout=120)))
        time.sleep(1)
    for worker in workers:
        worker.join()
    flood_details = dict(details)  # the flood's refusals and the owner's, by message
    details.clear()
    after = outcome(lambda: sign_in(
        s.auth.SignInRequest(login=owner, password="abuse password 1", device_token=device), timeout=120))
    flood_counts = collections.Counter(code for code, _ in flood)
    print(f"  answers during the flood: {dict(flood_details)}")
    ok = [t for code, t in owner_results if code == "OK"]
    print(f"flood: {args.threads} threads registering new accounts for {args.seconds:.0f} s -> {dict(flood_counts)}; "
          f"refusals answered in p50 {percentile([t for c, t in flood if c != 'OK'], 0.5) * 1000:.1f} ms")
    print(f"  owner's sign-ins meanwhile: {dict(collections.Counter(c for c, _ in owner_results))}, "
          f"OK in p50 {percentile(ok, 0.5) * 1000:.0f} ms, max {max(ok, default=float('nan')) * 1000:.0f} ms; "
          f"first after the flood: {after[0]} in {after[1] * 1000:.0f} ms")
    return owner


def taken_phase(args, owner, register, outcome, s):
    stop = time.monotonic() + args.seconds
    taken = []

    def taker():
        while time.monotonic() < stop:
            taken.append(outcome(lambda: register(s.auth.RegisterRequest(
                email=f"{owner}@example.com", username="x" + uuid.uuid4().hex[:10], password="abuse password 1",
                kind=s.common.TENANT_KIND_LIFTER), timeout=120)))

    workers = [threading.Thread(target=taker) for _ in range(args.threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    taken_counts = collections.Counter(code for code, _ in taken)
    print(f"taken e-mail: {args.threads} threads for {args.seconds:.0f} s -> {dict(taken_counts)}, "
          f"answered in p50 {percentile([t for _, t in taken], 0.5) * 1000:.1f} ms, "
          f"p99 {percentile([t for _, t in taken], 0.99) * 1000:.1f} ms "
          f"(mean {statistics.mean(t for _, t in taken) * 1000:.1f} ms)")


if __name__ == "__main__":
    sys.exit(main())
