#!/usr/bin/env python3
"""Measures call latency of a running spotterd over TLS with Python's grpcio (sequential calls,
one channel): GetProfile (token check + one tenant-scoped read) and SignIn (scrypt at the server's
configured cost). Bounded: --calls GetProfile calls and --sign-ins SignIn calls, then it stops.

    Benchmarks/rpc_latency.py --target 127.0.0.1:8443 --ca /var/lib/spotter/tls/dev-cert.pem
"""

import argparse
import pathlib
import statistics
import sys
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts"))
import spotter_client  # noqa: E402


def summary(name, samples):
    samples = sorted(samples)
    pick = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] * 1000  # noqa: E731
    print(
        f"{name}: n={len(samples)} mean={statistics.mean(samples) * 1000:.2f} ms "
        f"p50={pick(0.50):.2f} ms p95={pick(0.95):.2f} ms p99={pick(0.99):.2f} ms"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--sign-ins", type=int, default=10)
    args, s, channel = spotter_client.connect(parser)
    sign_in = spotter_client.stub(channel, "spotter.v1.AuthService/SignIn")
    get_profile = spotter_client.stub(channel, "spotter.v1.AccountService/GetProfile")
    name = "bench" + uuid.uuid4().hex[:8]
    spotter_client.register_and_sign_in(channel, s, name, "benchmark password")
    sign_ins = []
    for _ in range(args.sign_ins):
        start = time.perf_counter()
        tokens = sign_in(s.auth.SignInRequest(login=name, password="benchmark password"), timeout=60)
        sign_ins.append(time.perf_counter() - start)
    for _ in range(50):  # warm-up
        get_profile(s.account.GetProfileRequest(), tokens.access_token, timeout=10)
    profile = []
    for _ in range(args.calls):
        start = time.perf_counter()
        get_profile(s.account.GetProfileRequest(), tokens.access_token, timeout=10)
        profile.append(time.perf_counter() - start)
    summary("GetProfile", profile)
    summary("SignIn", sign_ins)


if __name__ == "__main__":
    main()
