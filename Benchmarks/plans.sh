#!/usr/bin/env bash
# Which statements does PostgreSQL plan afresh on (nearly) every call? Runs spotterd on a throwaway
# cluster with pg_stat_statements (planning tracked), has Benchmarks/plans.py call the read RPCs a
# lifter's app and the lifter's coach make and the edits an app sends, each CALLS times (and sync
# pulls), then prints every statement planned on more than half of its calls, with its planning and
# running time, and the busiest statements' counts. Builds spotterd in release mode (or takes it
# from BIN). Bounded: CALLS calls per read or edit.
#
#   Benchmarks/plans.sh              # CALLS=120
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

calls=${CALLS:-120}
port=55452
grpc_port=50592

install_system_packages
python_venv "$root/.venv-tests" Tests/requirements.txt
release_binaries

make_cluster_dir spotter-plans-bench
server_pid=
trap stop_bench EXIT
start_cluster "$port" "-c max_connections=100 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on"
psql=("${run_as_pg[@]}" psql -h "$cluster" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
"${psql[@]}" -c "CREATE DATABASE spotter"
"${psql[@]}" -d spotter -c "CREATE EXTENSION pg_stat_statements"
start_bench_spotterd "$bin/spotterd" "$port" "$grpc_port"

plans=("$root/.venv-tests/bin/python" Benchmarks/plans.py --target "127.0.0.1:$grpc_port" --ca "$data/tls/dev-cert.pem")
"${plans[@]}" --phase seed
# The coach's progress and statistics reads need a paid coach tier.
"${psql[@]}" -d spotter -c "UPDATE tenants SET tier = 'coach_pro' WHERE tenant_id =
    (SELECT tenant_id FROM accounts WHERE username = 'planscoach')"
"${psql[@]}" -d spotter -c "SELECT pg_stat_statements_reset()" > /dev/null
"${plans[@]}" --phase read --calls "$calls"

statements="FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'spotter')"
echo "==> statements planned on more than half of their calls (at least 50 calls):"
"${psql[@]}" -d spotter -At -c "
    SELECT format('%s calls, %s plans, %s ms to plan, %s ms to run:', calls, plans,
                  round((total_plan_time / plans)::numeric, 3), round((total_exec_time / calls)::numeric, 3))
           || E'\n    ' || left(regexp_replace(query, '\s+', ' ', 'g'), 400)
    $statements AND calls >= 50 AND plans > calls / 2 ORDER BY total_plan_time DESC" > "$cluster/replanned"
if [ -s "$cluster/replanned" ]; then sed 's/^/  /' "$cluster/replanned"; else echo "  none"; fi
echo "==> the statements with the most calls: calls, plans, ms to plan, ms to run"
"${psql[@]}" -d spotter -At -F ' | ' -c "
    SELECT calls, plans, round((total_plan_time / nullif(plans, 0))::numeric, 3),
           round((total_exec_time / calls)::numeric, 3), left(regexp_replace(query, '\s+', ' ', 'g'), 100)
    $statements AND calls > 0 ORDER BY calls DESC LIMIT 25" | sed 's/^/  /'
