import ArgumentParser
import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterSetup

/// `spotterctl db migrate|status|check`.
struct DbCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Migrates the database, reports on it and checks its security set-up.",
        subcommands: [Migrate.self, Status.self, Check.self]
    )

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Applies every pending migration.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Why, for each migration's audit row.") var reason = defaultMigrationReason

        func run() async throws {
            try await applyMigrations(options, reason: reason)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Server version, migration level, pending migrations, connections and table sizes."
        )
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let report = try await context.admin.databaseReport()
                    let migrations = try await context.migrationStates()
                    if options.json {
                        return try Output.json(DbStatusOutput(database: report, migrations: migrations))
                    }
                    // The database's level, a newer release's migration (missing here) included.
                    let level = migrations.last(where: { $0.status == .applied || $0.status == .missing }).map {
                        String(format: "%04d", $0.version)
                    }
                    print("database     \(report.database) (PostgreSQL \(report.serverVersion)), reachable")
                    print("migrations   level \(level ?? "none"); pending: \(describe(migrations, .pending))")
                    let broken = migrations.filter { $0.status == .changed || $0.status == .missing }
                    if !broken.isEmpty {
                        print("             PROBLEM: \(broken.map { "\($0.version) \($0.status.rawValue)" })")
                    }
                    print(
                        "connections  "
                            + report.connections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                            .joined(separator: ", "))
                    print("\ntable sizes:")
                    Output.table(
                        ["TABLE", "BYTES"],
                        report.tableBytes.sorted { $0.value > $1.value }.map { [$0.key, "\($0.value)"] }
                    )
                }
            }
        }

        private func describe(_ states: [MigrationState], _ status: MigrationState.Status) -> String {
            let matching = states.filter { $0.status == status }.map { "\($0.version)_\($0.name)" }
            return matching.isEmpty ? "none" : matching.joined(separator: ", ")
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Checks that RLS is forced on every tenant table and the request roles are unprivileged.",
            discussion:
                "With SPOTTER_SERVER_DATABASE_URL set, also that spotterd's login may only switch to the application and mailer roles. Exits 1 when any check fails."
        )
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    var findings = try await context.admin.securityFindings(
                        applicationRoles: [
                            context.settings.applicationRole, context.settings.adminRole, context.settings.mailerRole,
                        ]
                    )
                    // spotterd's own login, where this environment names it.
                    if let url = context.settings.serverDatabaseURL, context.database.embedded == nil {
                        let roles = [context.settings.applicationRole, context.settings.mailerRole]
                        let server = try await context.database.working(
                            login: "spotter_server", memberOf: roles, externalURL: url)
                        let problem = try await DatabaseSetup.workingLoginProblem(server, roles: roles)
                        findings.append(
                            SecurityFinding(
                                check: "spotterd's login (SPOTTER_SERVER_DATABASE_URL)", ok: problem == nil,
                                detail: problem ?? "may only switch to \(roles.joined(separator: " and "))"))
                    }
                    if options.json {
                        try Output.json(findings)
                    } else {
                        Output.table(
                            ["CHECK", "RESULT", "DETAIL"],
                            findings.map { [$0.check, $0.ok ? "ok" : "FAIL", $0.detail] })
                    }
                    if findings.contains(where: { !$0.ok }) { throw ExitCode.failure }
                }
            }
        }
    }
}

struct DbStatusOutput: Encodable {
    var database: DatabaseReport
    var migrations: [MigrationState]
}

extension CommandContext {
    /// Where each migration stands, read as the login (owner) role.
    func migrationStates() async throws -> [MigrationState] {
        let migrator = Migrator(migrations: try Migrator.load(from: settings.migrationsDirectory), logger: logger)
        let connection = try await PostgresConnection.connect(database.configuration)
        do {
            let states = try await migrator.status(connection)
            await connection.close()
            return states
        } catch {
            await connection.close()
            throw error
        }
    }
}
