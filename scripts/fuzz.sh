#!/usr/bin/env bash
# Fuzzes what every request with user content goes through before the database (protobuf decoding,
# the NUL check, mapping and validation of workouts, templates, programs and sync pushes; page
# tokens and sync cursors) and the libpq row decoders, with libFuzzer and the address sanitizer.
#
#   scripts/fuzz.sh                      # every target, 1,000,000 inputs each
#   RUNS=100000 TARGETS="push tokens" scripts/fuzz.sh
#
# Builds spotter-fuzz in release mode with -sanitize=fuzzer,address into .build-fuzz (the first build
# takes several minutes; CI never runs this). Starts each target from its committed seeds in
# Tests/Fuzz/corpus/<target> and keeps what it finds in .build-fuzz/corpus/<target>; a crash is
# written to .build-fuzz/crashes/ and stops the run. Add a crash's input to the corpus: the test
# suite replays every corpus file (FuzzCorpusTests), so it stays a test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/lib/setup.sh
install_system_packages

runs=${RUNS:-1000000}
targets=${TARGETS:-workout template program push tokens rows}
scratch="$root/.build-fuzz"
echo "==> building spotter-fuzz with libFuzzer and the address sanitizer"
swift build -c release --scratch-path "$scratch" --product spotter-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/spotter-fuzz
mkdir -p "$scratch/crashes"

summary=()
for target in $targets; do
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    log="$scratch/$target.log"
    echo "==> $target: $runs inputs"
    started=$(date +%s)
    if ! SPOTTER_FUZZ_TARGET=$target "$bin" -runs="$runs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$scratch/crashes/$target-" \
        "$corpus" "Tests/Fuzz/corpus/$target" >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz: $target FAILED; the input is in $scratch/crashes/"
        exit 1
    fi
    seconds=$(( $(date +%s) - started ))
    done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -1)
    executed=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}')
    coverage=$(echo "$done_line" | sed -E 's/.*cov: ([0-9]+).*/\1/')
    line="$target: $executed inputs in ${seconds}s, no crash, coverage $coverage edges, corpus $(ls "$corpus" | wc -l) files"
    echo "$line"
    summary+=("$line")
done
echo "==> summary"
printf '%s\n' "${summary[@]}"
