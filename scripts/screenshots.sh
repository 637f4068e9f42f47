#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png, the coach portal's main pages that the README shows: runs the
# real-browser test (Tests/Interop/portal_browser.py, headless Chromium) through scripts/test.sh,
# which installs what is missing and starts a throwaway PostgreSQL, with SPOTTER_PORTAL_SCREENSHOTS
# set. The pages show the demo data of Tests/SpotterTestSupport/PortalDemo.swift.
#
#   scripts/screenshots.sh          # then look at them, and commit docs/screenshots
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shots="$root/docs/screenshots"
rm -rf "$shots"
mkdir -p "$shots"
SPOTTER_PORTAL_SCREENSHOTS="$shots" "$root/scripts/test.sh" --filter PortalBrowserTests
echo "==> $(ls "$shots" | wc -l) screenshots in docs/screenshots"
