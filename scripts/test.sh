#!/usr/bin/env bash
# Sets up what is missing on a Debian machine, starts a throwaway PostgreSQL cluster, builds
# Spotter and runs the whole test suite against it; stops and removes the cluster afterwards.
#
#   scripts/test.sh                 # everything
#   scripts/test.sh --filter RLS    # extra arguments go to `swift test`
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh

install_system_packages
install_python_packages

pg_bin=$(postgres_bin_dir)
cluster=$(mktemp -d /tmp/spotter-test-pg.XXXXXX)
chmod 755 "$cluster"
port=55432
run_as_pg=()
if [ "$(id -u)" = 0 ]; then
    ensure_postgres_user
    chown postgres:postgres "$cluster"
    run_as_pg=(runuser -u postgres --)
fi
cleanup() {
    "${run_as_pg[@]}" "$pg_bin/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$cluster"
}
trap cleanup EXIT

echo "==> starting PostgreSQL for the tests in $cluster"
"${run_as_pg[@]}" "$pg_bin/initdb" -D "$cluster/data" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
# fsync off: a test cluster is thrown away, and this halves the suite's time.
"${run_as_pg[@]}" "$pg_bin/pg_ctl" -D "$cluster/data" -l "$cluster/postgres.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$cluster' -c port=$port -c fsync=off -c max_connections=300" \
    start >/dev/null
export SPOTTER_TEST_DATABASE_URL="host=$cluster port=$port user=postgres dbname=postgres"

echo "==> building"
swift build --build-tests
echo "==> testing"
swift test --skip-build "$@"
