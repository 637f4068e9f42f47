#!/usr/bin/env bash
# Does spotterd's memory stay flat under a long mixed load? Starts a throwaway PostgreSQL cluster
# and spotterd on 127.0.0.1, then runs four spotter-load processes at once for MINUTES — logging
# workouts, history pages, progress, a coach reading clients' history — each repeating CALLS calls
# (a report each time), and samples spotterd's RSS every SAMPLE seconds. At the end: the RSS once
# everything is warm (after WARM minutes), the highest and the last, and the growth between.
#
#   Benchmarks/soak.sh                  # 60 minutes
#   MINUTES=10 WARM=2 Benchmarks/soak.sh
#
# Settings (environment): MINUTES (60), WARM (minutes before the reference sample, 5), SAMPLE
# (seconds between samples, 30), CALLS (calls per report, 2000), BIN (the directory with spotterd
# and spotter-load; default: build them in release mode).
# Bounded: the load processes stop by themselves after MINUTES (plus their last report), and the
# script stops spotterd and the cluster on exit, whatever happens.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

minutes=${MINUTES:-60}
warm=${WARM:-5}
sample=${SAMPLE:-30}
calls=${CALLS:-2000}
port=${PG_PORT:-55470}
grpc_port=${GRPC_PORT:-50571}

install_system_packages
release_binaries

bench_cluster spotter-soak $port 200
echo "==> PostgreSQL in $cluster (defaults: fsync on, synchronous_commit on)"

echo "==> spotterd on 127.0.0.1:$grpc_port"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port"
load=("$bin/spotter-load" --port "$grpc_port" --certificate "$data/tls/dev-cert.pem" --prefix soak
      --warmup 0 --seconds $((minutes * 60)))
rss_mb() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status"; }
echo "==> idle RSS: $(rss_mb) MB"

echo "==> $minutes minutes of log (3 in flight), history (2), progress (1) and coach-history (2) at once"
pids=()
"${load[@]}" --scenario log --calls "$calls" --concurrency 3 > "$cluster/log.out" 2>&1 & pids+=($!)
"${load[@]}" --scenario history --calls "$calls" --concurrency 2 > "$cluster/history.out" 2>&1 & pids+=($!)
"${load[@]}" --scenario progress --calls $((calls / 10)) --concurrency 1 > "$cluster/progress.out" 2>&1 & pids+=($!)
"${load[@]}" --scenario coach-history --calls $((calls / 2)) --concurrency 2 > "$cluster/coach.out" 2>&1 & pids+=($!)

start=$(date +%s)
samples=()
reference=
running() { for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done; return 1; }
while running; do
    sleep "$sample"
    elapsed=$(( $(date +%s) - start ))
    rss=$(rss_mb)
    samples+=("$rss")
    [ -z "$reference" ] && [ "$elapsed" -ge $((warm * 60)) ] && reference=$rss
    printf "  %5.1f min: spotterd RSS %s MB\n" "$(awk -v s="$elapsed" 'BEGIN { print s / 60 }')" "$rss"
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for name in log history progress coach; do
    reports=$(grep -c '^  throughput' "$cluster/$name.out" || true)
    errors=$(awk '/^  errors/ { total += $2 } END { print total + 0 }' "$cluster/$name.out")
    rates=$(awk '/^  throughput/ { print $2 }' "$cluster/$name.out" | sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%s–%s", a[1], a[NR] }')
    echo "  $name: $reports reports of calls/s $rates, errors $errors"
    [ "$errors" = 0 ] || status=1
done
[ "$status" = 0 ] || { tail -20 "$cluster"/*.out; echo "a load process failed" >&2; exit 1; }
printf '%s\n' "${samples[@]}" | awk -v ref="${reference:-${samples[0]}}" -v warm="$warm" '
    { if ($1 > high) high = $1; last = $1 }
    END { printf "==> RSS after %d minutes %.1f MB, highest %.1f MB, last %.1f MB: %+.1f MB (%+.1f %%) from then to the last\n",
          warm, ref, high, last, last - ref, (last - ref) / ref * 100 }'
