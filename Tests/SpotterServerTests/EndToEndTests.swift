import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("End to end over TLS")
struct EndToEndTests {
    private func bearer(_ token: String) -> Metadata {
        ["authorization": "Bearer \(token)"]
    }

    @Test("register → verify → sign in → profile → refresh → old refresh fails → sign out → token refused")
    func fullAccountLifecycle() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                let accounts = Spotter_V1_AccountService.Client(wrapping: client)
                let registered = try await auth.register(
                    .with {
                        $0.email = "Ada@Example.com"
                        $0.username = "ada"
                        $0.password = "correct horse battery"
                        $0.kind = .lifter
                        $0.timeZone = "Europe/London"
                    })
                #expect(!registered.tenantID.isEmpty)

                let code = try #require(
                    try await server.database.emailedCode(to: "ada@example.com", kind: "verify_email"))
                _ = try await auth.verifyEmail(.with { $0.token = code })

                let tokens = try await auth.signIn(
                    .with {
                        $0.login = "ada@example.com"
                        $0.password = "correct horse battery"
                        $0.deviceLabel = "test phone"
                    })
                #expect(tokens.tenantID == registered.tenantID)

                let profile = try await accounts.getProfile(.init(), metadata: bearer(tokens.accessToken))
                #expect(profile.username == "ada")
                #expect(profile.email == "ada@example.com")
                #expect(profile.emailVerified)
                #expect(profile.timeZone == "Europe/London")
                #expect(profile.tier == .free)

                let updated = try await accounts.updateProfile(
                    .with {
                        $0.displayName = "Ada"
                        $0.unit = .lb
                    },
                    metadata: bearer(tokens.accessToken)
                )
                #expect(updated.displayName == "Ada")
                #expect(updated.unit == .lb)
                #expect(updated.timeZone == "Europe/London")

                // A bio and specialities are what the coach directory shows: a lifter's are refused,
                // field by field, and clearing them is fine.
                let described = await rpcError {
                    _ = try await accounts.updateProfile(
                        .with {
                            $0.bio = "Powerlifting since 2015."
                            $0.specialities = .with { $0.items = ["squat", "Squat"] }
                        },
                        metadata: bearer(tokens.accessToken))
                }
                #expect(described?.code == .invalidArgument)
                #expect(
                    described?.message
                        == "specialities[1]: repeats an earlier one; bio: is for coaches, whom the coach directory "
                        + "lists; specialities: are for coaches, whom the coach directory lists",
                    "\(String(describing: described))")
                let cleared = try await accounts.updateProfile(
                    .with {
                        $0.bio = ""
                        $0.specialities = .init()
                    }, metadata: bearer(tokens.accessToken))
                #expect(cleared.specialities.isEmpty && cleared.bio.isEmpty)
                #expect(cleared.displayName == "Ada", "fields not sent stay")

                let sessions = try await auth.listSessions(.init(), metadata: bearer(tokens.accessToken))
                #expect(sessions.sessions.map(\.deviceLabel) == ["test phone"])
                #expect(sessions.sessions.map(\.signInAddress) == ["127.0.0.1"], "the address it signed in from")
                #expect(sessions.sessions.first?.current == true)

                let refreshed = try await auth.refresh(.with { $0.refreshToken = tokens.refreshToken })
                _ = try await accounts.getProfile(.init(), metadata: bearer(refreshed.accessToken))
                #expect(
                    await rpcCode { _ = try await auth.refresh(.with { $0.refreshToken = tokens.refreshToken }) }
                        == .unauthenticated)
                // Reuse revoked the session: the rotated tokens are dead too.
                #expect(
                    await rpcCode {
                        _ = try await accounts.getProfile(.init(), metadata: bearer(refreshed.accessToken))
                    } == .unauthenticated)

                let again = try await auth.signIn(
                    .with {
                        $0.login = "ada"
                        $0.password = "correct horse battery"
                    })
                // A new verification link: Ada's address is verified already; none without a token.
                let resent = await rpcError {
                    _ = try await auth.resendVerificationEmail(.init(), metadata: bearer(again.accessToken))
                }
                #expect(resent?.code == .failedPrecondition && resent?.message == "your address is verified already")
                #expect(await rpcCode { _ = try await auth.resendVerificationEmail(.init()) } == .unauthenticated)
                // A signed-in change of password: the current one named when wrong, then changed,
                // this session kept.
                let wrongCurrent = await rpcError {
                    _ = try await auth.changePassword(
                        .with {
                            $0.currentPassword = "not the password"
                            $0.newPassword = "a brand new battery"
                        }, metadata: bearer(again.accessToken))
                }
                #expect(wrongCurrent?.code == .invalidArgument)
                #expect(wrongCurrent?.message == "current_password: is not your password")
                let changed = try await auth.changePassword(
                    .with {
                        $0.currentPassword = "correct horse battery"
                        $0.newPassword = "a brand new battery"
                    }, metadata: bearer(again.accessToken))
                #expect(changed.sessionsEnded == 0)
                _ = try await accounts.getProfile(.init(), metadata: bearer(again.accessToken))
                #expect(
                    await rpcCode {
                        _ = try await auth.changePassword(
                            .with {
                                $0.currentPassword = "a brand new battery"
                                $0.newPassword = "another new battery"
                            })
                    } == .unauthenticated, "it needs a signed-in session")
                _ = try await auth.signOut(.init(), metadata: bearer(again.accessToken))
                #expect(
                    await rpcCode { _ = try await accounts.getProfile(.init(), metadata: bearer(again.accessToken)) }
                        == .unauthenticated)

                // A new address: a link to it, which the profile shows waiting until VerifyEmail
                // takes it or CancelEmailChange ends it.
                let last = try await auth.signIn(
                    .with {
                        $0.login = "ada"
                        $0.password = "a brand new battery"
                    })
                #expect(try await accounts.getProfile(.init(), metadata: bearer(last.accessToken)).pendingEmail == "")
                _ = try await auth.changeEmail(
                    .with {
                        $0.password = "a brand new battery"
                        $0.newEmail = "ada@typo.example"
                    }, metadata: bearer(last.accessToken))
                let waiting = try await accounts.getProfile(.init(), metadata: bearer(last.accessToken))
                #expect(waiting.pendingEmail == "ada@typo.example" && waiting.email != "ada@typo.example")
                let linkLifetime = waiting.pendingEmailExpiresAt.unixMicros - waiting.pendingEmailSentAt.unixMicros
                #expect(abs(linkLifetime - 48 * 3600 * 1_000_000) < 60 * 1_000_000, "the link works for two days")
                _ = try await auth.cancelEmailChange(.init(), metadata: bearer(last.accessToken))
                #expect(try await accounts.getProfile(.init(), metadata: bearer(last.accessToken)).pendingEmail == "")
                let noneWaiting = await rpcError {
                    _ = try await auth.cancelEmailChange(.init(), metadata: bearer(last.accessToken))
                }
                #expect(
                    noneWaiting?.code == .failedPrecondition
                        && noneWaiting?.message == "no change of address is waiting")
                let cancelledCode = try #require(
                    try await server.database.emailedCode(to: "ada@typo.example", kind: "change_email"))
                #expect(
                    await rpcCode { _ = try await auth.verifyEmail(.with { $0.token = cancelledCode }) } == .notFound)
                _ = try await auth.changeEmail(
                    .with {
                        $0.password = "a brand new battery"
                        $0.newEmail = "ada@new.example"
                    }, metadata: bearer(last.accessToken))
                let changeCode = try #require(
                    try await server.database.emailedCode(to: "ada@new.example", kind: "change_email"))
                _ = try await auth.verifyEmail(.with { $0.token = changeCode })
                #expect(
                    try await accounts.getProfile(.init(), metadata: bearer(last.accessToken)).email
                        == "ada@new.example")

                // A new username, taken at once; the same one is refused naming the field.
                let takenName = await rpcError {
                    _ = try await auth.changeUsername(
                        .with { $0.newUsername = "ada" }, metadata: bearer(last.accessToken))
                }
                #expect(
                    takenName?.code == .invalidArgument
                        && takenName?.message == "new_username: is the one you have")
                _ = try await auth.changeUsername(
                    .with { $0.newUsername = "ada.l" }, metadata: bearer(last.accessToken))
                #expect(try await accounts.getProfile(.init(), metadata: bearer(last.accessToken)).username == "ada.l")

                // Deleting the account: the password again, then nothing of it answers.
                let wrongPassword = await rpcError {
                    _ = try await auth.deleteAccount(
                        .with { $0.password = "correct horse battery" }, metadata: bearer(last.accessToken))
                }
                #expect(wrongPassword?.code == .invalidArgument && wrongPassword?.message == "password: is wrong")
                #expect(
                    await rpcCode { _ = try await auth.deleteAccount(.with { $0.password = "a brand new battery" }) }
                        == .unauthenticated)
                _ = try await auth.deleteAccount(
                    .with { $0.password = "a brand new battery" }, metadata: bearer(last.accessToken))
                #expect(
                    await rpcCode { _ = try await accounts.getProfile(.init(), metadata: bearer(last.accessToken)) }
                        == .unauthenticated)
                #expect(
                    await rpcCode {
                        _ = try await auth.signIn(
                            .with {
                                $0.login = "ada"
                                $0.password = "a brand new battery"
                            })
                    } == .unauthenticated)
                #expect(try await server.database.count("SELECT count(*)::int FROM tenants") == 0)
            }
        }
    }

    @Test("calls without a token, with a bad token or with bad input get the right codes and clear messages")
    func errorCodes() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                let accounts = Spotter_V1_AccountService.Client(wrapping: client)
                do {
                    _ = try await accounts.getProfile(.init())
                    Issue.record("no token accepted")
                } catch let error as RPCError {
                    #expect(error.code == .unauthenticated)
                    #expect(error.message.contains("authorization"))
                }
                #expect(
                    await rpcCode { _ = try await accounts.getProfile(.init(), metadata: bearer("spa_forged")) }
                        == .unauthenticated)
                do {
                    _ = try await auth.register(
                        .with {
                            $0.email = "not-an-address"
                            $0.username = "x"
                            $0.password = "short"
                            $0.unit = .UNRECOGNIZED(42)
                        })
                    Issue.record("invalid registration accepted")
                } catch let error as RPCError {
                    #expect(error.code == .invalidArgument)
                    #expect(error.message.contains("email: is not an e-mail address"))
                    #expect(error.message.contains("username: must be 3 to 32 characters"))
                    #expect(error.message.contains("password: must be at least 8 characters"))
                    #expect(error.message.contains("kind: must be LIFTER or COACH"))
                    #expect(error.message.contains("unit: must be KG or LB"))
                    let status = try #require(try error.unpackGoogleRPCStatus())
                    let fields = status.details.compactMap(\.badRequest).flatMap(\.violations).map(\.field)
                    #expect(fields == ["email", "username", "password", "kind", "unit"])
                }
                #expect(
                    await rpcCode {
                        _ = try await auth.signIn(
                            .with {
                                $0.login = "nobody"
                                $0.password = "whatever password"
                            })
                    } == .unauthenticated)
                // The password reset answer does not reveal whether an account exists.
                _ = try await auth.requestPasswordReset(.with { $0.email = "nobody@example.com" })
            }
        }
    }

    @Test("health reports SERVING for the server and each service, NOT_FOUND for unknown ones")
    func healthCheck() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let health = Grpc_Health_V1_Health.Client(wrapping: client)
                // The first answer is already SERVING: the database is checked before the server
                // listens, so a probe never sees "not checked yet".
                #expect(try await health.check(.with { $0.service = "" }).status == .serving)
                #expect(try await health.check(.with { $0.service = "spotter.v1.AuthService" }).status == .serving)
                #expect(
                    await rpcCode { _ = try await health.check(.with { $0.service = "nope.Service" }) } == .notFound)
                let first = try await health.watch(.with { $0.service = "" }) { response in
                    for try await message in response.messages { return message.status }
                    return .unknown
                }
                #expect(first == .serving)
            }
        }
    }

    @Test("health reports NOT_SERVING while PostgreSQL is unreachable")
    func healthWithoutDatabase() async throws {
        let unreachable = "host=/nonexistent-spotter-socket port=1 user=nobody dbname=nothing connect_timeout=1"
        try await TestServer.with(environment: ["SPOTTER_DATABASE_URL": unreachable]) { server in
            try await server.withClient { client in
                let health = Grpc_Health_V1_Health.Client(wrapping: client)
                #expect(try await health.check(.with { $0.service = "" }).status == .notServing)
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                do {
                    _ = try await auth.signIn(
                        .with {
                            $0.login = "ada"
                            $0.password = "whatever password"
                        })
                    Issue.record("sign-in without a database succeeded")
                } catch let error as RPCError {
                    #expect(error.code == .unavailable)
                    #expect(!error.message.contains("nonexistent"))
                }
            }
        }
    }
}
