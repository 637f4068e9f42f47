#!/usr/bin/env bash
# Where a logged workout's PostgreSQL time goes when every workout is a reconciler round of its own
# (Benchmarks/README.md "A round's statements"): 200 lifters log one call at a time (after 2,000
# warm-up calls, ten each) on a throwaway cluster with pg_stat_statements; prints the CPU per call of
# spotterd and PostgreSQL and the statements by total time per call (nested ones too: a trigger's
# statements count in their own row and in the statement that fired them).
#
#   Benchmarks/rounds.sh                                                     # CALLS=600 TOP=30
#   EXTRA=SPOTTER_ACHIEVEMENT_FEED=off BIN=… Benchmarks/rounds.sh            # no rounds
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/setup.sh
. Benchmarks/lib.sh
install_system_packages
release_binaries
port=55451; grpc_port=50571; metrics_port=59571
make_cluster_dir spotter-rounds
server_pid=
trap stop_bench EXIT
start_cluster $port "-c max_connections=100 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all -c pg_stat_statements.track_planning=on"
psql=("${run_as_pg[@]}" psql -h "$cluster" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
"${psql[@]}" -c "CREATE DATABASE spotter"
"${psql[@]}" -d spotter -c "CREATE EXTENSION pg_stat_statements"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port" SPOTTER_METRICS_ADDRESS="127.0.0.1:$metrics_port" ${EXTRA:-}
load() { "$bin/spotter-load" --port "$grpc_port" --certificate "$data/tls/dev-cert.pem" --scenario log --tenants 200 --connections 1 --prefix r "$@"; }
start_load "$cluster/load.out" load --concurrency 1 --calls ${CALLS:-600} --warmup 2000
"${psql[@]}" -d spotter -c "SELECT pg_stat_statements_reset()" > /dev/null
p0=$(postgres_ticks); s0=$(cpu_ticks -x spotterd)
finish_load "$cluster/load.out"
sleep 2
tail -3 "$cluster/load.out"
p1=$(postgres_ticks); s1=$(cpu_ticks -x spotterd)
hz=$(getconf CLK_TCK)
awk -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" -v n="${CALLS:-600}" 'BEGIN { printf "cpu per call: spotterd %.3f ms, postgres %.3f ms\n", s / hz * 1000 / n, p / hz * 1000 / n }'
"${psql[@]}" -d spotter -P pager=off -c "
SELECT calls, round(total_exec_time::numeric / ${CALLS:-600}, 4) AS exec_per_call, round(total_plan_time::numeric / ${CALLS:-600}, 4) AS plan_per_call, plans,
       round(mean_exec_time::numeric, 4) AS mean, left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query
FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'spotter')
ORDER BY total_exec_time + total_plan_time DESC LIMIT ${TOP:-30}"
