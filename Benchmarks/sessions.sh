#!/usr/bin/env bash
# Guided sessions and runs (Benchmarks/README.md "Guided sessions and runs"), on a throwaway
# PostgreSQL cluster with default durability. Measures
#   1. RecordSet in an open guided session: lifters record set after set (a session's calls wait
#      on its row lock; a set is judged a record against the lifter's history);
#   2. LogRun of a 30-minute run: 5,100 footsteps with positions and headings, validated, analysed
#      (cadence, pauses, swerves, weaving), stored beside its workout;
# each with the CPU per call of spotterd and PostgreSQL (and for LogRun, how many database
# connections sat idle in a transaction meanwhile). Builds spotterd and spotter-load in release
# mode (or takes them from BIN). Bounded: SESSION_CALLS and RUN_CALLS calls.
#
#   Benchmarks/sessions.sh          # SESSION_CALLS=2000 RUN_CALLS=300 CONCURRENCY=8 TENANTS=8
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

session_calls=${SESSION_CALLS:-2000}
run_calls=${RUN_CALLS:-300}
concurrency=${CONCURRENCY:-8}
tenants=${TENANTS:-8}
port=55442
grpc_port=50562

install_system_packages
release_binaries

bench_cluster spotter-sessions-bench $port 100
hz=$(getconf CLK_TCK)
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port"

# run_load SCENARIO CALLS [STATES]: CALLS measured calls after 20 unmeasured ones, then the CPU per
# measured call of spotterd and PostgreSQL (signing in, seeding and warm-up left out: `start_load`);
# with STATES, the database's connections sampled for 2 s from a second into the measured calls.
run_load() {
    local s0 p0 s1 p1 sampler=
    start_load "$cluster/load.out" "$bin/spotter-load" --port "$grpc_port" --certificate "$data/tls/dev-cert.pem" \
        --scenario "$1" --tenants "$tenants" --connections 2 --prefix sessions --concurrency "$concurrency" \
        --calls "$2" --warmup 20
    s0=$(cpu_ticks -x spotterd); p0=$(postgres_ticks)
    if [ -n "${3:-}" ]; then
        (sleep 1 && backend_states "$port" 2 > "$cluster/states.out") &
        sampler=$!
    fi
    finish_load "$cluster/load.out"
    s1=$(cpu_ticks -x spotterd); p1=$(postgres_ticks)
    cat "$cluster/load.out"
    if [ -n "$sampler" ]; then
        wait "$sampler" || true
        cat "$cluster/states.out"
    fi
    awk -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" -v n="$2" 'BEGIN {
        printf "  cpu per call: spotterd %.3f ms, postgres %.3f ms\n", s / hz * 1000 / n, p / hz * 1000 / n }'
}

echo "--- RecordSet in open guided sessions ($tenants lifters, $concurrency in flight)"
run_load session "$session_calls"
echo "--- LogRun, 30 minutes, 5,100 footsteps ($tenants lifters, $concurrency in flight)"
# The database's connections during the run's middle: a connection idle in a transaction is one
# kept while spotterd decodes and analyses footsteps.
run_load run "$run_calls" states
