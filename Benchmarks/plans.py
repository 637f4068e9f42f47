"""Calls spotterd's read RPCs (and the edits an app sends) many times each, as one lifter and the
lifter's coach, so that `pg_stat_statements` shows which statements PostgreSQL plans afresh on
every call (Benchmarks/plans.sh runs it and reads them).

A prepared statement's first five executions get plans for their parameters; after that PostgreSQL
keeps a generic plan unless its estimated cost is higher than the parameter plans' average, and then
it plans every call again. For a cheap read, planning can cost ten times the reading.

    plans.py --target 127.0.0.1:50590 --ca <data dir>/tls/dev-cert.pem [--calls 120]
"""

import argparse
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts"))
import spotter_client  # noqa: E402

SQUAT = "c0000000-0000-4000-8000-000000000001"
PASSWORD = "correct horse battery staple 9"
DAY = 86_400 * 1_000_000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=120, help="calls of each read (default 120)")
    parser.add_argument("--phase", choices=["seed", "read"], required=True,
                        help="seed: the lifter, their data and their coach; read: the calls")
    args, messages, channel = spotter_client.connect(parser)

    def caller(token):
        """Calls a method with a request given as a dictionary (its JSON form), as `token`'s holder."""
        return lambda method, body: spotter_client.call_method(channel, method, json.dumps(body), token)

    if args.phase == "seed":
        seed(messages, channel, caller)
    else:
        read(messages, channel, caller, args.calls)


def seed(messages, channel, caller):
    call = caller(spotter_client.register_and_sign_in(channel, messages, "plans", PASSWORD).access_token)
    # A lifter a few months in: 60 workouts every other day, custom exercises, templates, a month of
    # body weight.
    now = int(time.time() * 1_000_000)
    for i in range(60):
        call("spotter.v1.WorkoutService/LogWorkout", {"workout": {
            "name": f"Legs {i}", "started_at": {"unix_micros": str(now - (60 - i) * 2 * DAY)}, "duration_seconds": 3600,
            "exercises": [{"exercise_id": SQUAT, "sets": [{"reps": 5, "weight": {"value": 100 + i, "unit": "WEIGHT_UNIT_KG"}}]}]}})
    for i in range(25):
        call("spotter.v1.ExerciseService/CreateExercise", {"exercise": {
            "name": f"Custom lift {i:02d}", "category": "EXERCISE_CATEGORY_SQUAT",
            "muscle_group": "MUSCLE_GROUP_QUADRICEPS", "equipment": "EQUIPMENT_BARBELL"}})
        call("spotter.v1.TemplateService/CreateTemplate", {"template": {
            "name": f"Day {i:02d}", "items": [{"exercise_id": SQUAT, "target_sets": 3, "reps_min": 5, "reps_max": 5}]}})
    for i in range(30):
        call("spotter.v1.BodyService/RecordMeasurement", {"measurement": {
            "metric": "BODY_METRIC_BODY_WEIGHT", "value": 80 + i / 10,
            "measured_on": time.strftime("%Y-%m-%d", time.gmtime(time.time() - i * 86_400))}})

    # A coach the lifter asked, with every scope (plans.sh then gives the coach the Coach Pro tier).
    coach_call = caller(spotter_client.register_and_sign_in(
        channel, messages, "planscoach", PASSWORD, kind=messages.common.TENANT_KIND_COACH).access_token)
    link = call("spotter.v1.CoachingService/RequestCoach", {
        "username": "planscoach", "scopes": ["history", "details", "progress", "body"]})
    coach_call("spotter.v1.CoachService/RespondToClient", {"client_id": link.lifter_id, "accept": True})


def read(messages, channel, caller, calls):
    def signed_in(name):
        return caller(spotter_client.call(channel, "spotter.v1.AuthService/SignIn", messages.auth.SignInRequest(
            login=name, password=PASSWORD), timeout=120).access_token)

    call, coach_call = signed_in("plans"), signed_in("planscoach")
    now = int(time.time() * 1_000_000)

    def next_page(method, body):
        return call(method, body).next_page_token

    workout = call("spotter.v1.WorkoutService/ListWorkouts", {"page": {"page_size": 20}}).workouts[0].workout_id
    year_ago = {"unix_micros": str(now - 365 * DAY)}
    ten_days_ago = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 10 * 86_400))
    reads = [
        ("spotter.v1.WorkoutService/GetWorkout", {"workout_id": workout}),
        ("spotter.v1.WorkoutService/ListWorkouts", {"page": {"page_size": 20, "page_token": next_page(
            "spotter.v1.WorkoutService/ListWorkouts", {"page": {"page_size": 20}})}}),
        ("spotter.v1.WorkoutService/ListWorkouts", {"from": year_ago}),
        ("spotter.v1.ExerciseService/ListExercises", {}),
        ("spotter.v1.ExerciseService/ListExercises", {"query": "squat"}),
        ("spotter.v1.ExerciseService/ListExercises", {"custom_only": True}),
        ("spotter.v1.ExerciseService/ListExercises", {"category": "EXERCISE_CATEGORY_SQUAT"}),
        ("spotter.v1.ExerciseService/ListExercises", {"page": {"page_size": 20, "page_token": next_page(
            "spotter.v1.ExerciseService/ListExercises", {"page": {"page_size": 20}})}}),
        ("spotter.v1.TemplateService/ListTemplates", {}),
        ("spotter.v1.TemplateService/ListTemplates", {"page": {"page_size": 10, "page_token": next_page(
            "spotter.v1.TemplateService/ListTemplates", {"page": {"page_size": 10}})}}),
        ("spotter.v1.BodyService/ListMeasurements", {}),
        ("spotter.v1.BodyService/ListMeasurements", {"from": ten_days_ago}),
        ("spotter.v1.ProgressService/GetProgress", {"exercise_id": SQUAT}),
        ("spotter.v1.ProgressService/ListExerciseResults", {"exercise_id": SQUAT}),
        ("spotter.v1.ProgressService/ListExerciseResults", {"exercise_id": SQUAT, "page": {
            "page_size": 20, "page_token": next_page("spotter.v1.ProgressService/ListExerciseResults",
                                                     {"exercise_id": SQUAT, "page": {"page_size": 20}})}}),
        ("spotter.v1.ProgressService/GetStatistics", {
            "period": "STATISTICS_PERIOD_WEEK", "from": year_ago, "to": {"unix_micros": str(now)}}),
        ("spotter.v1.RunService/ListRuns", {}),
        ("spotter.v1.ActivityService/GetActivitySummary", {}),
        ("spotter.v1.ActivityService/ListAchievements", {}),
        ("spotter.v1.AccountService/GetProfile", {}),
        ("spotter.v1.CoachingService/GetToday", {}),
        ("spotter.v1.CoachingService/ListLinks", {}),
        ("spotter.v1.CoachingService/ListAccessLog", {"page": {"page_size": 20}}),
    ]
    # The coach's reads of the lifter.
    client = call("spotter.v1.AccountService/GetProfile", {}).tenant_id
    coach_reads = [
        ("spotter.v1.CoachService/ListClients", {}),
        ("spotter.v1.CoachService/ListClientWorkouts", {"client_id": client, "page": {"page_size": 20}}),
        ("spotter.v1.CoachService/GetClientWorkout", {"client_id": client, "workout_id": workout}),
        ("spotter.v1.CoachService/GetClientProgress", {"client_id": client, "exercise_id": SQUAT}),
        ("spotter.v1.CoachService/GetClientMeasurements", {"client_id": client}),
        ("spotter.v1.CoachService/GetClientAchievements", {"client_id": client}),
    ]

    def timed(label, send):
        """`send(k)` for k in 0..<calls, then the mean time a call took."""
        started = time.perf_counter()
        for k in range(calls):
            send(k)
        print(f"{label}: {(time.perf_counter() - started) * 1000 / calls:.2f} ms a call")

    for method, body, by in [(m, b, call) for m, b in reads] + [(m, b, coach_call) for m, b in coach_reads]:
        timed(f"{method} {json.dumps(body)[:60]}", lambda _: by(method, body))

    # Writes: each edit as an app sends it (no expected version), and new workouts.
    exercise = call("spotter.v1.ExerciseService/ListExercises", {"custom_only": True}).exercises[0].exercise_id
    template = call("spotter.v1.TemplateService/ListTemplates", {}).templates[0].template_id
    measurement = call("spotter.v1.BodyService/ListMeasurements", {}).series[0].measurements[-1]
    writes = [
        ("spotter.v1.WorkoutService/UpdateWorkout", lambda k: {"workout_id": workout, "name": f"Legs, edit {k}"}),
        ("spotter.v1.ExerciseService/UpdateExercise", lambda k: {"exercise_id": exercise, "exercise": {
            "name": f"Custom lift, edit {k}", "category": "EXERCISE_CATEGORY_SQUAT",
            "muscle_group": "MUSCLE_GROUP_QUADRICEPS", "equipment": "EQUIPMENT_BARBELL"}}),
        ("spotter.v1.TemplateService/UpdateTemplate", lambda k: {"template_id": template, "template": {
            "name": f"Day, edit {k}", "items": [{"exercise_id": SQUAT, "target_sets": 3, "reps_min": 5, "reps_max": 5}]}}),
        ("spotter.v1.BodyService/UpdateMeasurement", lambda k: {"measurement_id": measurement.measurement_id, "measurement": {
            "metric": "BODY_METRIC_BODY_WEIGHT", "measured_on": measurement.measured_on, "value": 80 + k % 10 / 10}}),
        ("spotter.v1.WorkoutService/LogWorkout", lambda k: {"workout": {
            "name": f"Extra {k}", "started_at": {"unix_micros": str(now - k * 60_000_000)}, "duration_seconds": 1800,
            "exercises": [{"exercise_id": SQUAT, "sets": [{"reps": 5, "weight": {"value": 90, "unit": "WEIGHT_UNIT_KG"}}]}]}}),
    ]
    for method, body in writes:
        timed(f"{method} (writes)", lambda k: call(method, body(k)))

    # Sync: full pulls from the start, pages of 40 (workouts, exercises, templates, measurements,
    # achievements, the profile).
    device = call("spotter.v1.SyncService/RegisterDevice", {"label": "plans"}).device_id
    pages = 0
    for _ in range(max(1, calls // 4)):
        cursor = ""
        while True:
            page = call("spotter.v1.SyncService/Pull", {"device_id": device, "cursor": cursor, "page_size": 40})
            pages += 1
            cursor = page.cursor
            if not page.more:
                break
    print(f"sync: {pages} pages pulled")


if __name__ == "__main__":
    main()
