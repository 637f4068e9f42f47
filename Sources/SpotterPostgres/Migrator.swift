import Crypto
import Foundation
import Logging
import Postgres

/// One forward-only schema change: `Migrations/NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    /// SHA-256 of the file, recorded when applied; a later change to the file is refused.
    public var checksum: String {
        SHA256.hash(data: Array(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Why migrating is refused.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case badFileName(String)
    case duplicateVersion(Int)
    case checksumMismatch(version: Int, name: String)
    case missingFile(version: Int, name: String)

    public var description: String {
        switch self {
        case .badFileName(let file): "migration file \(file) is not named NNNN_name.sql"
        case .duplicateVersion(let version): "two migration files have version \(version)"
        case .checksumMismatch(let version, let name):
            "migration \(version)_\(name) was changed after it was applied; add a new migration instead"
        case .missingFile(let version, let name):
            "migration \(version)_\(name) is applied in the database but its file is missing"
        }
    }
}

/// Where one migration stands in a database.
public struct MigrationState: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        case applied
        case pending
        case changed
        case missing
    }

    public var version: Int
    public var name: String
    public var status: Status
    public var appliedAt: Date?
}

/// Who applies migrations, for the audit row each one writes in its own transaction: an operator
/// with `spotterctl` (`admin`) or spotterd on start-up (`system`).
public struct MigrationAudit: Sendable, Equatable {
    public enum ActorKind: String, Sendable {
        case admin
        case system
    }

    public var actorKind: ActorKind
    public var actor: String
    public var osUser: String?
    public var reason: String

    public init(actorKind: ActorKind, actor: String, osUser: String?, reason: String) {
        self.actorKind = actorKind
        self.actor = actor
        self.osUser = osUser
        self.reason = reason
    }

    /// spotterd migrating as it starts (`SPOTTER_MIGRATE_ON_START`), as the system user it runs as.
    public static var onStart: MigrationAudit {
        MigrationAudit(
            actorKind: .system, actor: "spotterd",
            osUser: getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) },
            reason: "applied on start (SPOTTER_MIGRATE_ON_START)")
    }
}

/// Applies migrations in order, each in its own transaction, under an advisory lock so that two
/// processes never migrate one database at once.
public struct Migrator: Sendable {
    public let migrations: [Migration]
    private let logger: Logger
    // Any constant works; it only has to be the same for every Spotter process.
    private static let lockKey: Int64 = 0x5370_6f74_7465_72

    public init(migrations: [Migration], logger: Logger) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.logger = logger
    }

    /// Reads every `NNNN_name.sql` file of a directory.
    public static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
        var seen = Set<Int>()
        return try files.map { file in
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]),
                stem[..<underscore].count == 4
            else { throw MigrationError.badFileName(file) }
            guard seen.insert(version).inserted else { throw MigrationError.duplicateVersion(version) }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            return Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql)
        }
        .sorted { $0.version < $1.version }
    }

    /// Applies every pending migration; returns those it applied. Runs as the connection's role,
    /// which must own the schema. With `audit`, each migration appends a `db.migrate` row to the
    /// audit log in its own transaction (a migration that fails leaves neither).
    @discardableResult
    public func migrate(_ connection: PostgresConnection, audit: MigrationAudit? = nil) async throws -> [Migration] {
        // Lock first: even CREATE TABLE IF NOT EXISTS races with itself.
        try await connection.query("SELECT pg_advisory_lock($1)", [Self.lockKey])
        do {
            try await connection.execute(Self.createTable)
            let applied = try await apply(connection, audit: audit)
            try await connection.query("SELECT pg_advisory_unlock($1)", [Self.lockKey])
            return applied
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock($1)", [Self.lockKey])
            throw error
        }
    }

    /// Every migration known to the files or the database, and where it stands.
    public func status(_ connection: PostgresConnection) async throws -> [MigrationState] {
        let exists = try await connection.query("SELECT to_regclass('spotter_migrations') IS NOT NULL AS present")
        let present = try exists.single!.decode("present", as: Bool.self)
        return states(recorded: present ? try await appliedRows(connection) : [:])
    }

    private func states(recorded: [Int: AppliedRow]) -> [MigrationState] {
        var states = migrations.map { migration -> MigrationState in
            guard let row = recorded[migration.version] else {
                return MigrationState(version: migration.version, name: migration.name, status: .pending)
            }
            let status: MigrationState.Status = row.checksum == migration.checksum ? .applied : .changed
            return MigrationState(version: migration.version, name: migration.name, status: status, appliedAt: row.at)
        }
        let known = Set(migrations.map(\.version))
        for (version, row) in recorded where !known.contains(version) {
            states.append(MigrationState(version: version, name: row.name, status: .missing, appliedAt: row.at))
        }
        return states.sorted { $0.version < $1.version }
    }

    /// Runs with the lock held and the migrations table in place.
    private func apply(_ connection: PostgresConnection, audit: MigrationAudit?) async throws -> [Migration] {
        let done = try await appliedRows(connection)
        let newest = migrations.last?.version ?? 0
        for state in states(recorded: done) {
            switch state.status {
            case .changed: throw MigrationError.checksumMismatch(version: state.version, name: state.name)
            // A migration newer than every file: a newer release migrated this database (a rolling
            // upgrade, or a rollback of the binary). Migrations only add within a release, so this
            // one serves on it (deploy/README.md); only a gap among its own files is refused.
            case .missing where state.version > newest:
                logger.warning(
                    "the database has a migration newer than this release's; serving on the newer schema",
                    metadata: [
                        "migration": "\(String(format: "%04d", state.version))_\(state.name)",
                        "newest_known": "\(String(format: "%04d", newest))",
                    ])
            case .missing: throw MigrationError.missingFile(version: state.version, name: state.name)
            case .applied, .pending: continue
            }
        }
        var applied: [Migration] = []
        for migration in migrations where done[migration.version] == nil {
            logger.info("applying migration", metadata: ["migration": "\(migration.version)_\(migration.name)"])
            try await connection.execute("BEGIN")
            do {
                try await connection.execute(migration.sql)
                try await connection.query(
                    "INSERT INTO spotter_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    [migration.version, migration.name, migration.checksum]
                )
                if let audit {
                    // The first migration creates the audit log, so it is there for every one.
                    try await AuditSQL.insert(
                        kind: audit.actorKind.rawValue, actor: audit.actor, osUser: audit.osUser, action: "db.migrate",
                        tenant: nil, target: String(format: "%04d", migration.version) + "_" + migration.name,
                        reason: audit.reason,
                        details: #"{"version": \#(migration.version), "checksum": "\#(migration.checksum)"}"#,
                        connection)
                }
                try await connection.execute("COMMIT")
            } catch {
                _ = try? await connection.execute("ROLLBACK")
                throw error
            }
            applied.append(migration)
        }
        return applied
    }

    private typealias AppliedRow = (name: String, checksum: String, at: Date)

    private func appliedRows(_ connection: PostgresConnection) async throws -> [Int: AppliedRow] {
        let rows = try await connection.query("SELECT version, name, checksum, applied_at FROM spotter_migrations")
        var result: [Int: AppliedRow] = [:]
        for row in rows {
            result[try row.decode("version")] = (
                try row.decode("name"), try row.decode("checksum"), try row.decode("applied_at")
            )
        }
        return result
    }

    private static let createTable = """
        CREATE TABLE IF NOT EXISTS spotter_migrations (
            version     integer PRIMARY KEY,
            name        text NOT NULL,
            checksum    text NOT NULL,
            applied_at  timestamptz NOT NULL DEFAULT now()
        )
        """
}
