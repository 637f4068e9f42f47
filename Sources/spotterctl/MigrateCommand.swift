import ArgumentParser
import Foundation
import Postgres
import SpotterCore
import SpotterPostgres
import SpotterSetup

/// `spotterctl migrate apply|status`.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Applies migrations or shows where they stand.",
        subcommands: [Apply.self, Status.self],
        defaultSubcommand: Apply.self
    )

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Applies every pending migration.")
        @OptionGroup var options: GlobalOptions
        @Option(help: "Why, for each migration's audit row.") var reason = defaultMigrationReason

        func run() async throws {
            try await applyMigrations(options, reason: reason)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists migrations: applied, pending, changed or missing.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await runCommand {
                try await CommandContext.with(options) { context in
                    let states = try await context.migrationStates()
                    if options.json {
                        try Output.json(states)
                    } else {
                        Output.table(
                            ["VERSION", "NAME", "STATUS", "APPLIED"],
                            states.map {
                                [
                                    String(format: "%04d", $0.version), $0.name, $0.status.rawValue,
                                    Output.date($0.appliedAt),
                                ]
                            }
                        )
                    }
                    if states.contains(where: { $0.status == .changed || $0.status == .missing }) {
                        throw ExitCode.failure
                    }
                }
            }
        }
    }
}

/// What a migration's audit row gives as its reason when `--reason` is not given: a deployment
/// applies what the release brings.
let defaultMigrationReason = "upgrade to the migrations of this release"

/// Applies pending migrations and says which (shared by `migrate apply` and `db migrate`). Each
/// one writes an audit row in its own transaction, naming the operator; the operator need not be
/// registered (a deployment job migrates; whoever can migrate owns the schema anyway).
func applyMigrations(_ options: GlobalOptions, reason: String) async throws {
    try await runCommand {
        if reason.trimmingWhitespaces().isEmpty { throw SpotterError.invalid("reason", "must not be blank") }
        try await CommandContext.with(options) { context in
            let applied = try await context.database.migrate(
                context.settings.migrationsDirectory, logger: context.logger,
                audit: MigrationAudit(
                    actorKind: .admin, actor: context.actor.operatorName, osUser: context.actor.osUser,
                    reason: reason))
            if options.json {
                try Output.json(applied.map { ["version": Field.number($0.version), "name": .text($0.name)] })
            } else if applied.isEmpty {
                print("Nothing to apply: the database is up to date.")
            } else {
                for migration in applied {
                    print("applied \(String(format: "%04d", migration.version))_\(migration.name)")
                }
            }
        }
    }
}
