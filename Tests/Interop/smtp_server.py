#!/usr/bin/env python3
"""A real SMTP server on loopback for the mailer tests: aiosmtpd with STARTTLS required and
AUTH PLAIN/LOGIN required. Recipients starting with "bounce" get 550, "defer" get 451.
Each accepted message is written as JSON to --messages; the port goes to --port-file once ready.
Runs until SIGTERM, SIGINT, or the end of the process that started it (a test that crashed or was
killed cannot leave it behind).
"""

import argparse
import json
import os
import pathlib
import socket
import signal
import ssl
import sys
import time
import uuid

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Handler:
    def __init__(self, messages):
        self.messages = messages

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("bounce"):
            return "550 5.1.1 mailbox unknown"
        if address.startswith("defer"):
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        record = {
            "from": envelope.mail_from,
            "to": envelope.rcpt_tos,
            "data": envelope.content.decode("utf-8"),
            "tls": session.ssl is not None,
            "user": session.login_data.decode() if isinstance(session.login_data, bytes) else session.login_data,
        }
        # Written under a temporary name and renamed, so a reader never sees half a file.
        name = uuid.uuid4().hex
        (self.messages / f".{name}.tmp").write_text(json.dumps(record))
        (self.messages / f".{name}.tmp").rename(self.messages / f"{name}.json")
        return "250 Message accepted"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--messages", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == args.user \
            and auth_data.password.decode() == args.password
        return AuthResult(success=ok, handled=False)

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    messages = pathlib.Path(args.messages)
    messages.mkdir(parents=True, exist_ok=True)
    controller = Controller(
        Handler(messages),
        hostname="127.0.0.1",
        port=port,
        tls_context=context,
        require_starttls=True,
        authenticator=authenticator,
        auth_required=True,
        auth_require_tls=True,
        server_hostname="localhost",
    )
    # A child inherits the signals its parent ignores, and the Swift test process ignores SIGTERM
    # (swift-service-lifecycle handles it through a dispatch source): handle it explicitly.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    parent = os.getppid()
    controller.start()
    pathlib.Path(args.port_file).write_text(str(port))
    try:
        while os.getppid() == parent:
            time.sleep(0.5)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
