#!/usr/bin/env bash
# The coach portal's pages under load (issue 13): a release spotterd on a throwaway PostgreSQL
# cluster (default durability), seeded through the API by spotter-load (a Coach Pro coach with
# CLIENTS clients, each with three workouts in the last two weeks, the first with three a week for
# a year), then two pages read over HTTPS by wrk with CONCURRENCY requests in flight on
# kept-alive connections: the client list (which, like ListClients, writes one access-log row per
# client listed) and the first client's squat progress page (a year of data, its SVG chart).
# Prints wrk's throughput and latency percentiles for each. Every load is bounded: DURATION seconds.
#
#   Benchmarks/portal.sh                          # 200 clients, 20 s per page at 8 in flight
#   CLIENTS=50 DURATION=10 CONCURRENCY="1 8" Benchmarks/portal.sh
#   BIN=/some/dir Benchmarks/portal.sh            # spotterd and spotter-load from there, no build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

clients=${CLIENTS:-200}
duration=${DURATION:-20}
concurrency=${CONCURRENCY:-8}
port=55441
grpc_port=50561
portal_port=50562
coach=portalbench_portal_coach

install_system_packages
# wrk, not ApacheBench: ab speaks HTTP/1.0 and waits for the server to close each connection.
if ! command -v wrk >/dev/null; then
    sudo=$(need_root_for_apt)
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null
fi
command -v curl >/dev/null || { sudo=$(need_root_for_apt); $sudo apt-get install -y -qq curl >/dev/null; }

release_binaries

bench_cluster spotter-portal-bench $port 200
echo "==> PostgreSQL in $cluster (defaults: fsync on, synchronous_commit on)"
psql=("${run_as_pg[@]}" psql -h "$cluster" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)

echo "==> spotterd on 127.0.0.1:$grpc_port, its portal on https://127.0.0.1:$portal_port"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port" SPOTTER_PORTAL_PORT="$portal_port"
wait_for_port "$portal_port" "$server_pid" "$cluster/spotterd.log" "spotterd's portal"
load=("$bin/spotter-load" --port "$grpc_port" --certificate "$data/tls/dev-cert.pem" --prefix portalbench
      --scenario portal)

echo "==> seeding $clients clients through the API"
"${load[@]}" --tenants 0 > /dev/null
"${psql[@]}" -d spotter -c "UPDATE tenants SET tier = 'coach_pro' WHERE tenant_id =
    (SELECT tenant_id FROM accounts WHERE username = '$coach')"
started=$(date +%s)
"${load[@]}" --tenants "$clients" | tee "$cluster/seed.out"
echo "  seeded in $(( $(date +%s) - started )) s"
# As autovacuum would soon: without statistics the planner's estimates stay small, and a page's
# cost at real sizes does not show (the client list's JIT compilation did not, before
# connections turned JIT off).
"${psql[@]}" -d spotter -c "VACUUM ANALYZE"
client=$(awk '/^progress-client/ { print $2 }' "$cluster/seed.out")

portal="https://127.0.0.1:$portal_port"
status=$(curl -sk -c "$cluster/cookies" -o /dev/null -w '%{http_code}' \
    --data-urlencode "login=$coach" --data-urlencode "password=benchmark password 1" "$portal/sign-in")
[ "$status" = 303 ] || { echo "signing in to the portal answered $status" >&2; exit 1; }
cookie="__Host-spotter_session=$(awk '$6 == "__Host-spotter_session" { print $7 }' "$cluster/cookies")"

# check PATH TEXT COUNT: the page answers 200 and shows TEXT at least COUNT times.
check() {
    local body
    body=$(curl -sk -b "$cookie" "$portal$1")
    local found; found=$(grep -o "$2" <<< "$body" | wc -l)
    if [ "$found" -lt "$3" ]; then
        echo "$1 shows \"$2\" $found times, not $3" >&2
        exit 1
    fi
    echo "  $1: $found × $2"
}
list="/clients"
progress="/clients/$client/progress?exercise=c0000000-0000-4000-8000-000000000001"
check "$list" 'href="/clients/[0-9a-f-]*"' "$clients"
check "$progress" "<circle class='point'" 150

# bench NAME PATH: wrk's figures for PATH, DURATION seconds at each concurrency (one connection
# per request in flight, kept alive), after a 3-second warm-up.
bench() {
    local name=$1 path=$2 c
    for c in $concurrency; do
        local threads=$(( c < 2 ? c : 2 ))
        wrk -t "$threads" -c "$c" -d 3s -H "Cookie: $cookie" "$portal$path" > /dev/null
        wrk -t "$threads" -c "$c" -d "${duration}s" --latency -H "Cookie: $cookie" "$portal$path" > "$cluster/wrk.out"
        if grep -qE '^ *(Non-2xx|Socket errors)' "$cluster/wrk.out"; then
            cat "$cluster/wrk.out"
            exit 1
        fi
        awk -v name="$name" -v c="$c" '
            / requests in / { n = $1 }
            /^Requests\/sec/ { rate = $2 }
            /^ *50%/ { p50 = $2 } /^ *90%/ { p90 = $2 } /^ *99%/ { p99 = $2 }
            /^ *Latency / && !max { max = $4 }
            END {
                printf "page=%s concurrency=%d requests=%d\n", name, c, n
                printf "  throughput %.0f pages/s\n  latency p50 %s  p90 %s  p99 %s  max %s\n", rate, p50, p90, p99, max
            }' "$cluster/wrk.out"
    done
}
echo "==> measuring"
bench "client list ($clients clients)" "$list"
bench "progress (a year, squat)" "$progress"
