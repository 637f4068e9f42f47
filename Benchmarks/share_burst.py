"""A burst of PNG share cards against a running spotterd, and a plain read timed meanwhile: does the
burst hold up other calls? Registers a lifter, logs a workout, asks for --renders PNG cards of it at
once (one thread each), and calls GetWorkout one call after another until every card has answered.
Prints the cards' times and refusals and the reads' median and maximum.

    share_burst.py --target 127.0.0.1:50570 --ca <data dir>/tls/dev-cert.pem [--renders 100]

Benchmarks/share_burst.sh starts a throwaway cluster and spotterd for it.
"""

import argparse
import json
import pathlib
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts"))
import spotter_client  # noqa: E402

SQUAT = "c0000000-0000-4000-8000-000000000001"
PNG = 2  # IMAGE_FORMAT_PNG


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--renders", type=int, default=100, help="PNG cards asked for at once (default 100)")
    args, s, ch = spotter_client.connect(parser)
    name = f"burst{int(time.time())}"
    token = spotter_client.register_and_sign_in(ch, s, name, "correct horse battery staple 9").access_token
    started = int(time.time() * 1e6) - 3600 * 1_000_000
    workout = spotter_client.call_method(ch, "spotter.v1.WorkoutService/LogWorkout", json.dumps({
        "workout": {"name": "Squat day", "startedAt": {"unixMicros": str(started)}, "durationSeconds": 3600,
                    "exercises": [{"exerciseId": SQUAT,
                                   "sets": [{"reps": 5, "weight": {"value": 100, "unit": "WEIGHT_UNIT_KG"}}] * 5}]}}),
        token)
    card = spotter_client.stub(ch, "spotter.v1.ShareService/GetWorkoutCard")
    get = spotter_client.stub(ch, "spotter.v1.WorkoutService/GetWorkout")
    card_request = card.request_type(workout_id=workout.workout_id, format=PNG)
    read_request = get.request_type(workout_id=workout.workout_id)

    begun = time.monotonic()
    card(card_request, token)
    print(f"one PNG card alone: {1000 * (time.monotonic() - begun):.0f} ms")
    for _ in range(5):
        get(read_request, token)
    begun = time.monotonic()
    get(read_request, token)
    print(f"GetWorkout alone: {1000 * (time.monotonic() - begun):.1f} ms")

    cards, refused, failed = [], [], []

    def render():
        begun = time.monotonic()
        try:
            card(card_request, token, timeout=60)
            cards.append(time.monotonic() - begun)
        except Exception as error:  # noqa: BLE001: the answer is what is counted
            (refused if "RESOURCE_EXHAUSTED" in repr(error) else failed).append(repr(error)[:160])

    threads = [threading.Thread(target=render) for _ in range(args.renders)]
    for thread in threads:
        thread.start()
    reads, read_errors = [], []
    while any(thread.is_alive() for thread in threads):
        begun = time.monotonic()
        try:
            get(read_request, token, timeout=30)
            reads.append(1000 * (time.monotonic() - begun))
        except Exception as error:  # noqa: BLE001
            read_errors.append(repr(error)[:160])
    for thread in threads:
        thread.join()
    reads.sort()
    print(f"{args.renders} PNG cards at once: {len(cards)} rendered in {min(cards, default=0):.2f}-"
          f"{max(cards, default=0):.2f} s, {len(refused)} refused (RESOURCE_EXHAUSTED), other errors {failed[:2]}")
    print(f"GetWorkout meanwhile: {len(reads)} calls, median {reads[len(reads) // 2] if reads else 0:.1f} ms, "
          f"max {reads[-1] if reads else 0:.0f} ms, errors {read_errors[:2]}")
    if failed or read_errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
