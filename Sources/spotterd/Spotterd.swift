import ArgumentParser
import Foundation
import Logging
import SpotterCore
import SpotterPostgres
import SpotterServer

/// `spotterd`: the Spotter server. Flags override the `SPOTTER_*` environment variables.
@main
struct Spotterd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotterd",
        abstract: "Runs the Spotter server: gRPC over TLS on PostgreSQL.",
        discussion: "Configuration comes from SPOTTER_* environment variables (see the README); flags override them."
    )

    @Option(help: "Address to listen on (SPOTTER_GRPC_HOST).")
    var host: String?

    @Option(help: "Port to listen on (SPOTTER_GRPC_PORT).")
    var port: Int?

    @Option(help: "Port of the coach portal over HTTPS (SPOTTER_PORTAL_PORT, default 8444).")
    var portalPort: Int?

    @Flag(help: "Do not serve the coach portal (SPOTTER_PORTAL_PORT=off).")
    var noPortal = false

    @Option(help: "Data directory for the embedded database and development certificate (SPOTTER_DATA_DIR).")
    var dataDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error (SPOTTER_LOG_LEVEL).")
    var logLevel: String?

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        if let host { environment["SPOTTER_GRPC_HOST"] = host }
        if let port { environment["SPOTTER_GRPC_PORT"] = String(port) }
        if let portalPort { environment["SPOTTER_PORTAL_PORT"] = String(portalPort) }
        if noPortal { environment["SPOTTER_PORTAL_PORT"] = "off" }
        if let dataDir { environment["SPOTTER_DATA_DIR"] = dataDir }
        if let logLevel { environment["SPOTTER_LOG_LEVEL"] = logLevel }
        let settings = try ServerConfiguration.fromEnvironment(environment)
        settings.logFormat.bootstrap(level: settings.logLevel)
        let logger = Logger(label: "spotterd")

        let database = try DatabaseSetup.open(settings, applicationName: "spotterd", logger: logger)
        defer { database.close() }
        if settings.migrateOnStart {
            try await database.migrate(settings.migrationsDirectory, logger: logger, audit: .onStart)
        }
        let roles = [settings.applicationRole, settings.mailerRole]
        let working = try await database.working(
            login: "spotter_server", memberOf: roles, externalURL: settings.serverDatabaseURL)
        if database.embedded == nil {
            if settings.serverDatabaseURL == nil {
                logger.warning(
                    "spotterd works as the schema owner's login: set SPOTTER_SERVER_DATABASE_URL to a login that may only switch to \(roles.joined(separator: " and ")) (deploy/roles.sql creates spotter_server), so that a statement injected into a request cannot leave row-level security"
                )
            } else if let problem = try await DatabaseSetup.workingLoginProblem(working, roles: roles) {
                logger.warning(
                    "SPOTTER_SERVER_DATABASE_URL's login could leave row-level security: \(problem); deploy/roles.sql shows the login spotterd needs"
                )
            }
        }
        let application = try SpotterApplication.build(settings: settings, database: working, logger: logger)
        if let certificate = application.developmentCertificatePath {
            logger.notice(
                "no TLS certificate configured; using a self-signed development certificate",
                metadata: ["certificate": "\(certificate)"])
        }
        // Said once each socket is bound, not before: a port already in use fails the start
        // without a line claiming it listens.
        let announcing = Task {
            let address = try? await application.transport.listeningAddress
            guard let port = address?.ipv4?.port ?? address?.ipv6?.port else { return }
            logger.notice("spotterd listening", metadata: ["address": "\(settings.host):\(port)"])
            if let portal = await application.portalPort.first(where: { _ in true }) {
                logger.notice("coach portal listening", metadata: ["url": "https://\(settings.host):\(portal)/"])
            }
        }
        defer { announcing.cancel() }
        try await application.run()
        logger.notice("spotterd stopped")
    }
}
