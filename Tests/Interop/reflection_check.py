#!/usr/bin/env python3
"""Asks spotterd's server reflection what it serves, with grpcio-reflection's client (the protocol
grpcurl, grpcui and Postman speak), and calls methods using only what reflection described.

    reflection_check.py --target 127.0.0.1:PORT --ca CERT.pem

Prints one line per check and `reflection: N of N checks passed`; exits 0 when all pass.
"""

import argparse
import pathlib
import sys

from checks import Checks

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import grpc  # noqa: E402
import spotter_client  # noqa: E402
from google.protobuf import descriptor_pool, json_format, message_factory  # noqa: E402
from grpc_reflection.v1alpha import reflection_pb2  # noqa: E402
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (  # noqa: E402
    ProtoReflectionDescriptorDatabase,
)

SPOTTER_SERVICES = ["Auth", "Account", "Feedback", "Exercise", "Workout", "Template", "Progress", "Coaching",
                    "Coach", "Program", "Sync", "Transfer", "Share", "Discover", "Activity",
                    "Body", "Session", "Run"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--ca", required=True)
    args = parser.parse_args()
    check = Checks()
    channel = spotter_client.channel(args.target, args.ca)

    # v1alpha, through grpcio-reflection's descriptor database (what `grpcurl list` does).
    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    expected = {f"spotter.v1.{name}Service" for name in SPOTTER_SERVICES} | {
        "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"}
    check(f"list_services names all {len(expected)} services", services == expected,
          sorted(services ^ expected))

    # A fresh pool filled only from reflection (what `grpcurl describe` does).
    pool = descriptor_pool.DescriptorPool(database)
    log = pool.FindMethodByName("spotter.v1.WorkoutService.LogWorkout")
    check("a method is described with its request and response types",
          (log.input_type.full_name, log.output_type.full_name)
          == ("spotter.v1.LogWorkoutRequest", "spotter.v1.Workout"),
          (log.input_type.full_name, log.output_type.full_name))
    sets = pool.FindMessageTypeByName("spotter.v1.Workout").fields_by_name
    check("a message's fields come with it, imports resolved", "exercises" in sets and "started_at" in sets)

    # A call whose request was built from JSON with reflected types only (what `grpcurl -d` does).
    def call(method, request_json):
        service, _, name = method.rpartition(".")
        described = pool.FindMethodByName(method)
        request_class = message_factory.GetMessageClass(described.input_type)
        reply_class = message_factory.GetMessageClass(described.output_type)
        stub = channel.unary_unary(f"/{service}/{name}", request_serializer=request_class.SerializeToString,
                                   response_deserializer=reply_class.FromString)
        return stub(json_format.Parse(request_json, request_class()), timeout=30)

    reply = call("grpc.health.v1.Health.Check", "{}")
    check("Health/Check called with reflected types answers SERVING",
          json_format.MessageToDict(reply).get("status") == "SERVING", reply)
    try:
        call("spotter.v1.AuthService.SignIn", '{"login": "nobody", "password": "not the password"}')
        outcome = "OK"
    except grpc.RpcError as error:
        outcome = error.code().name
    check("SignIn called with reflected types reaches the server (UNAUTHENTICATED)", outcome == "UNAUTHENTICATED",
          outcome)

    # Bytes that are not the method's request message: refused in the protocol's words, not the
    # server's Swift type names. Field 1 (login), a string, holding bytes that are not UTF-8.
    raw = channel.unary_unary("/spotter.v1.AuthService/SignIn", request_serializer=None,
                              response_deserializer=None)
    try:
        raw(b"\x0a\x02\xff\xfe", timeout=30)
        code, details = "OK", ""
    except grpc.RpcError as error:
        code, details = error.code().name, error.details()
    check("a string that is not UTF-8 is INVALID_ARGUMENT saying so", code == "INVALID_ARGUMENT"
          and details == "the request is not a readable message of this method's request type: "
                         "a string field is not valid UTF-8", (code, details))
    check("no Swift type name in the refusal", "Spotter_V1" not in details, details)

    # grpc.reflection.v1: the same messages field for field; asked with raw requests.
    v1 = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                               request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                               response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    answers = list(v1(iter([reflection_pb2.ServerReflectionRequest(list_services=""),
                            reflection_pb2.ServerReflectionRequest(file_containing_symbol="spotter.v1.SyncService.Push"),
                            reflection_pb2.ServerReflectionRequest(file_by_filename="no/such.proto")]), timeout=30))
    check("v1 answers each request on one stream", len(answers) == 3, len(answers))
    check("v1 lists the same services", {s.name for s in answers[0].list_services_response.service} == expected)
    files = answers[1].file_descriptor_response.file_descriptor_proto
    check("v1 answers a method's file with its imports", len(files) >= 2, len(files))
    check("an unknown file is NOT_FOUND (5)", answers[2].error_response.error_code == 5,
          answers[2].error_response)
    channel.close()
    return check.finish("reflection")


if __name__ == "__main__":
    sys.exit(main())
