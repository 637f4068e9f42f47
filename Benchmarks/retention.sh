#!/usr/bin/env bash
# Credential retention and a lifter's erasure at scale (Benchmarks/README.md "Retention"): a throwaway
# database migrated by spotterctl, filled and timed by Benchmarks/retention.sql.
#
#   PGHOST=/tmp/… PGPORT=55432 PGUSER=postgres Benchmarks/retention.sh [path to spotterctl]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spotterctl=${1:-$root/.build/debug/spotterctl}
database=spotter_retention_bench
psql -qAt -d postgres -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
trap '[ -n "${KEEP:-}" ] || psql -qAt -d postgres -c "DROP DATABASE IF EXISTS $database"' EXIT
SPOTTER_DATABASE_URL="host=${PGHOST:-localhost} port=${PGPORT:-5432} user=${PGUSER:-postgres} dbname=$database" \
    "$spotterctl" migrate apply > /dev/null
psql -q -d "$database" -f "$root/Benchmarks/retention.sql" |
    grep -E '^(==|Time:)|^ *[0-9]+ *\||assignments_lifter|Execution|^ *sessions' | grep -vE '^Time: 0\.[0-9]+ ms$'
