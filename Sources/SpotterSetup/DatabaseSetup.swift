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
    public func migrate(_ directory: URL, logger: Logger, audit: MigrationAudit? = nil) async throws -> [Migration] {
        let migrator = Migrator(migrations: try Migrator.load(from: directory), logger: logger)
        let connection = try await PostgresConnection.connect(configuration.with(role: nil))
        do {
            let applied = try await migrator.migrate(connection, audit: audit)
            await connection.close()
            return applied
        } catch {
            await connection.close()
            throw error
        }
    }

    /// What the process works through once migrations are done. With the embedded cluster that is a
    /// login role of its own, `login`, which is no superuser, inherits nothing and may only switch
    /// to `roles`: a session that resets its role can do nothing at all. (Only migrations connect as
    /// the cluster's superuser.) With an external database it is `externalURL`'s login, which the
    /// operator made alike (deploy/roles.sql), else the configured owner login, unchanged.
    public func working(login: String, memberOf roles: [String], externalURL: String? = nil) async throws
        -> PostgresConfiguration
    {
        guard let embedded else {
            guard let externalURL else { return configuration }
            var working = configuration
            working.connectionString = externalURL
            return working
        }
        let owner = try await PostgresConnection.connect(configuration.with(role: nil))
        do {
            try await owner.query(
                """
                DO $$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(login)') THEN
                        CREATE ROLE \(login) LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
                    END IF;
                END
                $$
                """)
            for role in roles {
                // Role names come from the operator's settings; quoted as identifiers all the same.
                let quoted = "\"" + role.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                try await owner.query("GRANT \(quoted) TO \(login)")
            }
            await owner.close()
        } catch {
            await owner.close()
            throw error
        }
        var working = configuration
        working.connectionString = embedded.connectionString(user: login)
        return working
    }

    /// Why the login of `working` could leave row-level security, or `nil` when it cannot: it owns
    /// the schema, is a superuser or bypasses row-level security, or holds (or may switch to) a role
    /// beyond `roles` — a statement injected into a request could `RESET ROLE` or `SET ROLE` to it.
    public static func workingLoginProblem(_ working: PostgresConfiguration, roles: [String]) async throws -> String? {
        let connection = try await PostgresConnection.connect(working.with(role: nil))
        defer { Task { await connection.close() } }
        let row = try await connection.query(
            """
            SELECT session_user AS name, r.rolsuper OR r.rolbypassrls AS unrestricted,
                   pg_has_role(session_user, n.nspowner, 'MEMBER')
                       OR EXISTS (SELECT FROM pg_class c WHERE c.relnamespace = n.oid
                                  AND pg_has_role(session_user, c.relowner, 'MEMBER')) AS owner,
                   (SELECT string_agg(g.rolname, ', ' ORDER BY g.rolname) FROM pg_auth_members m
                    JOIN pg_roles g ON g.oid = m.roleid
                    WHERE m.member = r.oid AND g.rolname <> ALL ($1::text[])) AS others
            FROM pg_roles r, pg_namespace n
            WHERE r.rolname = session_user AND n.nspname = 'public'
            """, [roles]
        ).single
        guard let row else { return "its login was not found" }
        let name = try row.decode("name", as: String.self)
        if try row.decode("unrestricted", as: Bool.self) {
            return "\(name) is a superuser or bypasses row-level security"
        }
        if try row.decode("owner", as: Bool.self) {
            return "\(name) owns the schema or its tables, or may act as their owner"
        }
        if let others = try row.decode("others", as: String?.self) {
            return "\(name) may also switch to \(others), beyond \(roles.joined(separator: " and "))"
        }
        return nil
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
