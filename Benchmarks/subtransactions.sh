#!/usr/bin/env bash
# What a push of more than 64 savepoints in one transaction costs everyone else. A backend caches
# 64 subtransaction ids; while one transaction holds more, every snapshot taken is "suboverflowed"
# and each row it checks that was written after the oldest running transaction id is looked up in
# pg_subtrans. On a throwaway cluster (fsync on), for each of PER_TRANSACTION (default "50 100",
# spotterd's mutationsPerTransaction against a whole push of 100): a session that wrote a row stays
# open (a long transaction, such as a slow export, holds the oldest id), one client runs
# transactions of that many SAVEPOINT / INSERT / RELEASE (a push's shape), one client commits
# single-row inserts (other lifters logging; without waiting for the WAL flush, so that ids are
# used as fast as by many lifters at once), and two clients read a sample of the newest 150,000
# rows. Prints the rows pushed and inserted and the reads per second, and pg_stat_slru's
# pg_subtrans page hits and reads. Bounded: ROUNDS rounds (default 2) of DURATION seconds (default 10) each.
#
#   Benchmarks/subtransactions.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

port=55453
duration=${DURATION:-10}
rounds=${ROUNDS:-2}
sizes=${PER_TRANSACTION:-50 100}

install_system_packages
bench_cluster spotter-subtransactions-bench "$port" 100
work=$(mktemp -d)
trap 'stop_bench; rm -rf "$work"' EXIT
chmod 755 "$work"
psql=("${run_as_pg[@]}" psql -X -h "$cluster" -p "$port" -U postgres -d spotter -v ON_ERROR_STOP=1 -q)
pgbench=("${run_as_pg[@]}" "$pg_bin/pgbench" -n -h "$cluster" -p "$port" -U postgres -T "$duration")

"${psql[@]}" -c "CREATE TABLE t (id bigserial PRIMARY KEY, v int NOT NULL)" \
    -c "INSERT INTO t (v) SELECT g FROM generate_series(1, 100000) g" -c "VACUUM ANALYZE t"
for n in $sizes; do
    {
        echo "BEGIN;"
        for i in $(seq "$n"); do echo "SAVEPOINT s; INSERT INTO t (v) VALUES ($i); RELEASE SAVEPOINT s;"; done
        echo "COMMIT;"
    } > "$work/push$n.sql"
done
echo "INSERT INTO t (v) VALUES (1);" > "$work/log.sql"
cat > "$work/read.sql" <<'EOF'
\set k random(0, 49)
SELECT count(*) FROM t WHERE id > (SELECT max(id) FROM t) - 150000 AND id % 50 = :k;
EOF
chmod 644 "$work"/*.sql

tps() { grep -o 'tps = [0-9.]*' "$1" | head -1 | cut -d' ' -f3; }
for round in $(seq "$rounds"); do
    for n in $sizes; do
        "${psql[@]}" -c "SELECT pg_stat_reset_slru('Subtrans')" > /dev/null
        # The long transaction: it has an id (it wrote), so the range of ids to look up grows.
        "${psql[@]}" -c "BEGIN" -c "INSERT INTO t (v) VALUES (0)" -c "SELECT pg_sleep($duration + 6)" -c "COMMIT" > /dev/null &
        long=$!
        sleep 0.5
        PGOPTIONS="-c synchronous_commit=off" "${pgbench[@]}" -T 4 -c 2 -f "$work/log.sql" spotter \
            > /dev/null 2>&1  # ids to look up
        "${pgbench[@]}" -c 1 -f "$work/push$n.sql" spotter > "$work/push.out" 2>&1 &
        PGOPTIONS="-c synchronous_commit=off" "${pgbench[@]}" -c 1 -f "$work/log.sql" spotter \
            > "$work/log.out" 2>&1 &
        "${pgbench[@]}" -c 2 -f "$work/read.sql" spotter > "$work/read.out" 2>&1
        wait $(jobs -p | grep -vx "$long") || { cat "$work"/*.out; exit 1; }
        wait "$long"
        slru=$("${psql[@]}" -A -t -c "SELECT blks_hit || ' hit, ' || blks_read || ' read' FROM pg_stat_slru WHERE name = 'Subtrans'")
        pushed=$(awk -v t="$(tps "$work/push.out")" -v n="$n" 'BEGIN { printf "%.0f", t * n }')
        printf 'round %s, %3s savepoints a transaction: %5s rows/s pushed, %5.0f inserted, %5.1f reads/s; pg_subtrans pages: %s\n' \
            "$round" "$n" "$pushed" "$(tps "$work/log.out")" "$(tps "$work/read.out")" "$slru"
    done
done
