#!/usr/bin/env python3
"""Reads the output of `swift test` and prints, as the last lines of a run, which tests failed with
the first issue each recorded, the tests a crash cut short, and one closing count line:

    test_summary.py LOG EXIT_STATUS [XUNIT]

XUNIT, Swift Testing's JUnit XML report (`swift test --xunit-output`), is the record to trust when
it is there: a console log can miss lines (a CI log once lacked 71 of 495 tests' "passed" lines),
the report names every test and every failure with its message.

A CI log keeps only its tail, so these lines are what a reader of a failed run sees first. Exits
with 1 when anything failed (or swift test exited non-zero), 0 otherwise.
"""

import re
import sys
import xml.etree.ElementTree as ElementTree

# Swift Testing's console lines (the symbols it uses when not on a terminal).
STARTED = re.compile(r'^◇ Test "(.*)" started\.$')
PASSED = re.compile(r'^✔ Test "(.*)"(?: with \d+ test cases?)? passed after ')
FAILED = re.compile(r'^✘ Test "(.*)"(?: with \d+ test cases?)? failed after ')
SKIPPED = re.compile(r'^➜ Test "(.*)" skipped')
ISSUE = re.compile(r'^✘ Test "(.*?)" recorded an issue (?:with \d+ arguments? .*? )?at (.*)$')
# Swift Testing's closing line, with its own count of the tests it ran.
RUN = re.compile(r'^[✔✘] Test run with (\d+) tests? ')
# XCTest's.
XC_PASSED = re.compile(r"^Test Case '(.*)' passed")
XC_FAILED = re.compile(r"^Test Case '(.*)' failed")
XC_ISSUE = re.compile(r"^(.*?:\d+): error: (-\[.*?\]|\S+) : (.*)$")


def xunit_results(path):
    """(tests, failures as (name, message), skipped) from a JUnit XML report; None without one."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return None
    tests, failures, skipped = 0, [], 0
    for suite in root.iter("testsuite"):
        tests += int(suite.get("tests", "0"))
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}.{case.get('name', '')}"
        for failure in list(case.findall("failure")) + list(case.findall("error")):
            failures.append((name, (failure.get("message") or failure.text or "").strip()))
        if case.find("skipped") is not None:
            skipped += 1
    return tests, failures, skipped


def main():
    log, status = sys.argv[1], int(sys.argv[2])
    report = xunit_results(sys.argv[3]) if len(sys.argv) > 3 else None
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
    reported = report[1] if report is not None else []
    if len(reported) > len(failed):
        print(f"==> {len(reported)} failed, by the XML report:")
        for name, message in reported:
            print(f"  ✘ {short(name, 160)}")
            if message:
                print(f"      {short(message)}")
    if status != 0 and not failed and not unfinished and not reported:
        print(f"==> swift test exited with status {status}; its last lines:")
        for line in lines[-15:]:
            print(f"  {short(line)}")
    failures = max(len(failed), len(reported)) + (len(unfinished) if status != 0 else 0)
    if status != 0 and failures == 0:
        failures = 1
    if report is not None:
        tests, _, skipped = report
        passes = max(0, tests - len(reported) - skipped)
    else:
        # Tests' own lines can be missing from a log (and two tests may share a name); Swift
        # Testing's closing count is the one to trust when the run got that far.
        passes = len(passed) if total is None else max(0, total - len(failed) - skipped)
    print(f"tests: {passes} passed, {failures} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
