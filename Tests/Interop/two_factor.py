#!/usr/bin/env python3
"""Two-factor sign-in over gRPC, checked against PyPI's pyotp as an independent RFC 6238 implementation:
enrolment through the provisioning URI, confirmation, sign-in with a challenge and a code, the ±1 step
window, replay refused, a recovery code used once, and turning it off.

    two_factor.py --target 127.0.0.1:PORT --ca CERT.pem

Prints one line per check and `two-factor: N of N checks passed`; exits 1 when any failed.
"""

import argparse
import pathlib
import sys
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import spotter_client  # noqa: E402
from checks import Checks  # noqa: E402

import grpc  # noqa: E402
import pyotp  # noqa: E402


def main():
    args, s, channel = spotter_client.connect(argparse.ArgumentParser())
    call = lambda method, request, token=None: spotter_client.call(  # noqa: E731
        channel, "spotter.v1.AuthService/" + method, request, token=token, timeout=60)
    check = Checks()

    def refused(method, request, code):
        try:
            call(method, request)
            return "answered OK"
        except grpc.RpcError as error:
            return None if error.code() == code else f"{error.code().name}: {error.details()}"

    name = "mfa" + uuid.uuid4().hex[:8]
    password = "two factors please"
    tokens = spotter_client.register_and_sign_in(channel, s, name, password)
    access = tokens.access_token

    enrollment = call("BeginMfaEnrollment", s.auth.BeginMfaEnrollmentRequest(), token=access)
    totp = pyotp.parse_uri(enrollment.provisioning_uri)
    check("the provisioning URI is read by pyotp as SHA-1, 6 digits, 30 s, issuer Spotter",
          isinstance(totp, pyotp.TOTP) and totp.digits == 6 and totp.interval == 30 and totp.issuer == "Spotter"
          and totp.name == name and totp.secret == enrollment.secret, enrollment.provisioning_uri)

    def step_start():
        """The time, after waiting for the next 30-second step when this one has under 10 s left: work
        well inside one step, so "now" and its neighbours stay what the next few checks expect."""
        if time.time() % 30 > 20:
            time.sleep(31 - time.time() % 30)
        return time.time()

    now = step_start()
    confirmed = call("ConfirmMfa", s.auth.ConfirmMfaRequest(code=totp.at(now)), token=access)
    recovery = list(confirmed.recovery_codes)
    check("confirming with pyotp's current code turns it on and returns ten recovery codes", len(recovery) == 10)

    def challenge():
        reply = call("SignIn", s.auth.SignInRequest(login=name, password=password))
        return reply.mfa_challenge.challenge if reply.HasField("mfa_challenge") and not reply.access_token else None

    first = challenge()
    check("the password alone now answers a challenge instead of tokens", first is not None)
    check("the code used to confirm is refused again (replay)",
          refused("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=first, code=totp.at(now)),
                  grpc.StatusCode.UNAUTHENTICATED) is None)
    # Again inside one step: under load the calls so far can take long enough to reach the next one,
    # where the code "two steps ahead" is only one step ahead and signs in.
    now = step_start()
    check("a code two steps ahead is outside the window",
          refused("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=first, code=totp.at(now + 60)),
                  grpc.StatusCode.UNAUTHENTICATED) is None)
    signed_in = call("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=first, code=totp.at(now + 30)))
    check("the next step's code (one step ahead) signs in with tokens and a device token",
          signed_in.access_token.startswith("spa_") and signed_in.device_token.startswith("spd_"))
    check("the same code is refused on a new challenge (replay)",
          refused("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=challenge(), code=totp.at(now + 30)),
                  grpc.StatusCode.UNAUTHENTICATED) is None)
    check("a used challenge is refused",
          refused("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=first, code=recovery[0]),
                  grpc.StatusCode.UNAUTHENTICATED) is None)
    by_recovery = call("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=challenge(), code=recovery[0]))
    check("a recovery code signs in", by_recovery.access_token.startswith("spa_"))
    check("the same recovery code is refused the second time",
          refused("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=challenge(), code=recovery[0]),
                  grpc.StatusCode.UNAUTHENTICATED) is None)
    check("a malformed code is INVALID_ARGUMENT naming the field",
          refused("CompleteSignIn", s.auth.CompleteSignInRequest(challenge=challenge(), code="12"),
                  grpc.StatusCode.INVALID_ARGUMENT) is None)

    call("DisableMfa", s.auth.DisableMfaRequest(code=recovery[1]), token=by_recovery.access_token)
    plain = call("SignIn", s.auth.SignInRequest(login=name, password=password))
    check("once turned off, the password alone signs in again", plain.access_token.startswith("spa_"))

    return check.finish("two-factor")


if __name__ == "__main__":
    sys.exit(main())
