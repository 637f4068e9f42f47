#!/usr/bin/env python3
"""Checks spotterd's Prometheus endpoint from outside: it parses with prometheus-client's text
parser, has the documented metrics, and moves when calls are made.

    metrics_check.py --target 127.0.0.1:GRPC_PORT --ca CERT.pem --metrics 127.0.0.1:METRICS_PORT \
        [--portal https://127.0.0.1:PORTAL_PORT]

Prints one line per check and `metrics: N of N checks passed`; exits 0 when all pass.
"""

import argparse
import json
import pathlib
import re
import ssl
import sys
import urllib.parse
import urllib.error
import urllib.request

from checks import Checks

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import grpc  # noqa: E402
import spotter_client  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402


def scrape(address):
    """{(sample name, sorted label pairs): value} of every sample the endpoint serves."""
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
        content_type = response.headers.get("Content-Type", "")
        text = response.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return content_type, samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--metrics", required=True)
    parser.add_argument("--portal", help="also sign in wrongly on the portal, which counts with the API")
    args = parser.parse_args()
    check = Checks()

    content_type, before = scrape(args.metrics)
    check("GET /metrics is Prometheus text format 0.0.4", content_type.startswith("text/plain; version=0.0.4"),
          content_type)

    s = spotter_client.load_stubs()
    channel = spotter_client.channel(args.target, args.ca)
    health = "grpc.health.v1.Health/Check"
    for _ in range(3):
        spotter_client.call(channel, health, s.health.HealthCheckRequest(), timeout=30)
    try:
        spotter_client.call(channel, "spotter.v1.AuthService/SignIn",
                            s.auth.SignInRequest(login="nobody", password="not a password"), timeout=30)
    except grpc.RpcError:
        pass
    channel.close()
    if args.portal:
        form = urllib.parse.urlencode({"login": "nobody", "password": "not a password"}).encode()
        try:
            urllib.request.urlopen(f"{args.portal}/sign-in", data=form, timeout=30,
                                   context=ssl.create_default_context(cafile=args.ca))
        except urllib.error.HTTPError as error:
            check("a wrong portal sign-in is 401", error.code == 401, error.code)
    _, after = scrape(args.metrics)

    calls = value(after, "spotter_rpc_calls_total", method=health, code="ok") - \
        value(before, "spotter_rpc_calls_total", method=health, code="ok")
    check("three Health/Check calls add 3 to spotter_rpc_calls_total{code=ok}", calls == 3, calls)
    timed = value(after, "spotter_rpc_duration_seconds_count", method=health) - \
        value(before, "spotter_rpc_duration_seconds_count", method=health)
    check("and 3 to the spotter_rpc_duration_seconds histogram", timed == 3, timed)
    failed = value(after, "spotter_sign_in_attempts_total", result="failed") - \
        value(before, "spotter_sign_in_attempts_total", result="failed")
    wrong = 2 if args.portal else 1
    check(f"{wrong} wrong sign-ins (the API's, the portal's) add {wrong} to "
          "spotter_sign_in_attempts_total{result=failed}", failed == wrong, failed)
    check("spotter_rpc_in_flight is back to 0", value(after, "spotter_rpc_in_flight") == 0,
          value(after, "spotter_rpc_in_flight"))
    check("the pool's size is reported", value(after, "spotter_db_pool_max_connections", pool="app") > 0)
    check("database statements are timed", value(after, "spotter_db_statement_seconds_count", pool="app") > 0)
    check("checkouts are timed", value(after, "spotter_db_checkout_seconds_count", pool="app") > 0)
    present = {name for name, _ in after}
    for name in ["spotter_db_pool_connections", "spotter_db_pool_waiting", "spotter_sync_watch_streams",
                 "spotter_outbox_messages"]:
        check(f"{name} is reported", name in present)
    dashboard = pathlib.Path(__file__).resolve().parents[2] / "deploy" / "grafana-dashboard.json"
    queried = set(re.findall(r"spotter_[a-z_]+", json.dumps(json.loads(dashboard.read_text()))))
    missing = sorted(name for name in queried if name not in present)
    check(f"every metric the Grafana dashboard queries ({len(queried)}) is served", not missing, missing)
    check("resident memory is reported", value(after, "spotter_process_resident_memory_bytes") > 1_000_000)
    check("open files are reported", value(after, "spotter_process_open_fds") > 3)
    try:
        urllib.request.urlopen(f"http://{args.metrics}/other", timeout=10)
        status = 200
    except urllib.error.HTTPError as error:
        status = error.code
    check("any other path is 404", status == 404, status)
    return check.finish("metrics")


if __name__ == "__main__":
    sys.exit(main())
