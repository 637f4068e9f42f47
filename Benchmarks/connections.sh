#!/usr/bin/env bash
# Many concurrent Watch streams held by one spotterd: starts a throwaway PostgreSQL cluster and
# spotterd on 127.0.0.1, prints spotterd's idle RSS after start-up, signs in the lifters, and runs
# Benchmarks/watch_connections.py: CONNECTIONS TLS/HTTP-2 connections, each with an open
# SyncService/Watch stream, held for HOLD seconds; spotterd's memory with them held; and, while they
# are, the time from a change (LogWorkout) to its CHANGED event on a watching stream.
#
#   Benchmarks/connections.sh                               # 10,000 connections, 4 processes, 120 s
#   CONNECTIONS=200 HOLD=60 Benchmarks/connections.sh       # a quick one
#   BIN=.build/debug HOLD=240 Benchmarks/connections.sh     # the debug build (about 110 connections/s:
#                                                           # 10,000 take 85 s to open)
#
# Settings (environment): BIN (the directory with spotterd; default the release build under
# .build-release if there is one, else .build/debug — nothing is built here), CONNECTIONS (10000),
# PROCESSES (client processes, 4), HOLD (seconds the run lasts, in all, 120), RAMP (new connections
# per second, all processes together, 400), WATCHERS_PER_LIFTER (Watch streams per lifter, 10: each
# lifter's devices; CONNECTIONS / WATCHERS_PER_LIFTER lifters are signed in), PER_SOURCE
# (connections per client address, 200; the addresses are 127.0.1.1, 127.0.1.2, …),
# PROBE_CHANGES (20), IDLE_WAIT (seconds after the port answers before the idle RSS, 3), BARE=1
# (connections without a Watch stream: what a connection alone costs), LOG_LEVEL (spotterd's,
# warning). The rest of the environment reaches spotterd too (MALLOC_ARENA_MAX=2, say).
#
# spotterd runs with the limits this needs and otherwise its defaults:
# SPOTTER_GRPC_MAX_CONNECTIONS = CONNECTIONS + 100, SPOTTER_SYNC_WATCH_LIMIT = WATCHERS_PER_LIFTER + 1
# (the probe's own stream is one more on the first lifter); SPOTTER_GRPC_MAX_CONNECTIONS_PER_ADDRESS
# stays at its default of 256, as the connections come from several addresses.
#
# Bounded: CONNECTIONS connections, each tried once, at RAMP per second; the generator stops by
# itself HOLD seconds after it starts (its workers too, and it kills any left 15 s later), and this
# script stops spotterd and the cluster on exit, whatever happens.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

connections=${CONNECTIONS:-10000}
processes=${PROCESSES:-4}
hold=${HOLD:-120}
ramp=${RAMP:-400}
per_lifter=${WATCHERS_PER_LIFTER:-10}
per_source=${PER_SOURCE:-200}
probe_changes=${PROBE_CHANGES:-20}
idle_wait=${IDLE_WAIT:-3}
port=${PG_PORT:-55460}
grpc_port=${GRPC_PORT:-50561}
metrics_port=$((grpc_port + 1))
if [ -z "${BIN:-}" ]; then
    if [ -x "$root/.build-release/release/spotterd" ]; then BIN=$root/.build-release/release; else BIN=$root/.build/debug; fi
fi
[ -x "$BIN/spotterd" ] || { echo "no spotterd in $BIN (build it first, or set BIN)" >&2; exit 1; }
case "$BIN" in *debug*) build="a DEBUG build: slower and larger than release" ;; *) build="release" ;; esac

lifters=$(( (connections + per_lifter - 1) / per_lifter ))
watch_limit=$((per_lifter + 1))
[ "$watch_limit" -le 1000 ] || { echo "WATCHERS_PER_LIFTER must be at most 999 (SPOTTER_SYNC_WATCH_LIMIT ≤ 1000)" >&2; exit 1; }
sources=$(( (connections + per_source - 1) / per_source ))
[ "$per_source" -le 250 ] || { echo "PER_SOURCE must stay under the server's 256 per address" >&2; exit 1; }
source_list=$(for i in $(seq 0 $((sources - 1))); do echo "127.0.$((1 + i / 250)).$((1 + i % 250))"; done | paste -sd,)

# Open files: spotterd needs one descriptor per connection (and its pool's, logs, …); each client
# process needs one per connection it holds. Raise the soft limit as far as the hard one allows.
needed=$((connections + 512))
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$needed" ]; then
    echo "the open-files limit is $(ulimit -n) (hard limit $(ulimit -Hn)); spotterd needs $needed for" \
         "$connections connections: raise the hard limit (ulimit -Hn as root, or LimitNOFILE) first" >&2
    exit 1
fi

install_system_packages
python_venv "$root/.venv-tests" Tests/requirements.txt   # grpcio and h2, as the test suite's
python=$root/.venv-tests/bin/python

bench_cluster spotter-connections $port 200
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    if [ -s "$cluster/spotterd.log" ]; then
        cp "$cluster/spotterd.log" /tmp/spotter-connections-spotterd.log
        echo "==> spotterd's log: /tmp/spotter-connections-spotterd.log"
    fi
    stop_bench
}
trap cleanup EXIT
echo "==> PostgreSQL in $cluster"

echo "==> spotterd ($BIN/spotterd, $build) on 127.0.0.1:$grpc_port, open-files limit $(ulimit -n)"
# LOG_LEVEL=notice also logs refused connections ("connection refused: too many open"), but with
# them the verification e-mail of every lifter signed in (no SMTP is configured).
start_bench_spotterd "$BIN/spotterd" "$port" "$grpc_port" SPOTTER_LOG_LEVEL="${LOG_LEVEL:-warning}" \
    SPOTTER_METRICS_ADDRESS="127.0.0.1:$metrics_port" SPOTTER_GRPC_MAX_CONNECTIONS=$((connections + 100)) \
    SPOTTER_SYNC_WATCH_LIMIT="$watch_limit"
sleep "$idle_wait"
idle_kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$server_pid/status")
awk -v kb="$idle_kb" -v wait="$idle_wait" 'BEGIN {
    printf "==> idle RSS after start-up (%s s after the port answered): %.1f MB (%s 60 MB)\n",
           wait, kb / 1024, kb < 60 * 1024 ? "under" : "OVER" }'
certificate="$data/tls/dev-cert.pem"
generator=("$python" Benchmarks/watch_connections.py --target "127.0.0.1:$grpc_port" --ca "$certificate")

echo "==> signing in $lifters lifters"
"${generator[@]}" --make-tokens "$lifters" --out "$cluster/tokens.json"

status=0
"${generator[@]}" --tokens "$cluster/tokens.json" --connections "$connections" --processes "$processes" \
    --sources "$source_list" --ramp "$(awk -v r="$ramp" -v p="$processes" 'BEGIN { print r / p }')" \
    --hold "$hold" --server-pid "$server_pid" --metrics "http://127.0.0.1:$metrics_port/metrics" \
    --probe-changes "$probe_changes" ${BARE:+--bare} || status=$?

echo "==> spotterd: $(grep -E '^(VmRSS|VmHWM)' "/proc/$server_pid/status" | tr -s ' \t' ' ' | paste -sd ' ') after the run"
echo "==> spotterd log lines by level:"
grep -oE '^[^ ]+ (trace|debug|info|notice|warning|error|critical) ' "$cluster/spotterd.log" \
    | awk '{ print $2 }' | sort | uniq -c | sed 's/^/  /' || echo "  none"
# The distinct warnings and errors, without their time stamps (first 10).
grep -E '^[^ ]+ (warning|error|critical) ' "$cluster/spotterd.log" | cut -d' ' -f2- | sort | uniq -c \
    | sort -rn | head -10 | sed 's/^/  /' || true
echo "==> idle RSS $(awk -v kb="$idle_kb" 'BEGIN { printf "%.1f MB", kb / 1024 }'); spotterd was $build"
[ "$idle_kb" -lt $((60 * 1024)) ] || status=1
exit "$status"
