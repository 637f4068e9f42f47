import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Postgres
import SpotterProto
import SpotterTestSupport
import Testing

/// Runs the built `spotterd` binary as a newcomer would: no database configured.
@Suite("spotterd process", .timeLimit(.minutes(5)))
struct SpotterdProcessTests {
    @Test("with no database configured it creates an embedded PostgreSQL, serves over TLS, and stops it on SIGTERM")
    func embeddedDatabaseLifecycle() async throws {
        let spotterd = try SpotterdProcess(environment: ["SPOTTER_MAILER_INTERVAL_MS": "100"])
        defer { spotterd.cleanUp() }
        let dataDirectory = spotterd.dataDirectory
        let serving = try await spotterd.waitUntilServing()
        let startLog = spotterd.logText
        try #require(serving, "spotterd did not become healthy:\n\(startLog)")
        #expect(startLog.contains("self-signed development certificate"))
        #expect(
            FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("postgres/PG_VERSION").path))

        try await spotterd.withClient { client in
            let registered = try await Spotter_V1_AuthService.Client(wrapping: client).register(
                .with {
                    $0.email = "ada@example.com"
                    $0.username = "ada"
                    $0.password = "correct horse battery"
                    $0.kind = .lifter
                })
            #expect(!registered.tenantID.isEmpty)
        }

        // spotterd works through a login role of its own, never the cluster's superuser.
        let owner = try await PostgresConnection.connect(
            PostgresConfiguration(
                connectionString: "host=\(dataDirectory.path)/run port=5432 user=spotter dbname=spotter"))
        let users = try await owner.query(
            "SELECT DISTINCT usename::text AS name FROM pg_stat_activity WHERE application_name LIKE 'spotterd%'"
        ).map { try $0.decode("name", as: String.self) }
        #expect(users == ["spotter_server"])
        let login = try #require(
            try await owner.query(
                "SELECT rolsuper, rolinherit, rolbypassrls FROM pg_roles WHERE rolname = 'spotter_server'"
            ).single)
        #expect(try login.decode("rolsuper", as: Bool.self) == false)
        #expect(try login.decode("rolinherit", as: Bool.self) == false)
        #expect(try login.decode("rolbypassrls", as: Bool.self) == false)
        await owner.close()

        // With no SMTP configured, the mailer writes the verification e-mail to the log.
        var logged = false
        for _ in 0..<50 where !logged {
            try await Task.sleep(for: .milliseconds(100))
            logged =
                spotterd.logText.contains("e-mail not sent (no SMTP configured); to ")
                && spotterd.logText.contains("/verify-email?token=spv_")
        }
        #expect(logged)

        await spotterd.stop()
        #expect(spotterd.terminationStatus == 0)
        let stopLog = spotterd.logText
        #expect(stopLog.contains("embedded PostgreSQL stopped"), "\(stopLog)")
        #expect(
            !FileManager.default.fileExists(
                atPath: dataDirectory.appendingPathComponent("postgres/postmaster.pid").path))
    }
}

/// The README's "A first call from outside" against spotterd started as `scripts/run.sh` starts it.
@Suite("README", .timeLimit(.minutes(5)))
struct ReadmeTests {
    @Test("the README's first calls answer as it shows, from a new virtual environment holding only what it installs")
    func firstCalls() async throws {
        let spotterd = try SpotterdProcess(environment: [:])
        defer { spotterd.cleanUp() }
        try #require(try await spotterd.waitUntilServing(), "spotterd did not become healthy:\n\(spotterd.logText)")
        let venv = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("spotter-readme-\(UUID())")
        defer { try? FileManager.default.removeItem(at: venv) }
        let script = TestDatabase.repositoryRoot.appendingPathComponent("Tests/Interop/readme_first_calls.py").path
        let result = try await Subprocess.run(
            "/usr/bin/env",
            [
                "python3", script, "--port", "\(spotterd.port)", "--data-dir", spotterd.dataDirectory.path,
                "--venv", venv.path,
            ],
            timeout: .seconds(300)
        )
        #expect(result.status == 0, "readme_first_calls.py failed:\n\(result.output)")
    }
}

/// Runs `body` with the built `spotterd` serving on a test database in a process of its own, with
/// `environment`'s settings besides.
func withServingSpotterd(
    environment: [String: String] = [:], _ body: (SpotterdProcess) async throws -> Void
) async throws {
    try await TestDatabase.with { database in
        let spotterd = try SpotterdProcess(
            environment: environment.merging(["SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString]) {
                _, url in url
            })
        defer { spotterd.cleanUp() }
        try #require(try await spotterd.waitUntilServing(), "spotterd:\n\(spotterd.logText)")
        try await body(spotterd)
    }
}

/// Every numeric field of every request at its type's extremes, against `spotterd` in its own process
/// (a trap ends that process, not the test run).
@Suite("Numeric extremes", .timeLimit(.minutes(5)))
struct NumericExtremesTests {
    @Test("every numeric field of every request at Int64.max/.min, UInt64.max, ±inf and NaN gets a deliberate answer")
    func everyNumericField() async throws {
        try await withServingSpotterd { spotterd in
            let result = try await runInteropScript(
                "numeric_extremes.py", port: spotterd.port, certificate: spotterd.certificate)
            #expect(result.status == 0, "numeric_extremes.py failed:\n\(result.output)")
            #expect(result.output.contains("numeric extremes: "), "\(result.output)")
            #expect(!spotterd.logText.contains("Fatal error"), "\(spotterd.logText.suffix(2000))")
        }
    }
}

/// HTTP/2 rapid reset against `spotterd` in its own process, whose CPU and memory the script reads.
@Suite("Rapid reset", .timeLimit(.minutes(5)))
struct RapidResetTests {
    @Test("HEADERS then RST_STREAM in a loop for 5 s: the server stays responsive and its memory bounded")
    func rapidReset() async throws {
        try await withServingSpotterd { spotterd in
            let result = try await runInteropScript(
                "rapid_reset.py", port: spotterd.port, certificate: spotterd.certificate,
                ["--pid", "\(spotterd.processIdentifier)", "--seconds", "5"])
            #expect(result.status == 0, "rapid_reset.py failed:\n\(result.output)")
            #expect(result.output.contains("rapid reset: 3 of 3 checks passed"), "\(result.output)")
        }
    }
}

/// Uploads on a slow network against `spotterd` with a pool of two database connections.
@Suite("Slow uploads", .timeLimit(.minutes(5)))
struct SlowUploadTests {
    @Test("four calls whose bodies take 3 s to arrive hold none of two connections; other calls answer meanwhile")
    func slowUploads() async throws {
        try await withServingSpotterd(environment: ["SPOTTER_DATABASE_POOL_SIZE": "2"]) { spotterd in
            let result = try await runInteropScript(
                "slow_upload.py", port: spotterd.port, certificate: spotterd.certificate,
                ["--uploads", "4", "--hold", "3"])
            #expect(result.status == 0, "slow_upload.py failed:\n\(result.output)")
            #expect(result.output.contains("slow upload: 4 of 4 checks passed"), "\(result.output)")
        }
    }
}

@Suite("Sync across spotterd replicas", .timeLimit(.minutes(5)))
struct SyncReplicaTests {
    @Test("with two spotterd processes on one database, a push through one reaches a Watch stream on the other")
    func watchAcrossProcesses() async throws {
        try await TestDatabase.with { database in
            let environment = ["SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString]
            let first = try SpotterdProcess(environment: environment)
            defer { first.cleanUp() }
            let second = try SpotterdProcess(environment: environment)
            defer { second.cleanUp() }
            try #require(try await first.waitUntilServing(), "first spotterd:\n\(first.logText)")
            try #require(try await second.waitUntilServing(), "second spotterd:\n\(second.logText)")

            try await first.withClient { firstClient in
                try await second.withClient { secondClient in
                    let ada = try await signUpLifter(firstClient, "ada")
                    let recorder = WatchRecorder()
                    let watching = startWatching(secondClient, ada, into: recorder)
                    defer { watching.cancel() }
                    #expect(try await recorder.arrival(of: .opened, timeout: .seconds(10)) != nil)

                    let sync = Spotter_V1_SyncService.Client(wrapping: firstClient)
                    let phone = try await sync.registerDevice(.init(), metadata: ada)
                    let seen = recorder.count
                    _ = try await sync.push(
                        batch(phone.deviceID, createWorkout(1, id: UUID().uuidString, name: "Through replica one")),
                        metadata: ada)
                    // How soon it arrives is measured by the sync benchmark, not here.
                    #expect(
                        try await recorder.arrival(of: .changed, skipping: seen) != nil,
                        "the change never reached the other replica")
                    let pulled = try await Spotter_V1_SyncService.Client(wrapping: secondClient).pull(
                        .init(), metadata: ada)
                    #expect(pulled.changes.contains { $0.workout.name == "Through replica one" })
                }
            }
            await first.stop()
            await second.stop()
        }
    }

    @Test(
        "SPOTTER_LOG_FORMAT=json: every line is a JSON object; each call logs one completion line with its duration and code; no password or token"
    )
    func jsonLogs() async throws {
        try await TestDatabase.with { database in
            let server = try SpotterdProcess(environment: [
                "SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString, "SPOTTER_LOG_FORMAT": "json",
            ])
            defer { server.cleanUp() }
            try #require(try await server.waitUntilServing(), "spotterd:\n\(server.logText)")
            let ada = try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                _ = try await Spotter_V1_AccountService.Client(wrapping: client).getProfile(.init(), metadata: ada)
                // A signed-in call that fails (an id that names nothing of Ada's).
                _ = try? await Spotter_V1_WorkoutService.Client(wrapping: client).getWorkout(
                    .with { $0.workoutID = UUID().uuidString.lowercased() }, metadata: ada)
                _ = try? await Spotter_V1_AccountService.Client(wrapping: client).getProfile(
                    .init(),
                    metadata: [
                        "authorization": "Bearer spa_not_a_token",
                        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                    ])
                return ada
            }
            await server.stop()
            let text = server.logText
            var lines: [[String: Any]] = []
            for line in text.split(separator: "\n") {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object != nil, "not a JSON object: \(line)")
                if let object { lines.append(object) }
            }
            #expect(lines.allSatisfy { $0["timestamp"] is String && $0["level"] is String && $0["message"] is String })
            // RFC 3339 in UTC with milliseconds, as log collectors parse it.
            let stamp = try #require(lines.first?["timestamp"] as? String)
            #expect(stamp.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(stamp)")
            #expect(!text.contains("\\/"), "slashes are escaped")
            let completed = lines.filter { $0["message"] as? String == "call completed" }
            let signIn = completed.filter { $0["method"] as? String == "spotter.v1.AuthService/SignIn" }
            #expect(signIn.count == 1, "\(completed)")
            #expect(signIn.first?["code"] as? String == "ok")
            #expect((signIn.first?["ms"] as? String).flatMap(Double.init) != nil, "\(signIn)")
            #expect((signIn.first?["request_id"] as? String)?.isEmpty == false)
            let profile = completed.first {
                $0["method"] as? String == "spotter.v1.AccountService/GetProfile" && $0["code"] as? String == "ok"
            }
            #expect(
                (profile?["tenant"] as? String).flatMap(UUID.init(uuidString:)) != nil, "\(String(describing: profile))"
            )
            #expect(profile?["address"] as? String == "127.0.0.1", "\(String(describing: profile))")
            // A failed call of a signed-in caller names the tenant too, as the successful one does.
            let probe = completed.first { $0["method"] as? String == "spotter.v1.WorkoutService/GetWorkout" }
            #expect(probe?["code"] as? String == "notFound", "\(String(describing: probe))")
            #expect(probe?["tenant"] as? String == profile?["tenant"] as? String, "\(String(describing: probe))")
            let refused = completed.first {
                $0["method"] as? String == "spotter.v1.AccountService/GetProfile" && $0["code"] as? String != "ok"
            }
            #expect(refused?["code"] as? String == "unauthenticated", "\(String(describing: refused))")
            #expect(refused?["trace_id"] as? String == "4bf92f3577b34da6a3ce929d0e0e4736", "the client's trace id")
            let token = String(ada[stringValues: "authorization"].first { _ in true }?.dropFirst("Bearer ".count) ?? "")
            #expect(!token.isEmpty && !text.contains(token), "the access token is in the log")
            #expect(!text.contains("long enough ada"), "the password is in the log")
        }
    }

    @Test("a port already in use stops spotterd with an error naming the listener, the address and its setting")
    func portInUse() async throws {
        try await TestDatabase.with { database in
            let taken = try ListeningSocket()
            defer { taken.close() }
            for (environment, port, expected) in [
                (
                    ["SPOTTER_PORTAL_PORT": "\(taken.port)"], nil,
                    "the coach portal cannot listen on 127.0.0.1:\(taken.port)"
                ),
                ([:], taken.port, "gRPC cannot listen on 127.0.0.1:\(taken.port)"),
                (
                    ["SPOTTER_METRICS_ADDRESS": "127.0.0.1:\(taken.port)"], nil,
                    "the metrics endpoint cannot listen on 127.0.0.1:\(taken.port)"
                ),
            ] as [([String: String], Int?, String)] {
                let server = try SpotterdProcess(
                    environment: environment.merging([
                        "SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString
                    ]) { _, url in url },
                    port: port ?? LoopbackPorts.next())
                defer { server.cleanUp() }
                for await _ in server.exited {}
                #expect(server.terminationStatus != 0)
                #expect(
                    server.logText.contains(expected + ": the address is already in use (another spotterd?); "),
                    "spotterd:\n\(server.logText)")
                #expect(!server.logText.contains("bind(descriptor"), "spotterd:\n\(server.logText)")
            }
        }
    }

    @Test("spotterctl health: SERVING and exit 0 from a running spotterd, exit 2 when nothing answers")
    func healthCommand() async throws {
        try await TestDatabase.with { database in
            let server = try SpotterdProcess(environment: [
                "SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString
            ])
            defer { server.cleanUp() }
            try #require(try await server.waitUntilServing(), "spotterd:\n\(server.logText)")
            // Trusts the development certificate in the data directory, as a probe beside it would.
            let environment = ["SPOTTER_DATA_DIR": server.dataDirectory.path, "SPOTTER_GRPC_PORT": "\(server.port)"]
            let serving = try await database.spotterctl(["health"], environment: environment)
            #expect(serving.status == 0 && serving.output == "SERVING\n", "\(serving.output)")
            let sync = try await database.spotterctl(
                ["health", "--service", "spotter.v1.SyncService", "--insecure"], environment: environment)
            #expect(sync.status == 0, "\(sync.output)")
            await server.stop()
            let away = try await database.spotterctl(["health", "--timeout", "2"], environment: environment)
            #expect(away.status == 2 && away.output.contains("did not answer"), "\(away.output)")
        }
    }
}

/// A TCP socket listening on a free loopback port, to take that port from spotterd.
final class ListeningSocket: Sendable {
    let descriptor: Int32
    let port: Int

    /// Listens on 127.0.0.1 at `port`, or at one the kernel picks.
    init(port: Int = 0) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard descriptor >= 0, listening else {
            if descriptor >= 0 { _ = Glibc.close(descriptor) }
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}

@Suite("Graceful shutdown", .timeLimit(.minutes(5)))
struct GracefulShutdownTests {
    @Test("SIGTERM during an import's upload: the import is answered in full, then spotterd exits")
    func runningCallFinishes() async throws {
        try await withServingSpotterd { spotterd in
            let file = try ImportSamples.data("strong.csv")
            let signal = spotterd.processIdentifier
            let report = try await spotterd.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                return try await Spotter_V1_TransferService.Client(wrapping: client).importWorkouts(metadata: ada) {
                    writer in
                    // Half the file, then SIGTERM, then the rest a moment later: the call was under way.
                    let half = file.count / 2
                    try await writer.write(
                        .with {
                            $0.format = .strongCsv
                            $0.weightUnit = .lb
                            $0.data = file.prefix(half)
                        })
                    kill(signal, SIGTERM)
                    try await Task.sleep(for: .milliseconds(500))
                    try await writer.write(.with { $0.data = file.suffix(from: half) })
                }
            }
            // It was cancelled with the transport's quiescing ("the call was cancelled before it
            // finished; retry") though deploy/README says running calls finish.
            #expect(report.workoutsAdded == 2 && report.setsAdded == 9, "\(report)")
            await spotterd.stop()
            #expect(spotterd.logText.contains("call completed"), "\(spotterd.logText.suffix(2_000))")
        }
    }
}
