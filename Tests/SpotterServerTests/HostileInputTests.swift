import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import SpotterTestSupport
import Testing

/// Requests that once stopped the server or corrupted what it stored, sent over TLS: each must be
/// refused naming its field, and the server must go on serving.
@Suite("Hostile input over TLS")
struct HostileInputTests {
    private func expectInvalid(
        _ field: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        let error = await rpcError(body)
        #expect(error?.code == .invalidArgument, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(
            error?.message.contains("\(field): ") == true, "\(String(describing: error?.message))",
            sourceLocation: sourceLocation)
    }

    private func stillServing(_ client: GRPCClient<HTTP2ClientTransport.Posix>) async throws {
        let health = try await Grpc_Health_V1_Health.Client(wrapping: client).check(.with { $0.service = "" })
        #expect(health.status == .serving)
    }

    @Test("a push whose first mutation id is Int64.max, followed by another, is INVALID_ARGUMENT; the server lives")
    func mutationIDOverflow() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let sync = Spotter_V1_SyncService.Client(wrapping: client)
                let phone = try await sync.registerDevice(.init(), metadata: ada)
                await expectInvalid("mutations[0].mutation_id") {
                    _ = try await sync.push(
                        batch(
                            phone.deviceID, createWorkout(.max, id: UUID().uuidString, name: "a"),
                            createWorkout(1, id: UUID().uuidString, name: "b")),
                        metadata: ada)
                }
                await expectInvalid("mutations[1].mutation_id") {
                    _ = try await sync.push(
                        batch(
                            phone.deviceID, createWorkout(5, id: UUID().uuidString, name: "a"),
                            createWorkout(.min, id: UUID().uuidString, name: "b")),
                        metadata: ada)
                }
                try await stillServing(client)
            }
        }
    }

    @Test("timestamps at both ends of Int64 in every query are INVALID_ARGUMENT naming the field; the server lives")
    func timestampExtremes() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let cora = try await signUpLifter(client, "cora", kind: .coach)
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                let progress = Spotter_V1_ProgressService.Client(wrapping: client)
                let coach = Spotter_V1_CoachService.Client(wrapping: client)
                let squat = "c0000000-0000-4000-8000-000000000001"
                for micros in [Int64.max, .min] {
                    let extreme = Spotter_V1_Timestamp.with { $0.unixMicros = micros }
                    await expectInvalid("from") {
                        _ = try await workouts.listWorkouts(.with { $0.from = extreme }, metadata: ada)
                    }
                    await expectInvalid("to") {
                        _ = try await workouts.listWorkouts(.with { $0.to = extreme }, metadata: ada)
                    }
                    await expectInvalid("from") {
                        _ = try await progress.getProgress(
                            .with {
                                $0.exerciseID = squat
                                $0.from = extreme
                            }, metadata: ada)
                    }
                    await expectInvalid("to") {
                        _ = try await progress.getStatistics(.with { $0.to = extreme }, metadata: ada)
                    }
                    await expectInvalid("to") {
                        _ = try await coach.listClientWorkouts(
                            .with {
                                $0.clientID = UUID().uuidString
                                $0.to = extreme
                            }, metadata: cora)
                    }
                    await expectInvalid("started_at") {
                        _ = try await workouts.prefillFromTemplate(
                            .with {
                                $0.templateID = UUID().uuidString
                                $0.startedAt = extreme
                            }, metadata: ada)
                    }
                    await expectInvalid("workout.started_at") {
                        _ = try await workouts.logWorkout(
                            .with {
                                $0.workout.name = "Far out"
                                $0.workout.startedAt = extreme
                                $0.workout.exercises = [
                                    .with {
                                        $0.exerciseID = squat
                                        $0.sets = [.with { $0.reps = 5 }]
                                    }
                                ]
                            }, metadata: ada)
                    }
                }
                try await stillServing(client)
            }
        }
    }

    @Test("a NUL character in any string field, however deep, is INVALID_ARGUMENT naming its path; nothing is stored")
    func zeroBytes() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                let bob = try await signUpLifter(client, "bob")
                await expectInvalid("email") {
                    _ = try await auth.register(
                        .with {
                            $0.email = "bob\0@evil.co"
                            $0.username = "mallory"
                            $0.password = "long enough mallory"
                            $0.kind = .lifter
                        })
                }
                await expectInvalid("email") {
                    _ = try await auth.register(
                        .with {
                            $0.email = "\0@a.co"
                            $0.username = "mallory"
                            $0.password = "long enough mallory"
                            $0.kind = .lifter
                        })
                }
                // The real bob still signs in by username: nothing else answers to it.
                _ = try await auth.signIn(
                    .with {
                        $0.login = "bob"
                        $0.password = "long enough bob"
                    })
                await expectInvalid("subject") {
                    _ = try await Spotter_V1_FeedbackService.Client(wrapping: client).submitFeedback(
                        .with {
                            $0.kind = .bug
                            $0.subject = "\0x"
                            $0.body = "a body"
                        }, metadata: bob)
                }
                let workouts = Spotter_V1_WorkoutService.Client(wrapping: client)
                await expectInvalid("workout.exercises[0].sets[1].note") {
                    _ = try await workouts.logWorkout(
                        .with {
                            $0.workout.name = "Legs"
                            $0.workout.startedAt = .with {
                                $0.unixMicros = Int64(Date().timeIntervalSince1970) * 1_000_000
                            }
                            $0.workout.exercises = [
                                .with {
                                    $0.exerciseID = "c0000000-0000-4000-8000-000000000001"
                                    $0.sets = [
                                        .with { $0.reps = 5 },
                                        .with {
                                            $0.reps = 5; $0.note = "ok\0then cut"
                                        },
                                    ]
                                }
                            ]
                        }, metadata: bob)
                }
                let history = try await workouts.listWorkouts(.init(), metadata: bob)
                #expect(history.workouts.isEmpty)
                try await stillServing(client)
            }
        }
    }

    @Test(
        "a handler held on a lock past the server's call deadline ends DEADLINE_EXCEEDED and stores nothing; the server lives"
    )
    func serverDeadline() async throws {
        try await TestServer.with(environment: ["SPOTTER_RPC_DEADLINE_SECONDS": "3"]) { server in
            // Registered in-process: on a loaded machine a sign-up over RPC could itself outlast 3 s.
            _ = try await server.database.lifter("ada")
            try await server.withClient { client in
                let auth = Spotter_V1_AuthService.Client(wrapping: client)
                let signIn = Spotter_V1_SignInRequest.with {
                    $0.login = "ada"
                    $0.password = "long enough ada"
                }

                // The handler waits 6 s for ada's account row, locked here; its work stops there.
                let owner = try await server.database.ownerConnection()
                func sessions() async throws -> Int {
                    try await owner.query(
                        "SELECT count(*)::int AS n FROM sessions s JOIN accounts a USING (account_id) WHERE a.username = $1",
                        ["ada"]
                    ).single!.decode("n")
                }
                let before = try await sessions()
                try await owner.execute("BEGIN")
                try await owner.query("SELECT FROM accounts WHERE username = $1 FOR UPDATE", ["ada"])
                let release = Task {
                    try await Task.sleep(for: .seconds(6))
                    try await owner.execute("COMMIT")
                }
                let held = await rpcError { _ = try await auth.signIn(signIn) }
                try await release.value
                let after = try await sessions()
                await owner.close()
                #expect(held?.code == .deadlineExceeded, "\(String(describing: held))")
                #expect(
                    held?.message == "the call took longer than the server's limit of 3 s",
                    "\(String(describing: held?.message))")
                #expect(after == before, "the sign-in past its deadline left a session")
                try await stillServing(client)
            }
        }
    }

    @Test("x-forwarded-for is believed only from a trusted proxy: sign-in failures count against the named address")
    func forwardedFor() async throws {
        for (trusted, counted) in [("127.0.0.1", "203.0.113.7"), ("", "127.0.0.1")] {
            try await TestServer.with(environment: trusted.isEmpty ? [:] : ["SPOTTER_TRUSTED_PROXIES": trusted]) {
                server in
                try await server.withClient { client in
                    _ = try await signUpLifter(client, "ada")
                    let wrong = await rpcError {
                        _ = try await Spotter_V1_AuthService.Client(wrapping: client).signIn(
                            .with {
                                $0.login = "ada"
                                $0.password = "not the password"
                            }, metadata: ["x-forwarded-for": "203.0.113.7"])
                    }
                    #expect(wrong?.code == .unauthenticated)
                }
                let addresses = try await server.database.asOwner { owner in
                    try await owner.query(
                        "SELECT address FROM sign_in_address_failures WHERE failures > 0 ORDER BY address"
                    )
                    .map { try $0.decode("address", as: String.self) }
                }
                #expect(addresses == [counted], "trusted proxies: \(trusted)")
            }
        }
    }
}
