#!/usr/bin/env python3
"""A small command-line client for Spotter's gRPC API, built on Python's grpcio.

Stubs are generated at run time from the repository's proto/ files, so this client is always in
step with the API. Needs `pip install grpcio grpcio-tools`.

    scripts/spotter_client.py health
    scripts/spotter_client.py register --email ada@example.com --username ada --password '…' --kind lifter
    scripts/spotter_client.py sign-in --login ada --password '…'        # prints the tokens as JSON
    scripts/spotter_client.py profile --token <access token>
    scripts/spotter_client.py call --token <access token> spotter.v1.WorkoutService/ListWorkouts '{}'

`call` reaches any method: the request is the JSON form of its request message (field names as in
the .proto files) and the answer is printed as JSON.

Options --target (default 127.0.0.1:8443) and --ca (the server's certificate; default: the
development certificate under SPOTTER_DATA_DIR) choose the server.
"""

import argparse
import importlib
import json
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"


def load_stubs():
    """Generates Python modules from proto/ into a temporary directory and imports them."""
    from grpc_tools import protoc
    import grpc_tools

    out = pathlib.Path(tempfile.mkdtemp(prefix="spotter-stubs-"))
    files = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    include = str(pathlib.Path(grpc_tools.__file__).parent / "_proto")
    args = ["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}", *files]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on proto/")
    sys.path.insert(0, str(out))
    names = {
        "common": "spotter.v1.common_pb2",
        "auth": "spotter.v1.auth_pb2",
        "auth_grpc": "spotter.v1.auth_pb2_grpc",
        "account": "spotter.v1.account_pb2",
        "account_grpc": "spotter.v1.account_pb2_grpc",
        "health": "grpc.health.v1.health_pb2",
        "health_grpc": "grpc.health.v1.health_pb2_grpc",
    }
    # Every other message module too, so `call` finds any method in the descriptor pool.
    for path in sorted(out.rglob("*_pb2.py")):
        module = ".".join(path.relative_to(out).with_suffix("").parts)
        if module not in names.values():
            names[module] = module
    # The generated "grpc" package would shadow grpcio: import grpcio first, then load by path.
    import grpc  # noqa: F401

    stubs = {}
    for key, module in names.items():
        path = out / (module.replace(".", "/") + ".py")
        spec = importlib.util.spec_from_file_location(module, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[module] = mod
        spec.loader.exec_module(mod)
        stubs[key] = mod
    return argparse.Namespace(**stubs)


def default_ca():
    data = os.environ.get("SPOTTER_DATA_DIR") or (
        "/var/lib/spotter" if os.geteuid() == 0 else os.path.expanduser("~/.local/share/spotter")
    )
    return os.path.join(data, "tls", "dev-cert.pem")


def channel(target, ca):
    import grpc

    with open(ca, "rb") as f:
        credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
    # The development certificate names localhost and 127.0.0.1.
    return grpc.secure_channel(target, credentials, options=[("grpc.ssl_target_name_override", "localhost")])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="127.0.0.1:8443")
    parser.add_argument("--ca", default=None)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("health")
    reg = sub.add_parser("register")
    reg.add_argument("--email", required=True)
    reg.add_argument("--username", required=True)
    reg.add_argument("--password", required=True)
    reg.add_argument("--kind", choices=["lifter", "coach"], default="lifter")
    sign = sub.add_parser("sign-in")
    sign.add_argument("--login", required=True)
    sign.add_argument("--password", required=True)
    sign.add_argument("--device", default="spotter_client.py")
    verify = sub.add_parser("verify-email")
    verify.add_argument("--token", required=True)
    prof = sub.add_parser("profile")
    prof.add_argument("--token", required=True)
    call = sub.add_parser("call", help="call any method with a JSON request")
    call.add_argument("--token", default=None)
    call.add_argument("method", help="package.Service/Method, e.g. spotter.v1.WorkoutService/LogWorkout")
    call.add_argument("request", nargs="?", default="{}", help="the request as JSON ('-' reads stdin)")
    args = parser.parse_args(argv)

    import grpc
    from google.protobuf import json_format

    s = load_stubs()
    ch = channel(args.target, args.ca or default_ca())
    try:
        if args.command == "health":
            reply = s.health_grpc.HealthStub(ch).Check(s.health.HealthCheckRequest(service=""), timeout=10)
        elif args.command == "register":
            kind = s.common.TENANT_KIND_LIFTER if args.kind == "lifter" else s.common.TENANT_KIND_COACH
            reply = s.auth_grpc.AuthServiceStub(ch).Register(
                s.auth.RegisterRequest(email=args.email, username=args.username, password=args.password, kind=kind),
                timeout=30,
            )
        elif args.command == "sign-in":
            reply = s.auth_grpc.AuthServiceStub(ch).SignIn(
                s.auth.SignInRequest(login=args.login, password=args.password, device_label=args.device), timeout=30
            )
        elif args.command == "verify-email":
            reply = s.auth_grpc.AuthServiceStub(ch).VerifyEmail(s.auth.VerifyEmailRequest(token=args.token), timeout=10)
        elif args.command == "call":
            reply = call_method(ch, args.method, sys.stdin.read() if args.request == "-" else args.request, args.token)
            if not hasattr(reply, "ByteSize"):
                # A server-streaming method: one JSON line per message until the stream ends (or Ctrl-C).
                for message in reply:
                    print(json_format.MessageToJson(message, preserving_proto_field_name=True, indent=None),
                          flush=True)
                return 0
        else:
            reply = s.account_grpc.AccountServiceStub(ch).GetProfile(
                s.account.GetProfileRequest(), metadata=[("authorization", f"Bearer {args.token}")], timeout=10
            )
        print(json_format.MessageToJson(reply, preserving_proto_field_name=True) if reply.ByteSize() else "{}")
        return 0
    except grpc.RpcError as error:
        print(f"{error.code().name}: {error.details()}", file=sys.stderr)
        return 1


def call_method(ch, method, request_json, token):
    """Calls `package.Service/Method` with a request given as JSON."""
    from google.protobuf import descriptor_pool, json_format, message_factory

    service, _, name = method.partition("/")
    descriptor = descriptor_pool.Default().FindServiceByName(service).FindMethodByName(name)
    request_type = message_factory.GetMessageClass(descriptor.input_type)
    reply_type = message_factory.GetMessageClass(descriptor.output_type)
    request = json_format.Parse(request_json, request_type())
    metadata = [("authorization", f"Bearer {token}")] if token else None
    if descriptor.server_streaming:
        stub = ch.unary_stream(f"/{service}/{name}", request_serializer=request_type.SerializeToString,
                               response_deserializer=reply_type.FromString)
        return stub(request, metadata=metadata)
    stub = ch.unary_unary(f"/{service}/{name}", request_serializer=request_type.SerializeToString,
                          response_deserializer=reply_type.FromString)
    return stub(request, metadata=metadata, timeout=30)


if __name__ == "__main__":
    sys.exit(main())
