#!/usr/bin/env bash
# Sets up what is missing on a Debian machine, builds Spotter and runs spotterd in the foreground.
# With no SPOTTER_DATABASE_URL it runs on an embedded private PostgreSQL under SPOTTER_DATA_DIR
# (default /var/lib/spotter as root, ~/.local/share/spotter otherwise). Stop it with Ctrl-C.
#
#   scripts/run.sh                       # debug build, port 8443
#   SPOTTER_BUILD=release scripts/run.sh # optimized build (slower to compile)
#   scripts/run.sh --port 9443           # extra arguments go to spotterd
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh

install_system_packages
# The Python client of the README (scripts/spotter_client.py) runs from .venv.
python_venv "$root/.venv" scripts/requirements.txt
configuration=${SPOTTER_BUILD:-debug}
echo "==> building spotterd and spotterctl ($configuration)"
swift build -c "$configuration" --product spotterd
swift build -c "$configuration" --product spotterctl
bin=$(swift build -c "$configuration" --show-bin-path)
echo "==> starting spotterd (spotterctl is at $bin/spotterctl)"
exec "$bin/spotterd" "$@"
