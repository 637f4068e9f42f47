# Shared by the benchmark scripts; sourced after scripts/lib/setup.sh, from the repository's root.

# release_binaries: sets `bin` to $BIN when that is set (spotterd, spotter-load and spotter-floor
# built earlier, such as a copy of the code before a change: nothing is built), else builds them in
# release mode.
release_binaries() {
    if [ -n "${BIN:-}" ]; then
        bin=$BIN
        return
    fi
    echo "==> building release binaries"
    swift build -c release --scratch-path .build-release --product spotterd
    swift build -c release --scratch-path .build-release --product spotter-load
    swift build -c release --scratch-path .build-release --product spotter-floor
    bin=$(swift build -c release --scratch-path .build-release --show-bin-path)
}

# bench_cluster NAME PORT MAX_CONNECTIONS: a throwaway PostgreSQL cluster (fsync and synchronous_commit
# on) listening on PORT, with an empty database `spotter`; when the script exits, spotterd
# ($server_pid, once started) and the cluster stop (`stop_bench`; a script with more to do on exit
# sets its own trap and calls it).
bench_cluster() {
    make_cluster_dir "$1"
    server_pid=
    trap stop_bench EXIT
    start_cluster "$2" "-c max_connections=$3"
    "${run_as_pg[@]}" psql -h "$cluster" -p "$2" -U postgres -v ON_ERROR_STOP=1 -q -c "CREATE DATABASE spotter"
}

stop_bench() {
    [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    stop_cluster fast
}

# start_bench_spotterd SPOTTERD PG_PORT GRPC_PORT [NAME=VALUE ...]: starts SPOTTERD on 127.0.0.1
# against the database `spotter` of the cluster in $cluster, logging to $cluster/spotterd.log,
# with the settings given after the defaults (a later one wins), and waits until its port
# answers. Cheap password hashing only speeds up signing the benchmark's lifters in: no measured
# call hashes a password. Sets `server_pid` and `data` (spotterd's data directory).
start_bench_spotterd() {
    local spotterd=$1 pg_port=$2 grpc_port=$3
    shift 3
    data="$cluster/spotter"
    mkdir -p "$data"
    # POOL_SIZE=N: that many database connections instead of the server's default (10).
    env SPOTTER_DATABASE_URL="host=$cluster port=$pg_port user=postgres dbname=spotter" \
        ${POOL_SIZE:+SPOTTER_DATABASE_POOL_SIZE="$POOL_SIZE"} SPOTTER_DATA_DIR="$data" SPOTTER_GRPC_HOST=127.0.0.1 SPOTTER_GRPC_PORT="$grpc_port" \
        SPOTTER_SCRYPT_LOG_N=10 SPOTTER_LOG_LEVEL=warning SPOTTER_METRICS_ADDRESS=127.0.0.1:0 SPOTTER_PORTAL_PORT=off "$@" \
        "$spotterd" > "$cluster/spotterd.log" 2>&1 &
    server_pid=$!
    wait_for_port "$grpc_port" "$server_pid" "$cluster/spotterd.log" spotterd
}

# wait_for_port PORT PID LOG NAME: waits up to 60 s until 127.0.0.1:PORT accepts a connection;
# ends the script, printing LOG, if the process PID (NAME) exits first or the time runs out.
wait_for_port() {
    local port=$1 pid=$2 log=$3 name=$4
    for _ in $(seq 1 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "$name exited" >&2; exit 1; }
        sleep 0.2
    done
    cat "$log"
    echo "$name did not answer on 127.0.0.1:$port within 60 s" >&2
    exit 1
}

# start_load OUT CMD...: starts CMD (a spotter-load run) in the background with its output in OUT
# and returns once it has signed in, seeded and made its warm-up calls (`--ready-file`; at most 15
# minutes), so the caller reads the processes' counters for the measured calls alone; `finish_load
# OUT [LOG]` then lets it make them, waits for it and sets `load_ms`, its CPU time since it was
# ready. On a failure both print OUT (and LOG) and exit.
start_load() {
    local out=$1
    shift
    local TIMEFORMAT='%U %S'
    ready=$cluster/load-ready
    rm -f "$ready"
    { time "$@" --ready-file "$ready" > "$out" 2>&1; } 2> "$cluster/time" &
    load_job=$!
    local deadline=$((SECONDS + 900))
    while [ ! -e "$ready" ]; do
        kill -0 "$load_job" 2>/dev/null || { cat "$out"; echo "spotter-load ended before its measured calls" >&2; exit 1; }
        if [ "$SECONDS" -ge "$deadline" ]; then
            kill "$load_job" 2>/dev/null || true
            cat "$out"
            echo "spotter-load was not ready for its measured calls after 15 minutes" >&2
            exit 1
        fi
        sleep 0.05
    done
    load_ready_ticks=$(cpu_ticks -x spotter-load)
}
finish_load() {
    local lu ls
    rm -f "$ready"
    wait "$load_job" || { cat "$1" ${2:+"$2"}; exit 1; }
    read -r lu ls < "$cluster/time"
    load_ms=$(awk -v l="$lu $ls" -v t="$load_ready_ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        split(l, u, " "); printf "%.1f", (u[1] + u[2] - t / hz) * 1000 }')
}

# CPU ticks (user + system) of the processes pgrep finds with these arguments, from /proc.
cpu_ticks() {
    local total=0 pid fields
    for pid in $(pgrep "$@"); do
        read -r -a fields < "/proc/$pid/stat" 2>/dev/null || continue
        total=$((total + fields[13] + fields[14]))
    done
    echo "$total"
}
# CPU ticks of the whole PostgreSQL cluster: the postmaster, its live children (backends, WAL
# writer, checkpointer, autovacuum) and the children it has reaped (pgbench's backends end with
# their run). Every figure "postgres" below is this, so both proxies and spotterd are measured alike.
postgres_ticks() {
    local postmaster fields total pid
    postmaster=$(head -1 "$cluster/data/postmaster.pid")
    read -r -a fields < "/proc/$postmaster/stat"
    total=$((fields[13] + fields[14] + fields[15] + fields[16]))
    for pid in $(pgrep -P "$postmaster"); do
        read -r -a fields < "/proc/$pid/stat" 2>/dev/null || continue
        total=$((total + fields[13] + fields[14]))
    done
    echo "$total"
}

# sample_backends PG_PORT SECONDS SUMMARY: samples database `spotter`'s backends that are not idle
# (the sampler's own left out) every 10 ms for SECONDS into `samples (sample, client, state,
# waiting, query)`: the sample's number, whether it is a client backend, its state, what it waited
# for (`wait_event_type wait_event`, or `-`) and the start of its statement; then prints what the
# SQL SUMMARY selects from it (in its psql session, unaligned, fields separated by ' | ').
sample_backends() {
    "${run_as_pg[@]}" psql -h "$cluster" -p "$1" -U postgres -d spotter -v ON_ERROR_STOP=1 -qAt -F ' | ' -c "
        CREATE TEMP TABLE samples (sample int, client boolean, state text, waiting text, query text);
        DO \$\$ BEGIN
            FOR i IN 1..$2 * 100 LOOP
                PERFORM pg_stat_clear_snapshot();
                INSERT INTO samples
                SELECT i, backend_type = 'client backend', state, coalesce(wait_event_type || ' ' || wait_event, '-'),
                       left(regexp_replace(query, '\s+', ' ', 'g'), 60)
                  FROM pg_stat_activity
                 WHERE datname = 'spotter' AND pid <> pg_backend_pid() AND state <> 'idle';
                PERFORM pg_sleep(0.01);
            END LOOP;
        END \$\$;
        $3"
}

# backend_waits PG_PORT SECONDS: for every sample of a client backend not idle, what it was doing:
# its state, what it waited for (a lock, the WAL's flush, `ClientRead` when spotterd has not sent
# the next statement yet) and the start of its statement; the 20 most frequent, with their share
# of the samples (so 1.00 = one backend at all times).
backend_waits() {
    sample_backends "$1" "$2" "
        SELECT to_char(count(*) / ($2 * 100.0), '0.00'), state, waiting, query FROM samples WHERE client
        GROUP BY 2, 3, 4 ORDER BY count(*) DESC LIMIT 20;" | sed 's/^/    /'
}

# backend_states PG_PORT SECONDS: how many of database `spotter`'s backends were running a statement
# and how many sat idle inside a transaction (a connection held while the server does something
# else), on average and at most.
backend_states() {
    sample_backends "$1" "$2" "
        WITH counts AS (
            SELECT i AS sample, count(s.state) FILTER (WHERE s.state = 'active') AS active,
                   count(s.state) FILTER (WHERE s.state = 'idle in transaction') AS idle
            FROM generate_series(1, $2 * 100) AS i LEFT JOIN samples s ON s.sample = i GROUP BY i
        )
        SELECT round(avg(active), 2), max(active), round(avg(idle), 2), max(idle), count(*) FROM counts;" |
        awk -F ' [|] ' '{ printf "  backends (%d samples): running a statement %.2f on average (at most %d), idle in a transaction %.2f (at most %d)\n", $5, $1, $2, $3, $4 }'
}

# migrated_database NAME SPOTTERCTL: a throwaway database NAME on the cluster that PGHOST, PGPORT
# and PGUSER name, migrated by SPOTTERCTL, and dropped when the script exits unless KEEP is set.
# Sets `database`.
migrated_database() {
    database=$1
    psql -qAt -d postgres -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
    trap '[ -n "${KEEP:-}" ] || psql -qAt -d postgres -c "DROP DATABASE IF EXISTS $database"' EXIT
    SPOTTER_DATABASE_URL="host=${PGHOST:-localhost} port=${PGPORT:-5432} user=${PGUSER:-postgres} dbname=$database" \
        "$2" migrate apply > /dev/null
}
