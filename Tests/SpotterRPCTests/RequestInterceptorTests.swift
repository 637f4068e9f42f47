import GRPCCore
import GRPCProtobuf
import Logging
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterProto
import SpotterTestSupport
import Synchronization
import Testing

@testable import SpotterRPC

@Suite("Request interceptor and error mapping")
struct RequestInterceptorTests {
    @Test("an import may run five minutes; every other call has the configured deadline, a longer one wins")
    func deadlines() {
        let importCall = "spotter.v1.TransferService/ImportWorkouts"
        #expect(RequestInterceptor.deadline(for: importCall, default: .seconds(30)) == .seconds(300))
        #expect(RequestInterceptor.deadline(for: importCall, default: .seconds(600)) == .seconds(600))
        #expect(
            RequestInterceptor.deadline(for: "spotter.v1.WorkoutService/LogWorkout", default: .seconds(30))
                == .seconds(30))
    }

    @Test("reads the bearer token from the authorization metadata, any case of 'Bearer'")
    func bearerToken() {
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "Bearer abc"]) == "abc")
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "bearer  abc "]) == "abc")
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "Basic abc"]) == "")
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "Bearer \t abc \t"]) == "abc")
        #expect(RequestInterceptor.bearerToken(in: ["authorization": "Bearer  "]) == "")
        let ids = (0..<100).map { _ in RequestInterceptor.newRequestID() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.count == 12 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        #expect(RequestInterceptor.bearerToken(in: [:]) == "")
    }

    @Test(
        "strips the port from peer addresses",
        arguments: [
            ("ipv4:127.0.0.1:5000", "127.0.0.1"), ("ipv6:[::1]:5000", "::1"), ("unix:/tmp/s", "/tmp/s"),
            ("ipv6:[fe80::1%eth0]:443", "fe80::1%eth0"), ("ipv4:10.0.0.2", "10.0.0.2"), ("127.0.0.1:5000", "127.0.0.1"),
            ("::1", "::1"), ("in-process", "in-process"), ("", ""), ("ipv4:", ""), ("[::1", "[::1"),
        ])
    func clientAddress(peer: String, address: String) {
        #expect(RequestInterceptor.address(of: peer) == address)
    }

    @Test("the streaming methods come from the file descriptors; they keep no database connection for the call")
    func streamingMethods() {
        let streaming = RequestInterceptor.streamingMethods
        for method in [
            "spotter.v1.SyncService/Watch", "spotter.v1.SessionService/WatchSession",
            "spotter.v1.TransferService/ImportWorkouts", "spotter.v1.TransferService/ExportAccount",
        ] {
            #expect(streaming.contains(method), "\(method)")
        }
        #expect(!streaming.contains("spotter.v1.WorkoutService/LogWorkout"))
        #expect(!streaming.contains("spotter.v1.SyncService/Pull"))
    }

    @Test("a unary call keeps one database connection, unless it is a stream or spends its time rendering")
    func keepsOneConnection() {
        #expect(RequestInterceptor.keepsOneConnection("spotter.v1.WorkoutService/LogWorkout"))
        #expect(RequestInterceptor.keepsOneConnection("spotter.v1.WorkoutService/GetWorkout"))
        #expect(!RequestInterceptor.keepsOneConnection("spotter.v1.SyncService/Watch"))
        #expect(!RequestInterceptor.keepsOneConnection("spotter.v1.ShareService/GetWorkoutCard"))
        #expect(!RequestInterceptor.keepsOneConnection("spotter.v1.ShareService/GetProgressChart"))
        #expect(!RequestInterceptor.keepsOneConnection("spotter.v1.RunService/LogRun"))
        #expect(RequestInterceptor.keepsOneConnection("spotter.v1.RunService/GetRun"))
        // Names that are not methods (a rename in the .proto files) would keep the connection again.
        let allMethods = RequestInterceptor.methods { _ in true }
        #expect(allMethods.contains("spotter.v1.WorkoutService/LogWorkout"))
        for method in RequestInterceptor.callsAwayFromTheDatabase {
            #expect(allMethods.contains(method), "\(method)")
            #expect(!RequestInterceptor.streamingMethods.contains(method), "\(method)")
        }
    }

    /// An interceptor whose token checks would fail: for calls that never reach one.
    /// The deadline is long: in the first seconds of a whole-suite run, Swift's cooperative pool (a
    /// thread per core) is busy with other suites' work, and a call of a few milliseconds once
    /// waited over 5 s for a thread and met a 5 s deadline.
    static func interceptorWithoutDatabase(
        logger: Logger = Logger(label: "test"), callScope: any CallScope = NoCallScope()
    ) -> RequestInterceptor {
        let unusedPool = PostgresPool(
            configuration: PostgresConfiguration(connectionString: "host=/nonexistent"), logger: Logger(label: "test"))
        return RequestInterceptor(
            auth: AuthService(
                store: PostgresAuthStore(database: SpotterDatabase(pool: unusedPool)),
                hasher: PasswordHasher(cost: .testing), keyring: TestDatabase.testKeyring, logger: Logger(label: "test")
            ),
            logger: logger, deadline: .seconds(60), callScope: callScope)
    }

    @Test("a call that keeps one connection has its request in hand before the token's check opens its transaction")
    func receivesTheRequestFirst() async throws {
        final class Notes: Sendable {
            private let list = Mutex<[String]>([])
            func note(_ event: String) { list.withLock { $0.append(event) } }
            var all: [String] { list.withLock { $0 } }
        }
        /// Stands in for the database's scope: notes when the call's connection would be taken.
        struct NotingScope: CallScope {
            let events: Notes
            func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
                events.note("connection taken")
                throw SpotterError.unavailable("no database in this test")
            }
        }
        let noted = Notes()
        let (messages, sender) = AsyncThrowingStream.makeStream(of: Spotter_V1_LogWorkoutRequest.self)
        let slowNetwork = Task {
            try await Task.sleep(for: .milliseconds(200))
            noted.note("request received")
            sender.yield(Spotter_V1_LogWorkoutRequest())
            sender.finish()
        }
        // The scope ends the call before the token's check.
        let interceptor = Self.interceptorWithoutDatabase(callScope: NotingScope(events: noted))
        let context = ServerContext(
            descriptor: MethodDescriptor(fullyQualifiedService: "spotter.v1.WorkoutService", method: "LogWorkout"),
            remotePeer: "ipv4:127.0.0.1:1", localPeer: "ipv4:127.0.0.1:2", cancellation: .init())
        let request = StreamingServerRequest(
            metadata: ["authorization": "Bearer token"], messages: RPCAsyncSequence(wrapping: messages))
        await #expect(throws: GoogleRPCStatus.self) {
            let _: StreamingServerResponse<Spotter_V1_Workout> = try await interceptor.intercept(
                request: request, context: context
            ) { _, _ in
                Issue.record("the handler ran without a connection")
                return StreamingServerResponse(error: RPCError(code: .internalError, message: "unreachable"))
            }
        }
        try await slowNetwork.value
        #expect(noted.all == ["request received", "connection taken"])
    }

    @Test(
        "a call's log line carries its request id, method, address and trace; below the level none of it is built",
        arguments: [Logger.Level.info, .warning])
    func callLogLine(level: Logger.Level) async throws {
        let lines = RecordingLogHandler.Lines()
        var logger = Logger(label: "test") { _ in RecordingLogHandler(lines: lines) }
        logger.logLevel = level
        let interceptor = Self.interceptorWithoutDatabase(logger: logger)
        let context = ServerContext(
            descriptor: MethodDescriptor(fullyQualifiedService: "grpc.health.v1.Health", method: "Check"),
            remotePeer: "ipv4:192.0.2.7:5000", localPeer: "ipv4:127.0.0.1:2", cancellation: .init())
        let request = StreamingServerRequest(
            metadata: ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
            messages: RPCAsyncSequence(wrapping: ReceivedMessages(messages: [Grpc_Health_V1_HealthCheckRequest()])))
        // Refused by the handler: the interceptor records the call's end at once.
        let response: StreamingServerResponse<Grpc_Health_V1_HealthCheckResponse> = try await interceptor.intercept(
            request: request, context: context
        ) { _, _ in
            #expect(RequestContext.current?.clientAddress == "192.0.2.7")
            return StreamingServerResponse(error: RPCError(code: .notFound, message: "no such service"))
        }
        if case .success = response.accepted { Issue.record("the handler's refusal was lost") }
        if level == .warning {
            #expect(lines.all.isEmpty, "\(lines.all)")
            #expect(lines.metadataWrites == 0, "metadata set on a logger that logs nothing")
            return
        }
        let line = try #require(lines.all.first { $0.message == "call completed" }, "\(lines.all)")
        #expect(line.metadata["method"] == "grpc.health.v1.Health/Check")
        #expect(line.metadata["address"] == "192.0.2.7")
        #expect(line.metadata["code"] == "notFound")
        #expect(line.metadata["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(line.metadata["parent_span_id"] == "00f067aa0ba902b7")
        #expect(line.metadata["request_id"]?.count == 12, "\(line.metadata)")
        #expect(line.metadata["ms"].flatMap(Double.init) != nil, "\(line.metadata)")
        #expect(line.metadata["tenant"] == nil, "a public call has no tenant")
    }

    @Test("a call's deadline fires once its limit has passed, never before, and not at all once cancelled")
    func sharedDeadlines() async throws {
        let deadlines = CallDeadlines(resolution: .milliseconds(10))
        let fired = Mutex<[(name: String, at: ContinuousClock.Instant)]>([])
        let started = ContinuousClock.now
        let kept = deadlines.add(after: .milliseconds(80)) { fired.withLock { $0.append(("kept", .now)) } }
        let cancelled = deadlines.add(after: .milliseconds(80)) { fired.withLock { $0.append(("cancelled", .now)) } }
        deadlines.cancel(cancelled)
        while fired.withLock({ $0 }).isEmpty, ContinuousClock.now - started < .seconds(5) {
            try await Task.sleep(for: .milliseconds(5))
        }
        try await Task.sleep(for: .milliseconds(50))
        let seen = fired.withLock { $0 }
        #expect(seen.map(\.name) == ["kept"])
        #expect(seen.allSatisfy { $0.at - started >= .milliseconds(80) })
        deadlines.cancel(kept)
        #expect(deadlines.count == 0)
    }

    @Test("only the sign-in family and health are public")
    func publicMethods() {
        #expect(RequestInterceptor.publicMethods.contains("spotter.v1.AuthService/SignIn"))
        #expect(!RequestInterceptor.publicMethods.contains("spotter.v1.AuthService/SignOut"))
        #expect(!RequestInterceptor.publicMethods.contains("spotter.v1.AuthService/ListSessions"))
        #expect(!RequestInterceptor.publicMethods.contains("spotter.v1.AccountService/GetProfile"))
    }

    @Test("domain errors map to their gRPC codes with field details")
    func domainErrors() throws {
        let call = RequestContext(
            requestID: "r1", principal: nil, clientAddress: "127.0.0.1", logger: Logger(label: "test"))
        let cases: [(SpotterError, RPCError.Code)] = [
            (.notFound("x"), .notFound), (.alreadyExists(field: "email", reason: "is already taken"), .alreadyExists),
            (.invalid("email", "is bad"), .invalidArgument), (.failedPrecondition("x"), .failedPrecondition),
            (.permissionDenied("needs pro"), .permissionDenied), (.unauthenticated("x"), .unauthenticated),
            (.tooManyRequests("slow down", retryAfterSeconds: 3), .resourceExhausted),
            (.unavailable("x"), .unavailable),
        ]
        for (error, code) in cases {
            let mapped = try #require(RPCErrorMapping.map(error, call: call) as? GoogleRPCStatus)
            #expect(mapped.code == code)
        }
        let invalid = try #require(
            RPCErrorMapping.map(
                SpotterError.invalidArgument([
                    FieldViolation(field: "a", reason: "x"), FieldViolation(field: "b.c", reason: "y"),
                ]),
                call: call
            ) as? GoogleRPCStatus
        )
        #expect(invalid.message == "a: x; b.c: y")
        #expect(invalid.details.compactMap(\.badRequest).flatMap(\.violations).map(\.field) == ["a", "b.c"])
        // A refusal of 10,000 bad sets stays small enough for a client's trailers (16 KiB in gRPC's C
        // core): the first ten named in the message, the first forty in the details.
        let many = try #require(
            RPCErrorMapping.map(
                SpotterError.invalidArgument(
                    (0..<10_000).map {
                        FieldViolation(
                            field: "workout.exercises[\($0 / 100)].sets[\($0 % 100)].rpe",
                            reason: "must be from 1 to 10")
                    }), call: call) as? GoogleRPCStatus)
        #expect(many.code == .invalidArgument)
        #expect(
            many.message.hasSuffix("; and 9990 more (the first 40 are in the details)"), "\(many.message.suffix(80))")
        #expect(many.message.hasPrefix("workout.exercises[0].sets[0].rpe: must be from 1 to 10; "))
        #expect(many.details.compactMap(\.badRequest).flatMap(\.violations).count == 40)
        #expect(many.message.utf8.count < 1_500)
        // What an app acts on without reading the words: the reason, and what goes with it.
        let reasons: [(SpotterError, RPCError.Code, String?, [String: String])] = [
            (.unauthenticated("x", token: .expired), .unauthenticated, "ACCESS_TOKEN_EXPIRED", [:]),
            (.unauthenticated("x", token: .ended), .unauthenticated, "SESSION_ENDED", [:]),
            (.unauthenticated("x"), .unauthenticated, nil, [:]),
            (.tierRequired("x", tier: .coachPro), .permissionDenied, "TIER_REQUIRED", ["tier": "TIER_COACH_PRO"]),
            (.scopeNotGranted("x", scope: .details), .permissionDenied, "SCOPE_NOT_GRANTED", ["scope": "details"]),
            (.permissionDenied("x"), .permissionDenied, nil, [:]),
        ]
        for (error, code, reason, metadata) in reasons {
            let mapped = try #require(RPCErrorMapping.map(error, call: call) as? GoogleRPCStatus)
            let info = mapped.details.compactMap(\.errorInfo)
            #expect(mapped.code == code && info.first?.reason == reason, "\(error)")
            #expect(info.first.map { $0.metadata == metadata && $0.domain == "spotter.dev" } ?? true, "\(error)")
        }
    }

    @Test("unknown errors become INTERNAL with only the request id")
    func internalErrors() throws {
        struct DatabaseSecret: Error { var sql = "SELECT password_hash FROM accounts" }
        let mapped = try #require(
            RPCErrorMapping.map(
                DatabaseSecret(),
                call: RequestContext(
                    requestID: "req42", principal: nil, clientAddress: "127.0.0.1", logger: Logger(label: "test"))
            ) as? RPCError)
        #expect(mapped.code == .internalError)
        #expect(mapped.message == "internal error (request id req42)")
    }

    @Test("the deadline returns the handler's result, or cancels it and answers DEADLINE_EXCEEDED")
    func deadline() async throws {
        // Far from the limit: at the start of a full run on two cores even `{ 42 }` once waited
        // longer than 10 s for a thread.
        let quick = try await RequestInterceptor.withDeadline(.seconds(600)) { 42 }
        #expect(quick == 42)

        let stopped = Flag()
        let error = await #expect(throws: RPCError.self) {
            try await RequestInterceptor.withDeadline(.milliseconds(100)) {
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    stopped.set()
                    throw error
                }
            }
        }
        #expect(error?.code == .deadlineExceeded)
        #expect(stopped.isSet, "the handler's task was not cancelled")

        // gRPC cancels the call (the client went away) before it finishes, and while it runs.
        for cancelWhile in [false, true] {
            let byClient = await #expect(throws: RPCError.self) {
                try await withServerContextRPCCancellationHandle { handle in
                    if !cancelWhile { handle.cancel() }
                    return try await RequestInterceptor.withDeadline(.seconds(60)) {
                        if cancelWhile { handle.cancel() }
                        try await Task.sleep(for: .seconds(60))
                    }
                }
            }
            #expect(byClient?.code == .unavailable)
        }
    }

    @Test("x-forwarded-for names the client only when the peer is a trusted proxy, read from the right")
    func trustedProxies() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 192.168.1.5, fd00::/8")
        #expect(proxies.clientAddress(peer: "10.1.2.3", forwardedFor: ["203.0.113.7"]) == "203.0.113.7")
        #expect(proxies.clientAddress(peer: "198.51.100.1", forwardedFor: ["203.0.113.7"]) == "198.51.100.1")
        // The client's own entry first (possibly forged), then each proxy's: the last untrusted one counts.
        #expect(
            proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["1.1.1.1, 203.0.113.7", "192.168.1.5"])
                == "203.0.113.7")
        #expect(proxies.clientAddress(peer: "fd00::1", forwardedFor: ["2001:db8::9"]) == "2001:db8::9")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["not an address"]) == "10.0.0.1")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: []) == "10.0.0.1")
        #expect(TrustedProxies.none.clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.7"]) == "10.0.0.1")
        #expect(throws: TrustedProxyError(entry: "10.0.0.0/33")) { try TrustedProxies(parsing: "10.0.0.0/33") }
        #expect(throws: TrustedProxyError(entry: "proxy.local")) {
            try TrustedProxies(parsing: "proxy.local, 10.0.0.1")
        }
    }

    @Test("a W3C traceparent gives the log lines its trace id; anything malformed is ignored")
    func traceparent() {
        let trace = RequestInterceptor.traceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(trace?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace?.parentID == "00f067aa0ba902b7")
        for bad in [
            "", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "00-4bf92f-00f067aa0ba902b7-01",
        ] {
            #expect(RequestInterceptor.traceContext(bad) == nil, "\(bad)")
        }
        // A later version may append fields.
        #expect(RequestInterceptor.traceContext("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x") != nil)
    }
}
