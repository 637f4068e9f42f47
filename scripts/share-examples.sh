#!/usr/bin/env bash
# Regenerates docs/share/: the example workout card and progress chart, as SVG and as PNG rendered
# by rsvg-convert, from the fixtures the share image tests draw (Tests/SpotterTestSupport/ShareFixtures.swift).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
install_system_packages
mkdir -p docs/share
SPOTTER_SHARE_EXAMPLES="$root/docs/share" swift test --filter ShareImageTests
ls -l docs/share
