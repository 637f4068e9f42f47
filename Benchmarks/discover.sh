#!/usr/bin/env bash
# Discover at scale (Benchmarks/README.md "Discover"): a throwaway database migrated by spotterctl,
# filled by Benchmarks/discover.sql with 10,000 publications, then the store's queries timed.
#
#   PGHOST=/tmp/… PGPORT=55432 PGUSER=postgres Benchmarks/discover.sh [path to spotterctl]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spotterctl=${1:-$root/.build/debug/spotterctl}
database=spotter_discover_bench
psql -qAt -d postgres -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
trap '[ -n "${KEEP:-}" ] || psql -qAt -d postgres -c "DROP DATABASE IF EXISTS $database"' EXIT
SPOTTER_DATABASE_URL="host=${PGHOST:-localhost} port=${PGPORT:-5432} user=${PGUSER:-postgres} dbname=$database" \
    "$spotterctl" migrate apply > /dev/null
psql -q -d "$database" -f "$root/Benchmarks/discover.sql" | grep -E '^(==|Time:)|recounted|visible|^ *[0-9]+$'
