#!/usr/bin/env python3
"""Interoperability check: Python's grpcio, a gRPC implementation no one here wrote, calls Spotter
over TLS with stubs generated from proto/. Run by SpotterServerTests against a live test server:

    interop_test.py --target 127.0.0.1:PORT --ca CERT.pem

Exits 0 when every check passes and prints one line per check.
"""

import argparse
import pathlib
import sys
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import spotter_client  # noqa: E402
from checks import Checks  # noqa: E402

import grpc  # noqa: E402


def main():
    _, s, channel = spotter_client.connect(argparse.ArgumentParser())
    check_health = spotter_client.stub(channel, "grpc.health.v1.Health/Check")
    watch_health = spotter_client.stub(channel, "grpc.health.v1.Health/Watch")
    register = spotter_client.stub(channel, "spotter.v1.AuthService/Register")
    sign_in = spotter_client.stub(channel, "spotter.v1.AuthService/SignIn")
    get_profile = spotter_client.stub(channel, "spotter.v1.AccountService/GetProfile")
    check = Checks()

    reply = check_health(s.health.HealthCheckRequest(service=""), timeout=10)
    check("health check of the server is SERVING", reply.status == s.health.HealthCheckResponse.SERVING)
    reply = check_health(s.health.HealthCheckRequest(service="spotter.v1.AccountService"), timeout=10)
    check("health check of AccountService is SERVING", reply.status == s.health.HealthCheckResponse.SERVING)
    watch = watch_health(s.health.HealthCheckRequest(service=""), timeout=10)
    check("health watch streams the current status", next(watch).status == s.health.HealthCheckResponse.SERVING)
    watch.cancel()

    name = "py" + uuid.uuid4().hex[:10]
    registered = register(
        s.auth.RegisterRequest(
            email=f"{name}@example.com",
            username=name,
            password="interop password 1",
            kind=s.common.TENANT_KIND_COACH,
        ),
        timeout=30,
    )
    check("register returns a tenant id", len(registered.tenant_id) == 36)

    tokens = sign_in(s.auth.SignInRequest(login=name, password="interop password 1", device_label="grpcio"), timeout=30)
    check("sign-in returns both tokens", tokens.access_token.startswith("spa_") and tokens.refresh_token.startswith("spr_"))

    profile = get_profile(s.account.GetProfileRequest(), tokens.access_token, timeout=10)
    check("profile of the signed-in coach", profile.username == name and profile.kind == s.common.TENANT_KIND_COACH)

    try:
        get_profile(s.account.GetProfileRequest(), timeout=10)
        check("a call without a token is refused", False)
    except grpc.RpcError as error:
        check("a call without a token is UNAUTHENTICATED", error.code() == grpc.StatusCode.UNAUTHENTICATED)

    try:
        register(s.auth.RegisterRequest(email="bad", username=name, password="x"), timeout=10)
        check("invalid registration is refused", False)
    except grpc.RpcError as error:
        details = error.details() or ""
        check(
            "invalid registration is INVALID_ARGUMENT naming each field",
            error.code() == grpc.StatusCode.INVALID_ARGUMENT
            and all(field in details for field in ("email:", "password:", "kind:")),
        )

    # The README's `spotter_client.py call` path: any method, JSON in and out.
    workout = spotter_client.call_method(
        channel,
        "spotter.v1.WorkoutService/LogWorkout",
        """{"workout": {"name": "Interop", "started_at": {"unix_micros": "1790000000000000"},
            "exercises": [{"exercise_id": "c0000000-0000-4000-8000-000000000001",
                           "sets": [{"reps": 5, "weight": {"value": 100, "unit": "WEIGHT_UNIT_KG"}, "rpe": 8},
                                    {"reps": 3, "weight": {"value": 110, "unit": "WEIGHT_UNIT_KG"}}]}]}}""",
        tokens.access_token,
    )
    check("a workout logged from JSON comes back with its summary", workout.summary.set_count == 2
          and workout.summary.volume.value == 830 and workout.exercises[0].exercise_name == "Barbell Back Squat")
    history = spotter_client.call_method(channel, "spotter.v1.WorkoutService/ListWorkouts", "{}", tokens.access_token)
    check("history lists it", [entry.workout_id for entry in history.workouts] == [workout.workout_id])

    # A newcomer's slips get one line that says what to do, not a traceback.
    def usage_error(method, request, token):
        try:
            spotter_client.call_method(channel, method, request, token)
        except spotter_client.UsageError as error:
            return str(error)
        return ""

    check("a mistyped method, field or token is named in one line", all((
        "has no method 'ListWorkout'; it has DeleteWorkout, GetWorkout, ListWorkouts"
        in usage_error("spotter.v1.WorkoutService/ListWorkout", "{}", tokens.access_token),
        "no service 'spotter.v1.WorkoutServic'" in usage_error("spotter.v1.WorkoutServic/ListWorkouts", "{}", None),
        'no field named "page_sze"'
        in usage_error("spotter.v1.WorkoutService/ListWorkouts", '{"page_sze": 1}', tokens.access_token),
        "'spa_…' is not an access token" in usage_error("spotter.v1.WorkoutService/ListWorkouts", "{}", "spa_…"),
    )))

    return check.finish("interop")


if __name__ == "__main__":
    sys.exit(main())
