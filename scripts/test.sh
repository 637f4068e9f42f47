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

port=55432
make_cluster_dir spotter-test-pg
trap 'stop_cluster immediate' EXIT

echo "==> starting PostgreSQL for the tests in $cluster"
# fsync off: a test cluster is thrown away, and this halves the suite's time.
start_cluster $port "-c fsync=off -c max_connections=300"
export SPOTTER_TEST_DATABASE_URL="host=$cluster port=$port user=postgres dbname=postgres"

echo "==> building"
swift build --build-tests
echo "==> testing"
swift test --skip-build "$@"
