#!/usr/bin/env bash
# Sets up what is missing on a Debian machine, starts a throwaway PostgreSQL cluster, builds
# Spotter and runs the whole test suite against it; stops and removes the cluster afterwards. The
# last lines it prints name each failed test with its first issue, then "tests: N passed, N failed".
#
#   scripts/test.sh                 # everything
#   scripts/test.sh --filter RLS    # extra arguments go to `swift test`
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh

install_system_packages
install_browser_packages
# The tests' Python helpers (grpcio client, SMTP server) run from their own virtual environment.
python_venv "$root/.venv-tests" Tests/requirements.txt
export VIRTUAL_ENV="$root/.venv-tests" PATH="$root/.venv-tests/bin:$PATH"

port=55432
make_cluster_dir spotter-test-pg
trap 'stop_cluster immediate' EXIT

echo "==> starting PostgreSQL for the tests in $cluster"
# fsync off: a test cluster is thrown away, and this halves the suite's time. Suites run in
# parallel, each with its own database and pools: at the start of a run they can hold more than
# 300 connections at once ("too many clients already" was seen on a fresh clone).
start_cluster $port "-c fsync=off -c max_connections=1000"
export SPOTTER_TEST_DATABASE_URL="host=$cluster port=$port user=postgres dbname=postgres"

log=$(mktemp /tmp/spotter-test-output.XXXXXX)
report=$(mktemp -d /tmp/spotter-test-report.XXXXXX)
trap 'stop_cluster immediate; rm -rf "$log" "$report"' EXIT
echo "==> building"
if ! swift build --build-tests 2>&1 | tee "$log"; then
    echo
    echo "==> the build failed:"
    grep -E 'error:' "$log" | sort -u | head -n 15 | sed 's/^/  /'
    exit 1
fi
echo "==> testing"
status=0
# swift test writes to a file, which a follower prints as it grows, and its JUnit XML report, which
# the summary trusts: console lines were lost, through a pipe (a CI log held 441 tests' "passed"
# lines of 493) and, less often, through the file (424 of 495).
# At most 8 tests run at once (SPOTTER_TEST_PARALLELISM): Swift Testing otherwise starts all ~500
# together, and on two cores tests whose own deadlines start with them (a 20 s HTTP read, a 30 s
# statement, a 10 s call) failed now and then while hundreds shared the machine. A whole run takes
# as long either way here (141 s at 8, 130-169 s unbounded).
swift test --skip-build --experimental-maximum-parallelization-width "${SPOTTER_TEST_PARALLELISM:-8}" \
    --xunit-output "$report/results.xml" "$@" > "$log" 2>&1 &
tests=$!
tail --pid=$tests -n +1 -f "$log" &
follower=$!
wait $tests || status=$?
wait $follower || true
python3 scripts/lib/test_summary.py "$log" "$status" "$report/results-swift-testing.xml"
