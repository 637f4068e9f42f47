import ArgumentParser
import Foundation
import Postgres
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

        func run() async throws {
            try await applyMigrations(options)
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

/// Applies pending migrations and says which (shared by `migrate apply` and `db migrate`).
func applyMigrations(_ options: GlobalOptions) async throws {
    try await runCommand {
        try await CommandContext.with(options) { context in
            let applied = try await context.database.migrate(
                context.settings.migrationsDirectory, logger: context.logger)
            if options.json {
                try Output.json(applied.map { ["version": "\($0.version)", "name": $0.name] })
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
