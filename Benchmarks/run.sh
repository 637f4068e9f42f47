#!/usr/bin/env bash
# Runs the Spotter load generator beside two pgbench proxies in one run, on one throwaway
# PostgreSQL cluster with default durability (fsync and synchronous_commit on), same client
# counts: the raw-SQL proxy (../shared/bench: the same work in a minimal schema) and the same-SQL
# proxy (Benchmarks/same-sql: exactly the statements spotterd sends, against the real schema as
# spotter_app). Prints three ratios per scenario. Builds spotterd and spotter-load in release mode.
#
#   Benchmarks/run.sh                     # everything (about 5 minutes after the build)
#   CALLS=4000 CONCURRENCY="8 64" Benchmarks/run.sh
#   ONLY=sync [PAGE_SIZE=1000] Benchmarks/run.sh   # just the sync scenario
#   ONLY=log Benchmarks/run.sh            # just logging, with both proxies
#   BIN=/some/dir Benchmarks/run.sh       # spotterd and spotter-load from there, no build
#   DIAGNOSE=1 Benchmarks/run.sh          # pg_stat_statements and auto_explain (see below)
#   PERF=1 ONLY=log CONCURRENCY=8 Benchmarks/run.sh   # also `perf record -g` spotterd per scenario
#   LATENCIES=1 Benchmarks/run.sh         # each call's start and latency (ms) to /tmp/latencies-*.txt
#   WAITS=1 ONLY=log Benchmarks/run.sh    # what the database's backends wait for during the calls
#   COSTS=1 ONLY=log CONCURRENCY=8 Benchmarks/run.sh   # then what each guarantee and statement of our
#                                         # SQL costs (Benchmarks/schema-costs.txt; see below)
#   EXPLAIN=1 ONLY=log CONCURRENCY=8 Benchmarks/run.sh # then EXPLAIN (ANALYZE, BUFFERS) of both proxies'
#                                         # workout insert, warm (see explain_inserts below)
#
# Every load is bounded: pgbench runs for DURATION seconds, spotter-load makes CALLS calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

proxy=${PROXY_DIR:-$root/../shared/bench}
calls=${CALLS:-3000}
duration=${DURATION:-15}
concurrency=${CONCURRENCY:-8 32 64}
port=55440
grpc_port=50551
floor_port=50552

install_system_packages
command -v pgbench >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-contrib; }

release_binaries

make_cluster_dir spotter-bench
server_pid=
floor_pid=
cleanup() {
    [ -n "$floor_pid" ] && kill "$floor_pid" 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    if [ -n "${DIAGNOSE:-}" ] && [ -f "$cluster/postgres.log" ]; then
        cp "$cluster/postgres.log" /tmp/spotter-bench-postgres.log
        echo "==> PostgreSQL's log (auto_explain plans): /tmp/spotter-bench-postgres.log"
    fi
    stop_cluster fast
}
trap cleanup EXIT

echo "==> PostgreSQL in $cluster (defaults: fsync on, synchronous_commit on)"
# DIAGNOSE=1 loads pg_stat_statements and auto_explain: every measurement ends with its top
# statements by total time, and auto_explain stays off until the sync scenario, which then logs the
# plan, with row counts, of every statement over 25 ms; the server log is kept (see cleanup).
diagnose=()
if [ -n "${DIAGNOSE:-}" ]; then
    diagnose=(-c shared_preload_libraries=pg_stat_statements,auto_explain -c auto_explain.log_analyze=on
              -c auto_explain.log_timing=off -c auto_explain.log_buffers=on)
fi
start_cluster $port "-c max_connections=200 ${diagnose[*]}"
psql=("${run_as_pg[@]}" psql -h "$cluster" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
"${psql[@]}" -c "CREATE DATABASE proxy" -c "CREATE DATABASE spotter"
[ -n "${DIAGNOSE:-}" ] && "${psql[@]}" -d spotter -c "CREATE EXTENSION pg_stat_statements"
"${psql[@]}" -d proxy -f "$proxy/schema.sql"

echo "==> spotterd on 127.0.0.1:$grpc_port"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port"
certificate="$data/tls/dev-cert.pem"
load=("$bin/spotter-load" --port "$grpc_port" --certificate "$certificate")

hz=$(getconf CLK_TCK)
TIMEFORMAT='%U %S'
# The cluster's WAL counters so far (pg_stat_wal): records, full-page images, bytes.
wal_counters() {
    "${psql[@]}" -d postgres -At -F ' ' -c "SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal"
}
# wal_per_call BEFORE AFTER N: the WAL written per call between two wal_counters readings.
wal_per_call() {
    awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        printf "  WAL per call: %.1f records, %.2f full-page images, %.1f kB\n",
            (y[1] - x[1]) / n, (y[2] - x[2]) / n, (y[3] - x[3]) / n / 1024 }'
}

# The figures of the last measurement, for `ratios`: calls (or transactions) per second, and CPU
# milliseconds per call of the server side (spotterd, PostgreSQL) and of the client.
declare -A rate server_cpu postgres_cpu client_cpu

# The context switches so far of spotterd (or of the process given), voluntary and involuntary, all
# threads: a thread switch is what an `async` hop between executors costs when it crosses threads.
context_switches() {
    awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { n += $2 } END { print n }' /proc/"${1:-$server_pid}"/task/*/status
}

# measure ARGS...: runs spotter-load (signing in, for `log` registering its lifters, 200 warm-up
# calls, then CALLS measured ones; --calls=N: N) and prints the CPU time per measured call of
# spotterd, PostgreSQL and the generator, and spotterd's thread switches per call, all counted from
# the end of the warm-up (until 2026-11-27 they counted from the generator's start and were
# divided by the calls plus the warm-up's). With PERF=1, `perf record -g` samples spotterd through
# the measured calls into /tmp/spotterd-<scenario>-<concurrency>.perf.data (read it with
# `perf report -i`).
measure() {
    local s0 p0 w0 c0 s1 p1 w1 c1 n=$calls args=() output perf_pid= waits_pid=
    for arg in "$@"; do
        case $arg in --calls=*) n=${arg#--calls=} ;; *) args+=("$arg") ;; esac
    done
    # LATENCIES=1: each call's start and latency to /tmp/latencies-SCENARIO-CONCURRENCY.txt.
    [ -n "${LATENCIES:-}" ] && args+=(--latencies "/tmp/latencies-${args[1]}-${args[3]:-1}.txt")
    start_load "$cluster/load.out" "${load[@]}" --calls "$n" --warmup 200 "${args[@]}"
    if [ -n "${PERF:-}" ]; then
        perf record -q -g -p "$server_pid" -o "/tmp/spotterd-${args[1]}-${args[3]:-1}.perf.data" 2>/dev/null &
        perf_pid=$!
    fi
    [ -n "${DIAGNOSE:-}" ] && "${psql[@]}" -d spotter -c "SELECT pg_stat_statements_reset()" >/dev/null
    s0=$(cpu_ticks -x spotterd); p0=$(postgres_ticks); w0=$(wal_counters); c0=$(context_switches)
    # WAITS=1: what the backends do for 2 s from half a second into the measured calls (the
    # sampler's own backend is left out of its samples, not out of the CPU counters).
    [ -n "${WAITS:-}" ] && { (sleep 0.5 && backend_waits "$port" 2 > "$cluster/waits.out") & waits_pid=$!; }
    finish_load "$cluster/load.out"
    s1=$(cpu_ticks -x spotterd); p1=$(postgres_ticks); w1=$(wal_counters); c1=$(context_switches)
    [ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
    cat "$cluster/load.out"
    rate[spotterd]=$(awk '/throughput/ { print $2 }' "$cluster/load.out")
    read -r 'server_cpu[spotterd]' 'postgres_cpu[spotterd]' 'client_cpu[spotterd]' < <(
        awk -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v l="$load_ms" -v hz="$hz" -v n="$n" 'BEGIN {
            printf "%.3f %.3f %.3f\n", s / hz * 1000 / n, p / hz * 1000 / n, l / n }')
    echo "  cpu per call: spotterd ${server_cpu[spotterd]} ms, postgres ${postgres_cpu[spotterd]} ms, spotter-load ${client_cpu[spotterd]} ms"
    wal_per_call "$w0" "$w1" "$n"
    awk -v c=$((c1 - c0)) -v n="$n" 'BEGIN { printf "  spotterd thread switches per call: %.1f\n", c / n }'
    if [ -n "${WAITS:-}" ]; then
        wait "$waits_pid" || true
        echo "  backends not idle, by what they did (share of 2 s of samples, every 10 ms):"
        cat "$cluster/waits.out"
    fi
    top_statements
}

# pgbench NAME DATABASE SCRIPT CLIENTS [pgbench options]: runs a proxy for DURATION seconds and
# prints its throughput and the CPU time per transaction of PostgreSQL and pgbench.
proxy() {
    local name=$1 database=$2 script=$3 clients=$4 p0 p1 w0 w1 lu ls count
    shift 4
    p0=$(postgres_ticks); w0=$(wal_counters)
    { time env PGOPTIONS="${pgoptions:-}" "${pgbench[@]}" -c "$clients" -j 2 -f "$script" "$@" "$database" > "$cluster/pgbench.out" 2>&1; } 2> "$cluster/time"
    sleep 0.5  # the postmaster reaps the run's backends
    p1=$(postgres_ticks); w1=$(wal_counters)
    grep -E '^(tps|latency average|number of failed)' "$cluster/pgbench.out" | sed 's/^/  /'
    grep -qE '^number of failed transactions: 0 ' "$cluster/pgbench.out" || { cat "$cluster/pgbench.out"; exit 1; }
    read -r lu ls < "$cluster/time"
    count=$(awk '/number of transactions actually processed/ { print $NF }' "$cluster/pgbench.out")
    rate[$name]=$(awk '/^tps/ { print $3 }' "$cluster/pgbench.out")
    server_cpu[$name]=0
    read -r 'postgres_cpu[$name]' 'client_cpu[$name]' < <(
        awk -v p=$((p1 - p0)) -v l="$lu $ls" -v hz="$hz" -v n="$count" 'BEGIN {
            split(l, t, " "); printf "%.3f %.3f\n", p / hz * 1000 / n, (t[1] + t[2]) * 1000 / n }')
    echo "  cpu per transaction: postgres ${postgres_cpu[$name]} ms, pgbench ${client_cpu[$name]} ms"
    wal_per_call "$w0" "$w1" "$count"
}

# floor SCENARIO CONCURRENCY: the same load against spotter-floor (Benchmarks/Floor: the gRPC,
# TLS and protobuf libraries answering the same call without any of our code, from spotterd's
# certificate) and its CPU per measured call, like `measure`.
floor() {
    local f0 f1 c0 c1 n=$calls
    "$bin/spotter-floor" --port "$floor_port" --certificate "$data/tls/dev-cert.pem" \
        --key "$data/tls/dev-key.pem" > "$cluster/floor.log" 2>&1 &
    floor_pid=$!
    wait_for_port "$floor_port" "$floor_pid" "$cluster/floor.log" spotter-floor
    start_load "$cluster/floor.out" "$bin/spotter-load" --port "$floor_port" --certificate "$certificate" --floor \
        --scenario "$1" --concurrency "$2" --tenants 8 --calls "$n" --warmup 200
    f0=$(cpu_ticks -x spotter-floor); c0=$(context_switches "$floor_pid")
    finish_load "$cluster/floor.out" "$cluster/floor.log"
    f1=$(cpu_ticks -x spotter-floor); c1=$(context_switches "$floor_pid")
    kill "$floor_pid" 2>/dev/null || true; wait "$floor_pid" 2>/dev/null || true
    floor_pid=
    grep -E 'throughput|latency' "$cluster/floor.out"
    rate[floor]=$(awk '/throughput/ { print $2 }' "$cluster/floor.out")
    read -r 'server_cpu[floor]' 'client_cpu[floor]' < <(
        awk -v s=$((f1 - f0)) -v l="$load_ms" -v hz="$hz" -v n="$n" 'BEGIN {
            printf "%.3f %.3f\n", s / hz * 1000 / n, l / n }')
    echo "  cpu per call: spotter-floor ${server_cpu[floor]} ms, spotter-load ${client_cpu[floor]} ms"
    awk -v c=$((c1 - c0)) -v n="$n" 'BEGIN { printf "  spotter-floor thread switches per call: %.1f\n", c / n }'
}

# The three ratios of one scenario, from the last `proxy raw`, `proxy same`, `measure` and `floor`.
ratios() {
    awk -v rr="${rate[raw]}" -v rs="${rate[same]}" -v rd="${rate[spotterd]}" \
        -v pr="${postgres_cpu[raw]}" -v ps="${postgres_cpu[same]}" -v pd="${postgres_cpu[spotterd]}" \
        -v cr="${client_cpu[raw]}" -v sd="${server_cpu[spotterd]}" -v sf="${server_cpu[floor]}" 'BEGIN {
        printf "  ratios (throughput; PostgreSQL CPU per call):\n"
        printf "    our SQL / raw proxy    %5.1f %% of the throughput; PostgreSQL %.2f× the CPU (the schema'"'"'s cost)\n", rs / rr * 100, ps / pr
        printf "    spotterd / our SQL     %5.1f %% of the throughput (gRPC, TLS, protobuf, our Swift)\n", rd / rs * 100
        printf "    spotterd / raw proxy   %5.1f %% of the throughput\n", rd / rr * 100
        printf "    spotterd CPU per call %.3f ms = %.2f× the raw proxy'"'"'s total (PostgreSQL + pgbench, %.3f ms)\n", sd, sd / (pr + cr), pr + cr
        printf "    our SQL PostgreSQL CPU %.3f ms = %.2f× the raw proxy'"'"'s PostgreSQL CPU\n", ps, ps / pr
        printf "    the stack'"'"'s floor (spotter-floor) %.3f ms = %.2f× the raw proxy'"'"'s total; spotterd above it %.3f ms\n", sf, sf / (pr + cr), sd - sf
    }'
}

pgbench=("${run_as_pg[@]}" pgbench -h "$cluster" -p "$port" -U postgres -n -M prepared -T "$duration")
# The same-SQL proxy connects as spotterd does: as spotter_app, under row-level security.
same_sql_role="-c role=spotter_app"

# bench_clients PREFIX: the lifters whose usernames start with PREFIX, with their newest live
# session's token hash, for the same-SQL proxy to authenticate as (n from 1). Prints their count.
bench_clients() {
    "${psql[@]}" -d spotter -At <<SQL
DROP TABLE IF EXISTS bench_clients;
CREATE TABLE bench_clients AS
SELECT (row_number() OVER (ORDER BY a.username))::int AS n, '\\x' || encode(s.access_token_hash, 'hex') AS token_hash,
       s.tenant_id::text AS tenant_id
FROM accounts a
CROSS JOIN LATERAL (
    SELECT * FROM sessions s
    WHERE s.tenant_id = a.tenant_id AND s.account_id = a.account_id AND s.revoked_at IS NULL
      AND s.access_expires_at > now() + interval '5 minutes'
    ORDER BY s.created_at DESC LIMIT 1) s
WHERE a.username LIKE '$1%';
ALTER TABLE bench_clients ADD PRIMARY KEY (n);
GRANT SELECT ON bench_clients TO spotter_app;
SELECT count(*) FROM bench_clients;
SQL
}

# spotterd's resident memory now and at its peak, from /proc.
memory() { grep -E '^(VmRSS|VmHWM)' "/proc/$server_pid/status" | tr -s ' \t' ' ' | paste -sd ' ' | sed 's/^/  spotterd /'; }

# With DIAGNOSE, the statements of the measurement just made by total time (pg_stat_statements:
# every scenario's measured calls, warm-up left out; the sync scenario's pulls and pushes).
top_statements() {
    [ -n "${DIAGNOSE:-}" ] || return 0
    echo "  top statements by total time (calls, mean ms, rows per call):"
    "${psql[@]}" -d spotter -At -F ' | ' -c "
        SELECT calls, round((total_exec_time / calls)::numeric, 3), rows / calls,
               left(regexp_replace(query, '\s+', ' ', 'g'), 110)
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'spotter')
        ORDER BY total_exec_time DESC LIMIT ${TOP:-12}" | sed 's/^/    /'
}

sync_scenario() {
    echo "==> sync: a lifter with ten years of data (5,000 workouts, 100,000 sets) pushed in batches of 100"
    # The pushes' connections meanwhile (one push at a time; idle in a transaction: held by a push
    # while spotterd receives, decodes or checks its mutations).
    (sleep 1 && backend_states "$port" 6) &
    local sampler=$!
    "${load[@]}" --scenario sync --calls 0 --rounds 0
    wait "$sampler"
    memory
    [ -n "${DIAGNOSE:-}" ] && "${psql[@]}" -d spotter \
        -c "ALTER SYSTEM SET auto_explain.log_min_duration = '25ms'" -c "SELECT pg_reload_conf()" \
        -c "SELECT pg_stat_statements_reset()" >/dev/null
    echo "==> sync: 5 full first pulls (pages of ${PAGE_SIZE:-200}), then 200 rounds of one pushed change and the incremental pull"
    "${load[@]}" --scenario sync --calls 5 --rounds 200 --page-size "${PAGE_SIZE:-200}"
    memory
    top_statements
}
if [ "${ONLY:-}" = sync ]; then
    sync_scenario
    exit 0
fi

# schema_costs CLIENTS TENANTS: the same-SQL proxy for logging again after each line of
# Benchmarks/schema-costs.txt (`name|SQL|perl`), in order, so each figure is the cost of what that
# line and every line before it took away: SQL run as the superuser against the schema (a trigger,
# foreign keys or CHECK constraints dropped), or a perl substitution that takes a statement out of
# same-sql/logworkout.sql (it must match, so the list stays in step with the script). The raw proxy
# runs before and after, to show the machine held steady. The schema is left without what the
# list took away, so the run ends here (the first client count only).
schema_costs() {
    local clients=$1 tenants=$2 name sql edit script=Benchmarks/same-sql/logworkout.sql edited
    echo "==> what each guarantee and statement costs (same-SQL proxy, $clients clients, ${duration}s each)"
    proxy raw proxy "$proxy/logworkout.sql" "$clients" | grep 'cpu per'
    while IFS='|' read -r name sql edit; do
        case $name in '#'* | '') continue ;; esac
        [ -n "$sql" ] && "${psql[@]}" -d spotter -c "$sql"
        if [ -n "$edit" ]; then
            edited=$cluster/costs-$RANDOM.sql
            cp "$script" "$edited"
            perl -0pi -e "$edit" "$edited"
            cmp -s "$edited" "$script" && { echo "schema-costs.txt: '$name' changes nothing in the script"; exit 1; }
            script=$edited
        fi
        echo "--- $name"
        pgoptions=$same_sql_role proxy same spotter "$script" "$clients" -D tenants="$tenants" | grep 'cpu per'
    done < Benchmarks/schema-costs.txt
    proxy raw proxy "$proxy/logworkout.sql" "$clients" | grep 'cpu per'
    exit 0
}

# explain_inserts: EXPLAIN (ANALYZE, BUFFERS) of the workout insert of each proxy, run by psql
# from the proxies' own scripts (pgbench's `:name` parameters become psql's quoted `:'name'`
# values, its pipelines plain statements), as spotter_app for our SQL, once as the 20th run of
# the whole script in one session so plans, caches and the feed counter row are warm. Each run
# logs a real workout for the first benchmark lifter, so it comes after the measured runs.
explain_inserts() {
    local ours=$cluster/explain-ours.sql raw=$cluster/explain-raw.sql i
    echo "==> EXPLAIN (ANALYZE, BUFFERS) of the workout insert, the 20th run in one session"
    : > "$ours"; : > "$raw"
    for i in $(seq 20); do
        [ "$i" = 20 ] && { echo '\o'; } >> "$ours" || echo '\o /dev/null' >> "$ours"
        [ "$i" = 20 ] && { echo '\o'; } >> "$raw" || echo '\o /dev/null' >> "$raw"
        perl -0pe "s/^\\\\set n .*\$/\\\\set n 1/m; s/^\\\\(start|end)pipeline\\n//mg; s/(?<![:\\w]):([a-z_]+)/:'\$1'/g;
                   s/^WITH w AS \\(/EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)\\nWITH w AS (/m" \
            Benchmarks/same-sql/logworkout.sql >> "$ours"
        perl -0pe "s/^\\\\set t .*\$/\\\\set t 1/m; s/^WITH w AS \\(/EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)\\nWITH w AS (/m" \
            "$proxy/logworkout.sql" >> "$raw"
    done
    echo "--- our SQL (same-sql/logworkout.sql as spotter_app)"
    PGOPTIONS="$same_sql_role" "${psql[@]}" -d spotter -X -f "$ours" | sed -n '/QUERY PLAN/,/Execution Time/p'
    echo "--- the raw proxy ($proxy/logworkout.sql)"
    "${psql[@]}" -d proxy -X -f "$raw" | sed -n '/QUERY PLAN/,/Execution Time/p'
}

for c in $concurrency; do
    echo "==> log a workout of 10 sets, $c concurrent"
    # New lifters per client count: registering a taken name again counts as a failed sign-in
    # from this address (50 in 15 minutes lock it out).
    measure --scenario log --concurrency "$c" --tenants 64 --prefix "bench$c"
    tenants=$(bench_clients "bench${c}_log_")
    echo "raw-SQL proxy (pgbench logworkout.sql, $c clients, ${duration}s):"
    proxy raw proxy "$proxy/logworkout.sql" "$c"
    echo "same-SQL proxy (pgbench same-sql/logworkout.sql as spotter_app, $tenants lifters, $c clients, ${duration}s):"
    pgoptions=$same_sql_role proxy same spotter Benchmarks/same-sql/logworkout.sql "$c" -D tenants="$tenants"
    echo "the stack's floor (spotter-floor: the same calls answered by gRPC, TLS and protobuf alone):"
    floor log "$c"
    ratios
    [ -n "${EXPLAIN:-}" ] && explain_inserts
    [ -n "${COSTS:-}" ] && schema_costs "$c" "$tenants"
done
[ "${ONLY:-}" = log ] && exit 0

echo "==> seeding the history and progress lifters, then VACUUM ANALYZE (as autovacuum would)"
"${load[@]}" --scenario history --tenants 8 --calls 1 --warmup 0 >/dev/null
"${load[@]}" --scenario progress --tenants 4 --calls 1 --warmup 0 >/dev/null
"${load[@]}" --scenario coach-history --tenants 8 --calls 1 --warmup 0 >/dev/null
"${psql[@]}" -d spotter -c "VACUUM ANALYZE"

echo "==> a 20-entry history page (lifters with 2,000 sets), 8 concurrent"
measure --scenario history --concurrency 8 --tenants 8
tenants=$(bench_clients bench_history_)
echo "raw-SQL proxy (pgbench history.sql, 8 clients, ${duration}s):"
proxy raw proxy "$proxy/history.sql" 8
echo "same-SQL proxy (pgbench same-sql/history.sql as spotter_app, $tenants lifters, 8 clients, ${duration}s):"
pgoptions=$same_sql_role proxy same spotter Benchmarks/same-sql/history.sql 8 -D tenants="$tenants"
echo "the stack's floor (spotter-floor: the same page answered by gRPC, TLS and protobuf alone):"
floor history 8
ratios
echo "==> the same page read by each lifter's coach (ListClientWorkouts: link check, RLS, access log), 8 concurrent"
measure --scenario coach-history --concurrency 8 --tenants 8

echo "==> progress series for one exercise over a year of data"
measure --scenario progress --concurrency 1 --tenants 4 --calls=500
measure --scenario progress --concurrency 8 --tenants 4

sync_scenario
