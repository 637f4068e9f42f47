#!/usr/bin/env bash
# Achievements at ten years of history (Benchmarks/README.md "Activity"): one lifter with 5,000
# workouts (100,000 sets), on a throwaway PostgreSQL cluster with default durability. Measures
#   1. ListAchievements (computed from the history, then reconciled with the stored awards);
#   2. LogWorkout for that lifter with the achievement feed on (spotterd's reconciler recomputes the
#      lifter's awards after every logged workout, off the call's path) and then off
#      (SPOTTER_ACHIEVEMENT_FEED=off), each with the CPU per call of spotterd and PostgreSQL,
#      counted until the reconciler is done;
#   3. LogWorkout by 200 new lifters one call at a time, feed on and off: each lifter's workouts
#      come about 0.7 s apart, after the reconciler's quarter-second wait, so every workout is a
#      round of its own, as on a server where lifters log one workout at a time (in 2, the lifter's
#      calls come faster than the rounds, and a round folds dozens of workouts). Each lifter has
#      logged ten workouts first, unmeasured.
# Builds spotterd and spotter-load in release mode (or takes them from BIN). Bounded: CALLS calls each.
#
#   Benchmarks/activity.sh                 # CALLS=500 CONCURRENCY=1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

calls=${CALLS:-500}
concurrency=${CONCURRENCY:-1}
port=55441
grpc_port=50561
metrics_port=59561

install_system_packages
release_binaries

bench_cluster spotter-activity-bench $port 100
hz=$(getconf CLK_TCK)

# The lifters the calls are spread over, and their usernames' prefix.
lifters=1
prefix=activity
load() {
    "$bin/spotter-load" --port "$grpc_port" --certificate "$data/tls/dev-cert.pem" --scenario "$1" \
        --tenants "$lifters" --connections 1 --prefix "$prefix" "${@:2}"
}

# seed SCENARIO: makes the scenario's lifter with ten years of training (one call, not measured;
# then 5 s for the reconciler to settle).
seed() {
    load "$1" --calls 1 --warmup 0 > /dev/null
    sleep 5
}

# run_load SCENARIO [ROUNDS]: CALLS measured calls (after `warmup`, 20 unless set, warm-up ones) by the seeded lifter; then
# waits 2 s for the reconciler and prints the CPU per measured call of spotterd and PostgreSQL
# (signing in and warm-up left out: `start_load`); with ROUNDS, also the reconciler's rounds meanwhile.
run_load() {
    local s0 p0 s1 p1 before after
    start_load "$cluster/load.out" load "$1" --concurrency "$concurrency" --calls "$calls" --warmup "${warmup:-20}"
    [ -n "${2:-}" ] && before=$(reconciled)
    s0=$(cpu_ticks -x spotterd); p0=$(postgres_ticks)
    finish_load "$cluster/load.out"
    sleep 2
    s1=$(cpu_ticks -x spotterd); p1=$(postgres_ticks)
    cat "$cluster/load.out"
    awk -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" -v n="$calls" 'BEGIN {
        printf "  cpu per call: spotterd %.3f ms, postgres %.3f ms\n", s / hz * 1000 / n, p / hz * 1000 / n }'
    if [ -n "${2:-}" ]; then
        after=$(reconciled)
        awk -v a="$before" -v b="$after" 'BEGIN { split(a, x, " "); split(b, y, " "); n = y[1] - x[1]
            printf "  reconciler during the measured calls: %d rounds, mean %.2f ms\n", n, n ? (y[2] - x[2]) / n * 1000 : 0 }'
    fi
}

# reconciled: the reconciler's rounds so far and their total seconds, from spotterd's metrics.
reconciled() {
    python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
        "http://127.0.0.1:$metrics_port/metrics" | awk '
        /^spotter_activity_reconcile_seconds_count/ { n = $2 }
        /^spotter_activity_reconcile_seconds_sum/ { s = $2 }
        END { printf "%d %.6f\n", n, s }'
}

echo "==> achievement feed on"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port" SPOTTER_METRICS_ADDRESS="127.0.0.1:$metrics_port"
echo "--- seeding two lifters with 5,000 workouts each (about two minutes)"
seed achievements
seed log-ten-years
# Otherwise autovacuum works through the 200,000 seeded rows during the measured calls and its CPU
# counts as theirs (ListAchievements measured 0.6 to 3.1 ms of PostgreSQL per call across runs).
echo "--- VACUUM ANALYZE after the seeding"
"${run_as_pg[@]}" psql -h "$cluster" -p "$port" -U postgres -d spotter -v ON_ERROR_STOP=1 -q -c "VACUUM ANALYZE"
echo "--- ListAchievements, 5,000 workouts"
run_load achievements
echo "--- LogWorkout, 5,000 workouts, reconciled after each"
run_load log-ten-years rounds
echo "--- LogWorkout by 200 lifters one call at a time: every workout a round of its own"
# Ten workouts each first (the warm-up): a new lifter's first workouts earn most of the early
# awards (first workout, 5, 10, a week of three), which a lifter with a history earns no more.
lifters=200 prefix=activity_on warmup=2000 run_load log rounds
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true

echo "==> achievement feed off (SPOTTER_ACHIEVEMENT_FEED=off)"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port" SPOTTER_ACHIEVEMENT_FEED=off
echo "--- LogWorkout, 5,000 workouts, nothing reconciled"
run_load log-ten-years
echo "--- LogWorkout by 200 lifters one call at a time, nothing reconciled"
lifters=200 prefix=activity_off warmup=2000 run_load log
