#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target into Tests/Fuzz/corpus/<target>/ (committed): valid
requests serialized as the server receives them, and text cells and tokens as they appear. Run it
again after a request message changes: `.venv/bin/python Tests/Fuzz/make_seeds.py`."""

import base64
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import spotter_client  # noqa: E402

from google.protobuf import json_format  # noqa: E402

SQUAT = "c0000000-0000-4000-8000-000000000001"
HOUR_AGO = str((1_800_000_000 - 3600) * 1_000_000)
WORKOUT = {"name": "Seed", "started_at": {"unix_micros": HOUR_AGO}, "duration_seconds": 3600, "notes": "n",
           "exercises": [{"exercise_id": SQUAT, "notes": "e", "sets": [
               {"reps": 5, "weight": {"value": 100, "unit": "WEIGHT_UNIT_KG"}, "rpe": 8, "rest_seconds": 120},
               {"reps": 3, "weight": {"value": 225, "unit": "WEIGHT_UNIT_LB"}, "note": "top", "type": "SET_TYPE_WARM_UP"}]}]}
TEMPLATE = {"name": "Seed", "notes": "t", "items": [
    {"exercise_id": SQUAT, "target_sets": 3, "reps_min": 5, "reps_max": 8, "target_rpe": 8, "rest_seconds": 120}]}


def token(*parts):
    return base64.urlsafe_b64encode("\n".join(parts).encode()).decode().rstrip("=")


def main():
    s = spotter_client.load_stubs()
    out = ROOT / "Tests" / "Fuzz" / "corpus"

    def write(target, name, data):
        directory = out / target
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data if isinstance(data, bytes) else data.encode())

    def message(cls, value):
        return json_format.ParseDict(value, cls()).SerializeToString()

    write("workout", "log", message(s.workout.LogWorkoutRequest,
                                    {"workout_id": "5e1f0000-0000-4000-8000-000000000001", "workout": WORKOUT}))
    write("workout", "empty", b"")
    write("template", "create", message(s.template.CreateTemplateRequest, {"template": TEMPLATE}))
    write("program", "create", message(s.coaching.CreateProgramRequest, {"program": {
        "name": "Seed", "notes": "p", "weeks": 2, "days": [
            {"week": 1, "weekday": 1, "template_id": "5e1f0000-0000-4000-8000-000000000002"},
            {"week": 2, "weekday": 4, "template_id": "5e1f0000-0000-4000-8000-000000000002"}]}}))
    write("push", "two", message(s.sync.PushRequest, {
        "device_id": "5e1f0000-0000-4000-8000-000000000003", "mutations": [
            {"mutation_id": "1", "kind": "SYNC_KIND_WORKOUT", "object_id": "5e1f0000-0000-4000-8000-000000000004",
             "workout": WORKOUT},
            {"mutation_id": "2", "kind": "SYNC_KIND_TEMPLATE", "object_id": "5e1f0000-0000-4000-8000-000000000005",
             "base_version": "1", "template": TEMPLATE},
            {"mutation_id": "3", "kind": "SYNC_KIND_PROFILE", "object_id": "5e1f0000-0000-4000-8000-000000000006",
             "profile": {"display_name": "Ada", "time_zone": "Europe/Berlin", "unit": "WEIGHT_UNIT_LB"}},
            {"mutation_id": "4", "kind": "SYNC_KIND_WORKOUT", "object_id": "5e1f0000-0000-4000-8000-000000000004",
             "delete": True}]}))
    write("tokens", "sync", token("sync", "42", "0", "01020304-0506-0708-090a-0b0c0d0e0f10"))
    write("tokens", "sync-legacy", token("sync", "42", "17"))
    write("tokens", "history", token("history", str(int(time.time()) * 1_000_000),
                                     "5e1f0000-0000-4000-8000-000000000001"))
    write("tokens", "name", token("name", "Squat day", "5e1f0000-0000-4000-8000-000000000002"))
    for index, cell in enumerate(["t", "f", "42", "-9223372036854775808", "1.5e308", "NaN", "-0.25", "123.456",
                                  "2026-11-24 01:02:03.456789+00", "1999-12-31 23:59:59+05:30", "infinity",
                                  "5e1f0000-0000-4000-8000-000000000001", "\\x00ff10", ""]):
        write("rows", f"cell{index:02}", cell)
    print(f"seeds written under {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
