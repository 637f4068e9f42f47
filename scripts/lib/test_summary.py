#!/usr/bin/env python3
"""Reads the output of `swift test` and prints, as the last lines of a run, which tests failed with
the first issue each recorded, the tests a crash cut short, and one closing count line:

    test_summary.py LOG EXIT_STATUS

A CI log keeps only its tail, so these lines are what a reader of a failed run sees first. Exits
with 1 when anything failed (or swift test exited non-zero), 0 otherwise.
"""

import re
import sys

# Swift Testing's console lines (the symbols it uses when not on a terminal).
STARTED = re.compile(r'^◇ Test "(.*)" started\.$')
PASSED = re.compile(r'^✔ Test "(.*)"(?: with \d+ test cases?)? passed after ')
FAILED = re.compile(r'^✘ Test "(.*)"(?: with \d+ test cases?)? failed after ')
SKIPPED = re.compile(r'^➜ Test "(.*)" skipped')
ISSUE = re.compile(r'^✘ Test "(.*?)" recorded an issue (?:with \d+ arguments? .*? )?at (.*)$')
# XCTest's.
# Swift Testing's closing line, with its own count of the tests it ran.
RUN = re.compile(r'^[✔✘] Test run with (\d+) tests? ')
XC_PASSED = re.compile(r"^Test Case '(.*)' passed")
XC_FAILED = re.compile(r"^Test Case '(.*)' failed")
XC_ISSUE = re.compile(r"^(.*?:\d+): error: (-\[.*?\]|\S+) : (.*)$")


def main():
    log, status = sys.argv[1], int(sys.argv[2])
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = [line.rstrip("\n") for line in f]

    started, passed, failed, skipped, issues, total = [], set(), [], 0, {}, None
    for line in lines:
        if m := RUN.match(line):
            total = int(m.group(1))
        elif m := STARTED.match(line):
            started.append(m.group(1))
        elif (m := PASSED.match(line)) or (m := XC_PASSED.match(line)):
            passed.add(m.group(1))
        elif (m := FAILED.match(line)) or (m := XC_FAILED.match(line)):
            failed.append(m.group(1))
        elif SKIPPED.match(line):
            skipped += 1
        elif m := ISSUE.match(line):
            issues.setdefault(m.group(1), m.group(2))
        elif m := XC_ISSUE.match(line):
            issues.setdefault(m.group(2), f"{m.group(1)}: {m.group(3)}")
    unfinished = [name for name in dict.fromkeys(started) if name not in passed and name not in failed]

    def short(text, limit=300):
        return text if len(text) <= limit else text[:limit] + " …"

    print()
    if failed:
        print(f"==> {len(failed)} failed:")
        for name in failed:
            print(f"  ✘ {short(name, 160)}")
            if name in issues:
                print(f"      {short(issues[name])}")
    if status != 0 and unfinished:
        print(f"==> swift test stopped (exit status {status}) while these were running:")
        for name in unfinished:
            print(f"  … {short(name, 160)}")
    if status != 0 and not failed and not unfinished:
        print(f"==> swift test exited with status {status}; its last lines:")
        for line in lines[-15:]:
            print(f"  {short(line)}")
    failures = len(failed) + (len(unfinished) if status != 0 else 0)
    if status != 0 and failures == 0:
        failures = 1
    # Tests' own lines can be missing from a log (and two tests may share a name); Swift Testing's
    # closing count is the one to trust when the run got that far.
    passes = len(passed) if total is None else max(0, total - len(failed) - skipped)
    print(f"tests: {passes} passed, {failures} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
