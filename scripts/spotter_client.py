#!/usr/bin/env python3
"""A small command-line client for Spotter's gRPC API, built on Python's grpcio.

Message classes are generated at run time from the repository's proto/ files, so this client is
always in step with the API. It needs the packages in scripts/requirements.txt; `scripts/run.sh`
installs them into the repository's .venv, and this script runs itself with .venv's Python when the
Python that started it lacks them.

    scripts/spotter_client.py health
    scripts/spotter_client.py register --email ada@example.com --username ada --password '…' --kind lifter
    scripts/spotter_client.py sign-in --login ada --password '…'        # prints the tokens as JSON
    scripts/spotter_client.py profile --token <access token>
    scripts/spotter_client.py call --token <access token> spotter.v1.WorkoutService/ListWorkouts '{}'
    scripts/spotter_client.py import --token <access token> --format strong --unit lb strong.csv
    scripts/spotter_client.py export --token <access token> --format csv --output my-sets.csv

`call` reaches any method: the request is the JSON form of its request message (field names as in
the .proto files) and the answer is printed as JSON.

Options --target (default 127.0.0.1:$SPOTTER_GRPC_PORT, or 127.0.0.1:8443) and --ca (the server's
certificate; default: the development certificate under $SPOTTER_DATA_DIR) choose the server.
"""

import argparse
import atexit
import importlib
import importlib.util
import json
import os
import pathlib
import shutil
import signal
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto"
VENV = ROOT / ".venv"


# Proto packages whose names are taken by an installed Python package: their generated modules are
# loaded under a private name instead (grpcio owns `grpc`; `grpc/health/v1/health.proto` would
# otherwise be imported as `grpc.health.v1`, which only exists with grpcio-health-checking).
FOREIGN_PACKAGES = ("grpc", "google")


def load_stubs():
    """Generates the message modules of proto/ into a temporary directory and imports them.

    Only messages are generated (protoc's --python_out): every call goes through the channel's
    generic methods with the descriptors (see `call`), so no generated gRPC stub module, whose
    imports could name packages of other installed distributions, is ever loaded. The result has
    one attribute per module (`common`, `auth`, `account`, `health`, …); every message of proto/
    is also in the default descriptor pool, where `call` finds any method.
    """
    from grpc_tools import protoc
    import grpc_tools

    out = pathlib.Path(tempfile.mkdtemp(prefix="spotter-stubs-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    files = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    include = str(pathlib.Path(grpc_tools.__file__).parent / "_proto")
    if protoc.main(["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}", *files]) != 0:
        raise RuntimeError("protoc failed on proto/")
    # Regular packages (with __init__.py) at the front of sys.path: an installed package of the
    # same name cannot shadow ours.
    for directory in {path.parent for path in out.rglob("*_pb2.py")}:
        if directory.relative_to(out).parts[0] not in FOREIGN_PACKAGES:
            for package in [directory, *directory.parents]:
                if package == out:
                    break
                (package / "__init__.py").touch()
    sys.path.insert(0, str(out))

    modules = {}
    for path in sorted(out.rglob("*_pb2.py")):
        parts = path.relative_to(out).with_suffix("").parts
        if parts[0] in FOREIGN_PACKAGES:
            name = "_spotter_stubs." + ".".join(parts)
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(".".join(parts))
        # spotter/v1/auth_pb2.py is `auth`; grpc/health/v1/health_pb2.py is `health`.
        modules[parts[-1].removesuffix("_pb2")] = module
    return argparse.Namespace(**modules)


def default_target():
    return f"127.0.0.1:{os.environ.get('SPOTTER_GRPC_PORT') or 8443}"


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


def connect(parser, argv=None):
    """Adds --target and --ca to `parser`, parses `argv`, and returns (arguments, the message
    modules of `load_stubs`, a channel to the server): the start every script here shares."""
    parser.add_argument("--target", default=default_target(), help="host:port (default 127.0.0.1:8443)")
    parser.add_argument("--ca", default=default_ca(), help="the server's certificate")
    args = parser.parse_args(argv)
    return args, load_stubs(), channel(args.target, args.ca)


def register_and_sign_in(ch, s, name, password, kind=None):
    """Registers `name` (e-mail name@example.com) and signs in; returns the sign-in reply."""
    call(ch, "spotter.v1.AuthService/Register", s.auth.RegisterRequest(
        email=f"{name}@example.com", username=name, password=password,
        kind=s.common.TENANT_KIND_LIFTER if kind is None else kind), timeout=120)
    return call(ch, "spotter.v1.AuthService/SignIn", s.auth.SignInRequest(login=name, password=password),
                timeout=120)


def stub(ch, method):
    """A callable for `package.Service/Method` found in the descriptor pool:
    `stub(request, token=None, timeout=None, metadata=None)` returns the reply, or for a server-streaming method an
    iterator of replies (which has `cancel()`). A client-streaming method takes an iterator of
    messages, or one message. With no timeout a unary call gives up after 30 s and a stream runs
    until the server ends it."""
    from google.protobuf import descriptor_pool, message_factory

    service, _, name = method.partition("/")
    pool = descriptor_pool.Default()
    try:
        service_descriptor = pool.FindServiceByName(service)
    except KeyError:
        raise UsageError(f"no service {service!r}: the method is package.Service/Method, such as "
                         "spotter.v1.WorkoutService/LogWorkout (services are in proto/)") from None
    descriptor = service_descriptor.methods_by_name.get(name)
    if descriptor is None:
        raise UsageError(f"{service} has no method {name!r}; it has "
                         + ", ".join(sorted(service_descriptor.methods_by_name)))
    request_type = message_factory.GetMessageClass(descriptor.input_type)
    reply_type = message_factory.GetMessageClass(descriptor.output_type)
    streaming = descriptor.server_streaming
    client_streaming = descriptor.client_streaming
    kind = {(False, False): ch.unary_unary, (False, True): ch.unary_stream,
            (True, False): ch.stream_unary, (True, True): ch.stream_stream}[(client_streaming, streaming)]
    multicallable = kind(
        f"/{service}/{name}", request_serializer=request_type.SerializeToString,
        response_deserializer=reply_type.FromString)

    def invoke(request, token=None, timeout=None, metadata=None):
        if token and not (token.isascii() and token.isprintable() and " " not in token):
            raise UsageError(f"{token!r} is not an access token: use the access_token sign-in answered")
        sent = list(metadata or []) + ([("authorization", f"Bearer {token}")] if token else [])
        if client_streaming and isinstance(request, request_type):
            # A client-streaming method given one message sends just that one.
            request = iter([request])
        return multicallable(request, metadata=sent or None, timeout=timeout or (None if streaming else 30))

    invoke.request_type = request_type
    return invoke


class UsageError(Exception):
    """A mistake in what the client was asked to do, said in one line instead of a traceback."""


def call(ch, method, request, token=None, timeout=None, metadata=None):
    """Calls `package.Service/Method` once with a request message (see `stub`)."""
    return stub(ch, method)(request, token, timeout, metadata)


def call_method(ch, method, request_json, token=None):
    """Calls `package.Service/Method` with a request given as JSON."""
    from google.protobuf import json_format

    method_stub = stub(ch, method)
    try:
        request = json_format.Parse(request_json, method_stub.request_type())
    except json_format.ParseError as error:
        raise UsageError(f"the request is not a {method_stub.request_type.DESCRIPTOR.full_name} in JSON: {error}") from None
    return method_stub(request, token)


# `export --format` and the ExportFormat each names.
EXPORT_FORMATS = {"json": "JSON", "csv": "CSV", "templates-csv": "TEMPLATES_CSV", "measurements-csv": "MEASUREMENTS_CSV"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default=None, help="host:port (default 127.0.0.1:$SPOTTER_GRPC_PORT or 8443)")
    parser.add_argument("--ca", default=None, help="the server's certificate (default: the development one)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("health", help="ask the server's gRPC health service whether it is serving")
    reg = sub.add_parser("register", help="create a lifter or coach account (a verification e-mail is sent)")
    reg.add_argument("--email", required=True)
    reg.add_argument("--username", required=True)
    reg.add_argument("--password", required=True)
    reg.add_argument("--kind", choices=["lifter", "coach"], default="lifter")
    sign = sub.add_parser("sign-in", help="sign in and print the access and refresh tokens")
    sign.add_argument("--login", required=True)
    sign.add_argument("--password", required=True)
    sign.add_argument("--device", default="spotter_client.py", help="a label for the session")
    sign.add_argument("--device-token", default="",
                      help="the device_token an earlier sign-in answered: a known device is not held back by "
                           "failed sign-ins from elsewhere")
    verify = sub.add_parser("verify-email", help="confirm the e-mail address with the token from its e-mail")
    verify.add_argument("--token", required=True)
    prof = sub.add_parser("profile", help="show your profile (unit, time zone, tier)")
    prof.add_argument("--token", required=True)
    imp = sub.add_parser("import", help="import a Strong or Hevy CSV export, or a Spotter JSON export")
    imp.add_argument("--token", required=True)
    imp.add_argument("--format", choices=["strong", "hevy", "spotter"], required=True)
    imp.add_argument("--unit", choices=["kg", "lb"], default=None,
                     help="the weights' unit when the file does not say (default: your profile's)")
    imp.add_argument("--time-zone", default="",
                     help="the zone the file's local times were written in, such as Europe/Berlin "
                          "(default: your profile's; give an earlier import's after travelling)")
    imp.add_argument("file")
    exp = sub.add_parser("export", help="download your whole account as JSON, or every set, template item or "
                                        "body measurement as CSV")
    exp.add_argument("--token", required=True)
    exp.add_argument("--format", choices=list(EXPORT_FORMATS), default="json")
    exp.add_argument("--output", required=True, help="file to write ('-' for standard output)")
    method = sub.add_parser("call", help="call any method with a JSON request")
    method.add_argument("--token", default=None)
    method.add_argument("method", help="package.Service/Method, e.g. spotter.v1.WorkoutService/LogWorkout")
    method.add_argument("request", nargs="?", default="{}", help="the request as JSON ('-' reads stdin)")
    args = parser.parse_args(argv)

    try:
        import grpc
        from google.protobuf import json_format
    except ImportError as error:
        python = VENV / "bin" / "python"
        if python.exists() and pathlib.Path(sys.prefix).resolve() != VENV.resolve():
            os.execv(python, [str(python), __file__, *(sys.argv[1:] if argv is None else argv)])
        print(f"{error}: install the client's packages first, for example\n"
              f"  python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements.txt\n"
              f"and run the client with .venv/bin/python (scripts/run.sh creates .venv for you).",
              file=sys.stderr)
        return 2

    s = load_stubs()
    ca = args.ca or default_ca()
    if not os.path.exists(ca):
        print(f"no certificate at {ca}: start spotterd first (it writes its development certificate there), "
              "give this terminal spotterd's SPOTTER_DATA_DIR, or pass --ca before the command", file=sys.stderr)
        return 2
    ch = channel(args.target or default_target(), ca)
    try:
        if args.command == "health":
            reply = call(ch, "grpc.health.v1.Health/Check", s.health.HealthCheckRequest(service=""), timeout=10)
        elif args.command == "register":
            kind = s.common.TENANT_KIND_LIFTER if args.kind == "lifter" else s.common.TENANT_KIND_COACH
            request = s.auth.RegisterRequest(email=args.email, username=args.username, password=args.password, kind=kind)
            reply = call(ch, "spotter.v1.AuthService/Register", request)
        elif args.command == "sign-in":
            request = s.auth.SignInRequest(login=args.login, password=args.password, device_label=args.device,
                                           device_token=args.device_token)
            reply = call(ch, "spotter.v1.AuthService/SignIn", request)
        elif args.command == "verify-email":
            reply = call(ch, "spotter.v1.AuthService/VerifyEmail", s.auth.VerifyEmailRequest(token=args.token))
        elif args.command == "profile":
            reply = call(ch, "spotter.v1.AccountService/GetProfile", s.account.GetProfileRequest(), args.token)
        elif args.command == "import":
            try:
                data = pathlib.Path(args.file).read_bytes()
            except OSError as error:
                print(f"cannot read {args.file}: {error.strerror}", file=sys.stderr)
                return 2
            formats = {"strong": s.transfer.IMPORT_FORMAT_STRONG_CSV, "hevy": s.transfer.IMPORT_FORMAT_HEVY_CSV,
                       "spotter": s.transfer.IMPORT_FORMAT_SPOTTER_JSON}
            unit = {"kg": s.common.WEIGHT_UNIT_KG, "lb": s.common.WEIGHT_UNIT_LB}.get(args.unit, 0)
            chunk = 1 << 20

            def chunks():
                yield s.transfer.ImportChunk(format=formats[args.format], weight_unit=unit,
                                             time_zone=args.time_zone, data=data[:chunk])
                for start in range(chunk, len(data), chunk):
                    yield s.transfer.ImportChunk(data=data[start:start + chunk])

            reply = stub(ch, "spotter.v1.TransferService/ImportWorkouts")(chunks(), args.token, timeout=300)
        elif args.command == "export":
            request = s.transfer.ExportAccountRequest(
                format=getattr(s.transfer, "EXPORT_FORMAT_" + EXPORT_FORMATS[args.format]))
            if args.output == "-":
                for message in call(ch, "spotter.v1.TransferService/ExportAccount", request, args.token):
                    sys.stdout.buffer.write(message.data)
                return 0
            # Written beside the file and moved over it once the whole export has arrived: a failed
            # call (an expired token, a dropped connection) leaves an earlier export as it was.
            target = pathlib.Path(args.output)
            partial = target.with_name(f".{target.name}.partial")
            size = 0
            try:
                # Only its owner reads an export (e-mails, sessions, every workout), as spotterctl's.
                with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
                    for message in call(ch, "spotter.v1.TransferService/ExportAccount", request, args.token):
                        out.write(message.data)
                        size += len(message.data)
                os.replace(partial, target)
            except OSError as error:
                print(f"cannot write {args.output}: {error.strerror}", file=sys.stderr)
                return 2
            finally:
                partial.unlink(missing_ok=True)
            print(f"wrote {size} bytes to {args.output}", file=sys.stderr)
            return 0
        else:
            reply = call_method(ch, args.method, sys.stdin.read() if args.request == "-" else args.request, args.token)
            if not hasattr(reply, "ByteSize"):
                # A server-streaming method: one JSON line per message until the stream ends (or Ctrl-C).
                for message in reply:
                    print(json_format.MessageToJson(message, preserving_proto_field_name=True, indent=None),
                          flush=True)
                return 0
        print(json_format.MessageToJson(reply, preserving_proto_field_name=True) if reply.ByteSize() else "{}")
        return 0
    except grpc.RpcError as error:
        print(f"{error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    # Piped into `head`, end quietly when the reader has gone, as command-line tools do.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
