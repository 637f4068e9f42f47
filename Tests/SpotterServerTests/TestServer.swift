import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Logging
import Postgres
import SpotterCore
import SpotterServer
import SpotterTestSupport

/// The real server (TLS, interceptor, handlers, PostgreSQL stores) on a loopback port, for one test.
struct TestServer {
    let port: Int
    let certificatePath: String
    let dataDirectory: URL
    let database: TestDatabase
    /// The server's open Watch streams.
    let watchHub: SyncWatchHub
    /// The metrics endpoint's port, when the test turned it on (`SPOTTER_METRICS_ADDRESS`).
    let metricsPort: Int?
    /// The coach portal's HTTPS port (`nil` when the test turned it off).
    let portalPort: Int?

    /// Starts the server on a fresh database, runs `body`, then shuts the server down gracefully.
    static func with<T: Sendable>(
        environment extra: [String: String] = [:],
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        try await TestDatabase.with { database in
            let dataDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("spotter-test-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dataDirectory) }
            var environment = [
                "SPOTTER_DATABASE_URL": database.ownerConfiguration.connectionString,
                "SPOTTER_DATA_DIR": dataDirectory.path,
                "SPOTTER_GRPC_PORT": "0",
                "SPOTTER_SCRYPT_LOG_N": "10",
                "SPOTTER_METRICS_ADDRESS": "off",
                "SPOTTER_PORTAL_PORT": "0",
            ]
            environment.merge(extra) { _, new in new }
            let settings = try ServerConfiguration.fromEnvironment(environment)
            var logger = Logger(label: "spotterd-test")
            logger.logLevel = .warning
            guard case .external(let url) = settings.database else { throw CancellationError() }
            let application = try SpotterApplication.build(
                settings: settings,
                database: PostgresConfiguration(connectionString: url),
                logger: logger
            )
            let running = Task { try await application.run() }
            do {
                guard let port = try await application.transport.listeningAddress.ipv4?.port else {
                    throw CancellationError()
                }
                let server = TestServer(
                    port: port,
                    certificatePath: try require(application.developmentCertificatePath),
                    dataDirectory: dataDirectory,
                    database: database,
                    watchHub: application.watchHub,
                    metricsPort: await application.metricsPort.first { _ in true },
                    portalPort: await application.portalPort.first { _ in true }
                )
                let result = try await body(server)
                await application.serviceGroup.triggerGracefulShutdown()
                try await running.value
                return result
            } catch {
                await application.serviceGroup.triggerGracefulShutdown()
                _ = try? await running.value
                throw error
            }
        }
    }

    /// A client connected over TLS that trusts the server's development certificate.
    func withClient<T: Sendable>(
        _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> T
    ) async throws -> T {
        try await Self.withClient(port: port, certificate: certificatePath, body)
    }

    /// A client of any server on this machine's `localhost:port` that trusts `certificate` (PEM).
    static func withClient<T: Sendable>(
        port: Int,
        certificate: String,
        _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> T
    ) async throws -> T {
        let transport = try HTTP2ClientTransport.Posix(
            target: .dns(host: "localhost", port: port),
            transportSecurity: .tls { $0.trustRoots = .certificates([.file(path: certificate, format: .pem)]) }
        )
        return try await withGRPCClient(transport: transport) { client in
            try await body(client)
        }
    }
}

/// Swift Testing's `#require` outside of a test body.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw CancellationError() }
    return value
}
