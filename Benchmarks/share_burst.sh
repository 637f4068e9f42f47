#!/usr/bin/env bash
# A burst of PNG share cards and a plain read timed meanwhile (Benchmarks/share_burst.py), against
# a release spotterd on a throwaway cluster. RENDERS (default 100) cards at once; BIN as in run.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
. Benchmarks/lib.sh

install_system_packages
release_binaries
bench_cluster spotter-share 55470 100
start_bench_spotterd "$bin/spotterd" 55470 50570
python_venv "$root/.venv-tests" Tests/requirements.txt
"$root/.venv-tests/bin/python" Benchmarks/share_burst.py --target 127.0.0.1:50570 \
    --ca "$data/tls/dev-cert.pem" --renders "${RENDERS:-100}"
