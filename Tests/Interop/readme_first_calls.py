#!/usr/bin/env python3
"""Follows the README's "A first call from outside" as a newcomer would, against a running spotterd:
creates a clean virtual environment, installs into it exactly what the README's `pip install` line
names, then runs every command of the section's shell blocks as written (with that environment's
bin/ first on PATH) and compares each answer with the README's `# {...}` line under it.

    readme_first_calls.py --port PORT --data-dir SPOTTER_DATA_DIR --venv NEW_DIRECTORY

Run by SpotterServerTests against a spotterd it started on an embedded PostgreSQL. The README's
access token placeholder (`spa_…`) stands for the token of the README's own sign-in. Exits 0 when
every command succeeded and answered what the README shows; prints one line per command.
"""

import argparse
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SECTION = "## A first call from outside"


def section(readme):
    text = readme.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start:end if end >= 0 else None]


def shell_blocks(text):
    """The commands of the section's ```sh blocks, each with the `#` lines that follow it."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        pending = ""
        for line in block.splitlines():
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                if line.lstrip().startswith("#") and commands:
                    commands[-1]["expected"].append(line.lstrip()[1:].strip())
                continue
            pending += line + "\n"
            try:
                complete = not pending.rstrip().endswith("\\") and shlex.split(pending, comments=True) is not None
            except ValueError:  # an open quotation: the command goes on
                complete = False
            if complete:
                commands.append({"command": pending.strip(), "expected": []})
                pending = ""
    return commands


def pairs(value):
    """Every (key, value) pair anywhere in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from pairs(item)
    elif isinstance(value, list):
        for item in value:
            yield from pairs(item)


def mismatches(expected_lines, output):
    """What the README's comment shows that the answer lacks: every key it names, and every value
    it writes out in full (strings and numbers; `…` marks what the README leaves out)."""
    expected = " ".join(line for line in expected_lines if line.startswith("{"))
    if not expected:
        return []
    answer = list(pairs(json.loads(output)))
    keys = {key for key, _ in answer}
    problems = []
    for key, literal in re.findall(r'"(\w+)":\s*("[^"…]*"|-?[0-9.]+(?=[\s,}]))?', expected):
        if key not in keys:
            problems.append(f'no "{key}" in the answer')
        elif literal:
            value = json.loads(literal)
            if not any(k == key and (v == value or (isinstance(v, float) and abs(v - value) < 1e-9))
                       for k, v in answer):
                problems.append(f'"{key}" is not {literal}')
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--venv", required=True)
    parser.add_argument("--readme", default=str(ROOT / "README.md"))
    args = parser.parse_args()

    commands = shell_blocks(section(pathlib.Path(args.readme)))
    install = next((c["command"] for c in commands if "pip install" in c["command"]), None)
    if install is None:
        print(f"FAIL the README's section {SECTION!r} has no `pip install` line")
        return 1
    packages = shlex.split(install.split("pip install", 1)[1].split("&&")[0])
    venv = pathlib.Path(args.venv)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *packages], check=True, cwd=ROOT)
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "freeze"], capture_output=True,
                               text=True, check=True).stdout.split()
    print(f"clean environment with `pip install {' '.join(packages)}`: {' '.join(installed)}")

    environment = dict(os.environ)
    environment.update(PATH=f"{venv / 'bin'}:{os.environ['PATH']}", VIRTUAL_ENV=str(venv),
                       SPOTTER_DATA_DIR=args.data_dir, SPOTTER_GRPC_PORT=str(args.port),
                       SPOTTER_PORTAL_PORT="0")
    environment.pop("PYTHONPATH", None)
    token = None
    failures = 0
    for entry in commands:
        command = readme_line = entry["command"]
        assignment = re.fullmatch(r"(\w+)=spa_…(\s+#.*)?", command)
        if assignment:
            environment[assignment.group(1)] = token or ""
            continue
        if not command.startswith("scripts/"):
            continue
        if "spa_…" in command:
            command = command.replace("spa_…", token or "")
        result = subprocess.run(["bash", "-c", command], cwd=ROOT, env=environment, capture_output=True, text=True,
                                timeout=120)
        first_line = readme_line.splitlines()[0]
        problems = [f"exit status {result.returncode}: {result.stderr.strip()}"] if result.returncode else []
        if not problems:
            try:
                problems = mismatches(entry["expected"], result.stdout)
                if "sign-in" in command:
                    token = json.loads(result.stdout)["access_token"]
            except (ValueError, KeyError) as error:
                problems = [f"the answer is not the JSON the README shows ({error}): {result.stdout[:200]}"]
        print(("ok   " if not problems else "FAIL ") + first_line + "".join(f"\n       {p}" for p in problems))
        failures += bool(problems)
    ran = sum(1 for c in commands if c["command"].startswith("scripts/"))
    print(f"readme: {ran - failures} of {ran} commands answered as the README shows")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
