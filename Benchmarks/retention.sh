#!/usr/bin/env bash
# Credential retention and a lifter's erasure at scale (Benchmarks/README.md "Retention"): a throwaway
# database migrated by spotterctl, filled and timed by Benchmarks/retention.sql.
#
#   PGHOST=/tmp/… PGPORT=55432 PGUSER=postgres Benchmarks/retention.sh [path to spotterctl]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spotterctl=${1:-$root/.build/debug/spotterctl}
. "$root/Benchmarks/lib.sh"
migrated_database spotter_retention_bench "$spotterctl"
psql -q -d "$database" -f "$root/Benchmarks/retention.sql" |
    grep -E '^(==|Time:)|^ *[0-9]+ *\||assignments_lifter|Execution|^ *sessions' | grep -vE '^Time: 0\.[0-9]+ ms$'
