#!/usr/bin/env bash
# Discover at scale (Benchmarks/README.md "Discover"): a throwaway database migrated by spotterctl,
# filled by Benchmarks/discover.sql with 10,000 publications, then the store's queries timed.
#
#   PGHOST=/tmp/… PGPORT=55432 PGUSER=postgres Benchmarks/discover.sh [path to spotterctl]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spotterctl=${1:-$root/.build/debug/spotterctl}
. "$root/Benchmarks/lib.sh"
migrated_database spotter_discover_bench "$spotterctl"
psql -q -d "$database" -f "$root/Benchmarks/discover.sql" | grep -E '^(==|Time:)|recounted|visible|^ *[0-9]+$'
