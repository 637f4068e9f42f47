#!/usr/bin/env bash
# Runs the Spotter load generator beside the raw-SQL proxy (pgbench with ../shared/bench) in one
# run, on one throwaway PostgreSQL cluster with default durability (fsync and synchronous_commit
# on), same client counts. Builds spotterd and spotter-load in release mode first.
#
#   Benchmarks/run.sh                     # everything (about 5 minutes after the build)
#   CALLS=4000 CONCURRENCY="8 64" Benchmarks/run.sh
#   ONLY=sync [PAGE_SIZE=1000] Benchmarks/run.sh   # just the sync scenario
#
# Every load is bounded: pgbench runs for DURATION seconds, spotter-load makes CALLS calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh

proxy=${PROXY_DIR:-$root/../shared/bench}
calls=${CALLS:-3000}
duration=${DURATION:-15}
concurrency=${CONCURRENCY:-8 32 64}
port=55440
grpc_port=50551

install_system_packages
command -v pgbench >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql-contrib; }

echo "==> building release binaries"
swift build -c release --scratch-path .build-release --product spotterd
swift build -c release --scratch-path .build-release --product spotter-load
bin=$(swift build -c release --scratch-path .build-release --show-bin-path)

make_cluster_dir spotter-bench
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    stop_cluster fast
}
trap cleanup EXIT

echo "==> PostgreSQL in $cluster (defaults: fsync on, synchronous_commit on)"
start_cluster $port "-c max_connections=200"
psql=("${run_as_pg[@]}" psql -h "$cluster" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
"${psql[@]}" -c "CREATE DATABASE proxy" -c "CREATE DATABASE spotter"
"${psql[@]}" -d proxy -f "$proxy/schema.sql"

echo "==> spotterd on 127.0.0.1:$grpc_port"
data="$cluster/spotter"
mkdir -p "$data"
# Cheap password hashing only speeds up signing the benchmark's lifters in; no measured call hashes.
SPOTTER_DATABASE_URL="host=$cluster port=$port user=postgres dbname=spotter" \
SPOTTER_DATA_DIR="$data" SPOTTER_GRPC_PORT=$grpc_port SPOTTER_SCRYPT_LOG_N=10 \
SPOTTER_DATABASE_POOL_SIZE=${POOL_SIZE:-16} SPOTTER_LOG_LEVEL=warning SPOTTER_METRICS_ADDRESS=127.0.0.1:0 \
    "$bin/spotterd" > "$cluster/spotterd.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$grpc_port") 2>/dev/null && break
    sleep 0.2
done
certificate="$data/tls/dev-cert.pem"
load=("$bin/spotter-load" --port "$grpc_port" --certificate "$certificate")

# CPU ticks (user + system) of the processes pgrep finds with these arguments, from /proc.
cpu_ticks() {
    local total=0 pid fields
    for pid in $(pgrep "$@"); do
        read -r -a fields < "/proc/$pid/stat" 2>/dev/null || continue
        total=$((total + fields[13] + fields[14]))
    done
    echo "$total"
}
hz=$(getconf CLK_TCK)
# Runs spotter-load (200 warm-up calls, then the measured ones) and prints the CPU time per call,
# warm-up included, of spotterd, PostgreSQL and the generator.
measure() {
    local s0 p0 s1 p1 lu ls n=$calls args=()
    for arg in "$@"; do
        case $arg in --calls=*) n=${arg#--calls=} ;; *) args+=("$arg") ;; esac
    done
    # spotterd's pool connections to the spotter database live for the whole run.
    s0=$(cpu_ticks -x spotterd); p0=$(cpu_ticks -f '^postgres: postgres spotter ')
    TIMEFORMAT='%U %S'
    { time "${load[@]}" --calls "$n" --warmup 200 "${args[@]}" 2>&1; } 2> "$cluster/time"
    s1=$(cpu_ticks -x spotterd); p1=$(cpu_ticks -f '^postgres: postgres spotter ')
    read -r lu ls < "$cluster/time"
    awk -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v l="$lu $ls" -v hz="$hz" -v n="$((n + 200))" 'BEGIN {
        split(l, t, " "); printf "  cpu per call: spotterd %.2f ms, postgres %.2f ms, spotter-load %.2f ms\n",
        s / hz * 1000 / n, p / hz * 1000 / n, (t[1] + t[2]) * 1000 / n }'
}

pgbench=("${run_as_pg[@]}" pgbench -h "$cluster" -p "$port" -U postgres -n -M prepared -T "$duration")
summary() { grep -E '^(tps|latency average)' | sed 's/^/  /'; }

# spotterd's resident memory now and at its peak, from /proc.
memory() { grep -E '^(VmRSS|VmHWM)' "/proc/$server_pid/status" | tr -s ' \t' ' ' | paste -sd ' ' | sed 's/^/  spotterd /'; }

sync_scenario() {
    echo "==> sync: a lifter with ten years of data (5,000 workouts, 100,000 sets) pushed in batches of 100"
    "${load[@]}" --scenario sync --calls 0 --rounds 0
    memory
    echo "==> sync: 5 full first pulls (pages of ${PAGE_SIZE:-200}), then 200 rounds of one pushed change and the incremental pull"
    "${load[@]}" --scenario sync --calls 5 --rounds 200 --page-size "${PAGE_SIZE:-200}"
    memory
}
if [ "${ONLY:-}" = sync ]; then
    sync_scenario
    exit 0
fi

for c in $concurrency; do
    echo "==> log a workout of 10 sets, $c concurrent"
    echo "raw-SQL proxy (pgbench logworkout.sql, $c clients, ${duration}s):"
    "${pgbench[@]}" -c "$c" -j 2 -f "$proxy/logworkout.sql" proxy 2>/dev/null | summary
    measure --scenario log --concurrency "$c" --tenants 64
done

echo "==> seeding the history and progress lifters, then VACUUM ANALYZE (as autovacuum would)"
"${load[@]}" --scenario history --tenants 8 --calls 1 --warmup 0 >/dev/null
"${load[@]}" --scenario progress --tenants 4 --calls 1 --warmup 0 >/dev/null
"${load[@]}" --scenario coach-history --tenants 8 --calls 1 --warmup 0 >/dev/null
"${psql[@]}" -d spotter -c "VACUUM ANALYZE"

echo "==> a 20-entry history page (lifters with 2,000 sets), 8 concurrent"
echo "raw-SQL proxy (pgbench history.sql, 8 clients, ${duration}s):"
"${pgbench[@]}" -c 8 -j 2 -f "$proxy/history.sql" proxy 2>/dev/null | summary
measure --scenario history --concurrency 8 --tenants 8
echo "==> the same page read by each lifter's coach (ListClientWorkouts: link check, RLS, access log), 8 concurrent"
measure --scenario coach-history --concurrency 8 --tenants 8

echo "==> progress series for one exercise over a year of data"
measure --scenario progress --concurrency 1 --tenants 4 --calls=500
measure --scenario progress --concurrency 8 --tenants 4

sync_scenario
