#!/usr/bin/env python3
"""Sends every numeric field of every request, one at a time, at the ends of its type's range
(Int64.max and .min, UInt64.max, ±infinity, NaN, enum values no one defined) to a running spotterd,
signed in as a lifter and as a coach, and checks that each answer is a deliberate one: anything but
INTERNAL, UNKNOWN or UNAVAILABLE, with the server still healthy afterwards.

    numeric_extremes.py --target 127.0.0.1:PORT --ca CERT.pem

The fields come from the descriptors of proto/, nested messages and repeated fields included, so a
new request field is covered without touching this file. Bounded: one call per field and value.
Exits 0 when every answer was deliberate; prints the calls that were not.
"""

import argparse
import math
import pathlib
import sys
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import spotter_client  # noqa: E402

import grpc  # noqa: E402
from google.protobuf import descriptor_pool, json_format, message_factory  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor as F  # noqa: E402

EXTREMES = {
    F.TYPE_INT32: [2**31 - 1, -(2**31)], F.TYPE_SINT32: [2**31 - 1, -(2**31)], F.TYPE_SFIXED32: [2**31 - 1, -(2**31)],
    F.TYPE_INT64: [2**63 - 1, -(2**63)], F.TYPE_SINT64: [2**63 - 1, -(2**63)], F.TYPE_SFIXED64: [2**63 - 1, -(2**63)],
    F.TYPE_UINT32: [2**32 - 1], F.TYPE_FIXED32: [2**32 - 1],
    F.TYPE_UINT64: [2**64 - 1], F.TYPE_FIXED64: [2**64 - 1],
    F.TYPE_DOUBLE: [math.inf, -math.inf, math.nan, 1.7976931348623157e308, -1.7976931348623157e308],
    F.TYPE_FLOAT: [math.inf, -math.inf, math.nan, 3.4e38],
    F.TYPE_ENUM: [2**31 - 1, -1],
}
BAD_CODES = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.UNAVAILABLE}
SQUAT = "c0000000-0000-4000-8000-000000000001"
HOUR_AGO = str((int(time.time()) - 3600) * 1_000_000)
WORKOUT = {"name": "Extremes", "started_at": {"unix_micros": HOUR_AGO}, "duration_seconds": 3600,
           "exercises": [{"exercise_id": SQUAT, "sets": [{"reps": 5, "weight": {"value": 100, "unit": "WEIGHT_UNIT_KG"}},
                                                         {"reps": 5, "rpe": 8}]}]}
# Valid requests for the calls whose empty request stops at the first check: each extreme value is
# set on top of the seed, so it reaches the code behind that check.
SEEDS = {
    "spotter.v1.SyncService/Push": lambda ids: {"device_id": ids["device_id"], "mutations": [
        {"mutation_id": "1", "kind": "SYNC_KIND_WORKOUT", "object_id": str(uuid.uuid4()), "workout": WORKOUT},
        {"mutation_id": "2", "kind": "SYNC_KIND_WORKOUT", "object_id": str(uuid.uuid4()), "workout": WORKOUT}]},
    "spotter.v1.WorkoutService/LogWorkout": lambda ids: {"workout": WORKOUT},
    "spotter.v1.TemplateService/CreateTemplate": lambda ids: {"template": {"name": "Extremes", "items": [
        {"exercise_id": SQUAT, "target_sets": 3, "reps_min": 5, "reps_max": 8, "target_rpe": 8, "rest_seconds": 120}]}},
}


def numeric_paths(message, prefix=(), depth=0):
    """(path, field) for every numeric or enum field reachable from `message`; a path is a tuple of
    field names."""
    for field in message.fields:
        path = prefix + (field.name,)
        if field.type == F.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry or depth >= 4:
                continue
            yield from numeric_paths(field.message_type, path, depth + 1)
        elif field.type in EXTREMES:
            yield path, field


def build(request_type, path, value, known_ids, seed=None):
    """A request with only `path` set to `value`, and top-level ids that must name something real
    for the call to get past its first check (`device_id`, `exercise_id`) filled in. A repeated
    message on the way gets two elements, the value in the first, so rules that relate neighbours
    (each mutation id one more than the last) run."""
    request = json_format.ParseDict(seed, request_type()) if seed else request_type()
    for name, known in known_ids.items():
        field = request.DESCRIPTOR.fields_by_name.get(name)
        if field is not None and field.type == F.TYPE_STRING and not field.is_repeated:
            setattr(request, name, known)
    target = request
    for name in path[:-1]:
        field = target.DESCRIPTOR.fields_by_name[name]
        if field.is_repeated:
            elements = getattr(target, name)
            if not elements:
                elements.add()
                elements.add()
            target = elements[0]
        else:
            target = getattr(target, name)
    field = target.DESCRIPTOR.fields_by_name[path[-1]]
    if field.is_repeated:
        getattr(target, path[-1]).append(value)
    else:
        setattr(target, path[-1], value)
    return request


def main():
    args, s, channel = spotter_client.connect(argparse.ArgumentParser())
    health = spotter_client.stub(channel, "grpc.health.v1.Health/Check")
    tokens = {}
    for kind, value in (("lifter", s.common.TENANT_KIND_LIFTER), ("coach", s.common.TENANT_KIND_COACH)):
        tokens[kind] = spotter_client.register_and_sign_in(
            channel, s, kind[0] + uuid.uuid4().hex[:10], "extreme values 1", value).access_token
    device = spotter_client.call(channel, "spotter.v1.SyncService/RegisterDevice",
                                 s.sync.RegisterDeviceRequest(label="extremes"), tokens["lifter"])
    known_ids = {"device_id": device.device_id, "exercise_id": "c0000000-0000-4000-8000-000000000001"}

    pool = descriptor_pool.Default()
    services = sorted({m.full_name for f in [pool.FindFileByName(p) for p in spotter_client_files()]
                       for m in f.services_by_name.values()})
    calls, methods, failures = 0, 0, []
    for service_name in services:
        service = pool.FindServiceByName(service_name)
        for method in service.methods:
            request_type = message_factory.GetMessageClass(method.input_type)
            call = spotter_client.stub(channel, f"{service_name}/{method.name}")
            token = tokens["coach" if service_name == "spotter.v1.CoachService" else "lifter"]
            paths = list(numeric_paths(method.input_type))
            methods += bool(paths)
            for path, field in paths:
                for value in EXTREMES[field.type]:
                    seed = SEEDS.get(f"{service_name}/{method.name}")
                    request = build(request_type, path, value, known_ids, seed and seed(known_ids))
                    calls += 1
                    try:
                        reply = call(request, token, timeout=10)
                        if method.server_streaming:
                            for _ in reply:  # the first message, or the end of the stream
                                break
                            reply.cancel()
                    except grpc.RpcError as error:
                        if error.code() in BAD_CODES:
                            failures.append(f"{service_name}/{method.name} {'.'.join(path)}={value}: "
                                            f"{error.code().name} {error.details()}")
                    try:
                        health(s.health.HealthCheckRequest(), timeout=5)
                    except grpc.RpcError as error:
                        failures.append(f"server down after {service_name}/{method.name} {'.'.join(path)}={value}: "
                                        f"{error.code().name} {error.details()}")
                        print("\n".join(failures))
                        return 1
    for failure in failures:
        print("FAIL " + failure)
    print(f"numeric extremes: {calls} calls over {methods} methods, {len(failures)} not answered deliberately")
    return 1 if failures or calls == 0 else 0


def spotter_client_files():
    """The .proto files of proto/, as the descriptor pool names them."""
    return sorted(str(p.relative_to(spotter_client.PROTO)) for p in spotter_client.PROTO.rglob("*.proto"))


if __name__ == "__main__":
    sys.exit(main())
