import Foundation
import Logging
import Postgres
import SpotterPostgres

/// Opens the database the configuration names (starting the embedded cluster when none is
/// configured) and applies migrations; shared by `spotterd`, `spotterctl` and the tests.
public struct DatabaseSetup: Sendable {
    /// The login connection (owner of the schema) and the embedded cluster if one was started.
    public let configuration: PostgresConfiguration
    public let embedded: EmbeddedPostgres?
    /// Whether this process started the embedded cluster (another may have been running it).
    public let startedEmbedded: Bool

    /// Resolves where the database is, starting the embedded cluster if that is the configured one.
    public static func open(_ settings: ServerConfiguration, applicationName: String, logger: Logger) throws
        -> DatabaseSetup
    {
        switch settings.database {
        case .external(let url):
            return DatabaseSetup(
                configuration: PostgresConfiguration(connectionString: url, applicationName: applicationName),
                embedded: nil,
                startedEmbedded: false
            )
        case .embedded:
            let embedded = try EmbeddedPostgres(
                dataDirectory: settings.dataDirectory,
                binDirectory: settings.postgresBinDirectory,
                logger: logger
            )
            let started = try embedded.start()
            return DatabaseSetup(
                configuration: PostgresConfiguration(
                    connectionString: embedded.connectionString,
                    applicationName: applicationName
                ),
                embedded: embedded,
                startedEmbedded: started
            )
        }
    }

    /// Applies pending migrations as the login role.
    @discardableResult
    public func migrate(_ directory: URL, logger: Logger) async throws -> [Migration] {
        let migrator = Migrator(migrations: try Migrator.load(from: directory), logger: logger)
        let connection = try await PostgresConnection.connect(configuration.with(role: nil))
        do {
            let applied = try await migrator.migrate(connection)
            await connection.close()
            return applied
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Leaves the embedded cluster; the last process using it stops it.
    public func close() {
        guard let embedded else { return }
        do {
            try embedded.release()
        } catch {
            Logger(label: "spotter.database").error("could not stop embedded PostgreSQL: \(error)")
        }
    }
}
