import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SpotterProto
import SpotterTestSupport
import Testing

/// Runs the built `spotterd` binary as a newcomer would: no database configured.
@Suite("spotterd process")
struct SpotterdProcessTests {
    @Test("with no database configured it creates an embedded PostgreSQL, serves over TLS, and stops it on SIGTERM")
    func embeddedDatabaseLifecycle() async throws {
        let dataDirectory = URL(fileURLWithPath: "/tmp/spotterd-test-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let port = Int.random(in: 20_000...40_000)
        let binary = TestDatabase.repositoryRoot.appendingPathComponent(".build/debug/spotterd").path
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "SPOTTER_DATABASE_URL")
        environment["SPOTTER_DATA_DIR"] = dataDirectory.path
        environment["SPOTTER_SCRYPT_LOG_N"] = "10"
        environment["SPOTTER_MAILER_INTERVAL_MS"] = "100"
        let log = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("spotterd-\(port).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--port", "\(port)"]
        process.environment = environment
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let certificate = dataDirectory.appendingPathComponent("tls/dev-cert.pem").path
        var serving = false
        for _ in 0..<300 where !serving {
            try await Task.sleep(for: .milliseconds(200))
            guard FileManager.default.fileExists(atPath: certificate) else { continue }
            serving = (try? await healthStatus(port: port, certificate: certificate)) == .serving
        }
        let startLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try #require(serving, "spotterd did not become healthy:\n\(startLog)")
        #expect(startLog.contains("self-signed development certificate"))
        #expect(
            FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("postgres/PG_VERSION").path))

        try await TestServer.withClient(port: port, certificate: certificate) { client in
            let registered = try await Spotter_V1_AuthService.Client(wrapping: client).register(
                .with {
                    $0.email = "ada@example.com"
                    $0.username = "ada"
                    $0.password = "correct horse battery"
                    $0.kind = .lifter
                })
            #expect(!registered.tenantID.isEmpty)
        }

        // With no SMTP configured, the mailer writes the verification e-mail to the log.
        var logged = false
        for _ in 0..<50 where !logged {
            try await Task.sleep(for: .milliseconds(100))
            logged = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains(
                "e-mail not sent (no SMTP configured)")
        }
        #expect(logged)

        kill(process.processIdentifier, SIGTERM)
        for await _ in exited.stream {}
        #expect(process.terminationStatus == 0)
        let stopLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(stopLog.contains("embedded PostgreSQL stopped"), "\(stopLog)")
        #expect(
            !FileManager.default.fileExists(
                atPath: dataDirectory.appendingPathComponent("postgres/postmaster.pid").path))
    }

    private func healthStatus(port: Int, certificate: String) async throws
        -> Grpc_Health_V1_HealthCheckResponse.ServingStatus
    {
        try await TestServer.withClient(port: port, certificate: certificate) { client in
            var options = CallOptions.defaults
            options.timeout = .seconds(2)
            options.waitForReady = false
            return try await Grpc_Health_V1_Health.Client(wrapping: client).check(
                .with { $0.service = "" }, options: options
            ).status
        }
    }
}
